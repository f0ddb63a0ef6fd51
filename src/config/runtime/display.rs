//! How `/config` shows each value (CFG-3).

use super::{ConfigKey, HomeSetting, RuntimeConfig, thinking_label};

impl RuntimeConfig {
    /// The value of `key` as `/config` shows it (CFG-3), with ` (default)` appended when it
    /// is the default: `(default)` / `(inherit main)` for unset models, `on`/`off`,
    /// `32k budget`, `1800s`, `10m`, `6:00`.
    pub fn display_value(&self, key: ConfigKey) -> String {
        let label = match key {
            ConfigKey::ModelMain => return model_label(self.model_main.as_deref(), "(default)"),
            ConfigKey::ModelFork => {
                return model_label(self.model_fork.as_deref(), "(inherit main)");
            }
            ConfigKey::ThinkingMain => thinking_label(self.thinking_main),
            ConfigKey::ThinkingFork => thinking_label(self.thinking_fork),
            ConfigKey::BgForkTimeout => format!("{}s", self.bg_fork_timeout),
            ConfigKey::BgMaxTurns => self.bg_max_turns.to_string(),
            ConfigKey::BgMaxConcurrent => self.bg_max_concurrent.to_string(),
            ConfigKey::BgDailyBudget => self.bg_daily_budget_cents.map_or_else(
                || "off".to_owned(),
                |cents| format!("${}.{:02} a day", cents / 100, cents % 100),
            ),
            ConfigKey::ForkIdleTimeout => format!("{}m", self.fork_idle_timeout),
            ConfigKey::PermissionMode => self.permission_mode.as_str().to_owned(),
            ConfigKey::AutoUpdate => on_off(self.auto_update),
            ConfigKey::QuietWhenBusy => on_off(self.quiet_when_busy),
            ConfigKey::CliIdleMinutes => match self.cli_idle_minutes {
                0 => "never".to_owned(),
                minutes => format!("{minutes}m"),
            },
            ConfigKey::RecallLanguage => self.recall_language.to_owned(),
            ConfigKey::AutoUpdateInterval => format!("{}m", self.auto_update_interval),
            ConfigKey::AutoUpdateHour => format!("{}:00", self.auto_update_hour),
            ConfigKey::GoogleCalendars => self.google_calendars.join(", "),
            ConfigKey::GoogleTaskList => self.google_task_list.clone(),
            ConfigKey::HomeChannel => {
                return match self.home_channel {
                    HomeSetting::Unchosen => "(none)".to_owned(),
                    HomeSetting::Off => "off".to_owned(),
                    HomeSetting::Channel(id) => format!("<#{id}>"),
                };
            }
            ConfigKey::NotifyIn => self.notify_in.as_str().to_owned(),
            ConfigKey::ForkThreads => self.fork_threads.as_str().to_owned(),
            ConfigKey::QuietHours => self
                .quiet_hours
                .map_or_else(|| "off".to_owned(), |window| window.to_string()),
        };
        if self.is_default(key) {
            format!("{label} (default)")
        } else {
            label
        }
    }
}

/// `on` or `off`.
fn on_off(on: bool) -> String {
    if on { "on" } else { "off" }.to_owned()
}

/// A model's `/config` label: its name, or `unset` when none is configured.
fn model_label(model: Option<&str>, unset: &str) -> String {
    model.map_or_else(|| unset.to_owned(), str::to_owned)
}
