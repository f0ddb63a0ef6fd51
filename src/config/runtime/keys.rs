//! The settings of `config.json` (CFG-2): their names, descriptions and accepted values; how
//! raw text is parsed is in `values.rs`.

/// One runtime setting, in the display order of `/config` (CFG-3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ConfigKey {
    /// `model.main`: main-session model (unset = CLI default).
    ModelMain,
    /// `model.fork`: interactive-fork model (unset = inherit main).
    ModelFork,
    /// `thinking.main`: main-session thinking (default `off`).
    ThinkingMain,
    /// `thinking.fork`: interactive-fork thinking (default `adaptive`).
    ThinkingFork,
    /// `bg_fork_timeout`: max background-fork runtime in seconds (default 1800).
    BgForkTimeout,
    /// `bg_max_turns`: model calls a background run may make before it is stopped (USE-7).
    BgMaxTurns,
    /// `bg_max_concurrent`: background runs at once; more wait their turn (default 3).
    BgMaxConcurrent,
    /// `bg_daily_budget`: dollars background work may spend a day, or off (USE-6).
    BgDailyBudget,
    /// `fork_idle_timeout`: interactive-fork idle timeout in minutes (default 10).
    ForkIdleTimeout,
    /// `permission_mode`: default permission mode (default `dontAsk`).
    PermissionMode,
    /// `auto_update`: install new releases (`v*` tags) and restart (default off; UPD-1).
    AutoUpdate,
    /// `auto_update_interval`: update check interval in minutes (default 60).
    AutoUpdateInterval,
    /// `auto_update_hour`: hour (0–23) at which updates are applied (default 6).
    AutoUpdateHour,
    /// `google_calendars`: comma-separated calendar ids (default `primary`).
    GoogleCalendars,
    /// `google_task_list`: Google Tasks list id (default `@default`).
    GoogleTaskList,
    /// `home_channel`: the server channel the bot answers the owner in besides the DM
    /// (CHN-1); set with `/home` run there, unset by default.
    HomeChannel,
    /// `notify_in`: where pings, embeds and notices go, `dm` (default) or `home` (CHN-5).
    NotifyIn,
    /// `fork_threads`: whether a fork's thread in the home channel is `public` (default) or
    /// `private` (issue 41 §1).
    ForkThreads,
    /// `quiet_hours`: a daily window when background pings wait for a digest (issue 28 §2);
    /// set with `/quiet`, off by default.
    QuietHours,
    /// `quiet_when_busy`: busy events of the owner's Google calendars count as quiet time
    /// (issue 28 §2, QUI-5); off by default.
    QuietWhenBusy,
    /// `cli_idle_minutes`: how long the conversation's Claude CLI stays up with nothing to do
    /// before it sleeps (issue 29); `0` keeps it up.
    CliIdleMinutes,
    /// `recall_language`: the language recall stems words in (issue 42), `english` by default.
    RecallLanguage,
}

impl ConfigKey {
    /// Every key, in display order.
    pub const ALL: [Self; 22] = [
        Self::ModelMain,
        Self::ModelFork,
        Self::ThinkingMain,
        Self::ThinkingFork,
        Self::BgForkTimeout,
        Self::BgMaxTurns,
        Self::BgMaxConcurrent,
        Self::BgDailyBudget,
        Self::ForkIdleTimeout,
        Self::PermissionMode,
        Self::AutoUpdate,
        Self::AutoUpdateInterval,
        Self::AutoUpdateHour,
        Self::GoogleCalendars,
        Self::GoogleTaskList,
        Self::HomeChannel,
        Self::NotifyIn,
        Self::ForkThreads,
        Self::QuietHours,
        Self::QuietWhenBusy,
        Self::CliIdleMinutes,
        Self::RecallLanguage,
    ];

    /// The keys offered by the `/config key` dropdown (all but the Google keys and the home
    /// channel, which `/home` sets where it is; CFG-5).
    pub const DROPDOWN: [Self; 18] = [
        Self::ModelMain,
        Self::ModelFork,
        Self::ThinkingMain,
        Self::ThinkingFork,
        Self::BgForkTimeout,
        Self::BgMaxTurns,
        Self::BgMaxConcurrent,
        Self::BgDailyBudget,
        Self::ForkIdleTimeout,
        Self::PermissionMode,
        Self::AutoUpdate,
        Self::AutoUpdateInterval,
        Self::AutoUpdateHour,
        Self::NotifyIn,
        Self::ForkThreads,
        Self::QuietWhenBusy,
        Self::CliIdleMinutes,
        Self::RecallLanguage,
    ];

    /// The `snake_case` key stored in `config.json` (and the dropdown's option value).
    pub fn name(self) -> &'static str {
        match self {
            Self::ModelMain => "model_main",
            Self::ModelFork => "model_fork",
            Self::ThinkingMain => "thinking_main",
            Self::ThinkingFork => "thinking_fork",
            Self::BgForkTimeout => "bg_fork_timeout",
            Self::BgMaxTurns => "bg_max_turns",
            Self::BgMaxConcurrent => "bg_max_concurrent",
            Self::BgDailyBudget => "bg_daily_budget",
            Self::ForkIdleTimeout => "fork_idle_timeout",
            Self::PermissionMode => "permission_mode",
            Self::AutoUpdate => "auto_update",
            Self::AutoUpdateInterval => "auto_update_interval",
            Self::AutoUpdateHour => "auto_update_hour",
            Self::GoogleCalendars => "google_calendars",
            Self::GoogleTaskList => "google_task_list",
            Self::HomeChannel => "home_channel",
            Self::NotifyIn => "notify_in",
            Self::ForkThreads => "fork_threads",
            Self::QuietHours => "quiet_hours",
            Self::QuietWhenBusy => "quiet_when_busy",
            Self::CliIdleMinutes => "cli_idle_minutes",
            Self::RecallLanguage => "recall_language",
        }
    }

    /// The name shown to the owner (`model.main`, `thinking.fork`, `bg_fork_timeout`, ...).
    pub fn display_name(self) -> &'static str {
        match self {
            Self::ModelMain => "model.main",
            Self::ModelFork => "model.fork",
            Self::ThinkingMain => "thinking.main",
            Self::ThinkingFork => "thinking.fork",
            other => other.name(),
        }
    }

    /// Finds a key by its display name or `snake_case` name (trimmed, case-insensitive).
    pub fn from_name(name: &str) -> Option<Self> {
        let name = name.trim();
        Self::ALL.into_iter().find(|key| {
            key.name().eq_ignore_ascii_case(name) || key.display_name().eq_ignore_ascii_case(name)
        })
    }

    /// Finds a key by its exact `snake_case` storage name (as in `config.json`).
    pub(crate) fn from_stored_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|key| key.name() == name)
    }

    /// Whether `/config` offers this key in its dropdown (CFG-5).
    pub fn in_dropdown(self) -> bool {
        !matches!(
            self,
            Self::GoogleCalendars | Self::GoogleTaskList | Self::HomeChannel | Self::QuietHours
        )
    }

    /// A one-line description of the setting.
    pub fn description(self) -> &'static str {
        match self {
            Self::ModelMain => "Default model for main session",
            Self::ModelFork => "Default model for interactive forks",
            Self::ThinkingMain => "Extended thinking for main session",
            Self::ThinkingFork => "Extended thinking for interactive forks",
            Self::BgForkTimeout => "Max background fork runtime (seconds)",
            Self::BgMaxTurns => "Model calls a background run may make before it is stopped",
            Self::BgMaxConcurrent => "Background runs at once (more wait their turn)",
            Self::BgDailyBudget => "Most background work may spend a day",
            Self::ForkIdleTimeout => "Interactive fork idle timeout (minutes)",
            Self::PermissionMode => "Default permission mode",
            Self::AutoUpdate => "Install new releases and restart",
            Self::AutoUpdateInterval => "Update check interval (minutes)",
            Self::AutoUpdateHour => "Hour to apply updates (0-23)",
            Self::GoogleCalendars => "Google calendars to read (comma-separated ids)",
            Self::GoogleTaskList => "Google Tasks list to use",
            Self::HomeChannel => "Server channel I answer you in besides the DM",
            Self::NotifyIn => "Where pings, embeds and notices go",
            Self::ForkThreads => "Whether a fork's thread in the home channel is private",
            Self::QuietHours => "Daily quiet time: background pings wait for one digest",
            Self::QuietWhenBusy => "Busy Google Calendar events count as quiet time",
            Self::CliIdleMinutes => "Minutes with nothing to do before Claude's CLI sleeps",
            Self::RecallLanguage => "The language recall matches word forms in",
        }
    }

    /// The values the key accepts, for help lines (e.g. `opus / sonnet / haiku / default`).
    pub fn valid_values(self) -> &'static str {
        match self {
            Self::ModelMain | Self::ModelFork => {
                "opus / sonnet / haiku / fable / opusplan / a full model id / default"
            }
            Self::ThinkingMain | Self::ThinkingFork => "off / adaptive / <budget tokens>",
            Self::BgForkTimeout => "<seconds>, a positive integer",
            Self::BgMaxTurns => "a positive integer",
            Self::BgMaxConcurrent => "a positive integer (each run is one Claude CLI, 200-300 MB)",
            Self::BgDailyBudget => "dollars a day (5, 2.50) / off",
            Self::ForkIdleTimeout | Self::AutoUpdateInterval => "<minutes>, a positive integer",
            Self::PermissionMode => "dontAsk / default / acceptEdits / bypassPermissions",
            Self::AutoUpdate | Self::QuietWhenBusy => "on / off",
            Self::AutoUpdateHour => "0-23",
            Self::GoogleCalendars => "comma-separated calendar ids (blank = primary)",
            Self::GoogleTaskList => "a task list id (blank = @default)",
            Self::HomeChannel => "a channel id / off (run /home in the channel to set it)",
            Self::NotifyIn => "dm / home",
            Self::ForkThreads => "public / private",
            Self::QuietHours => "22:00-08:00 / off (or /quiet)",
            Self::CliIdleMinutes => "<minutes> / 0 (never)",
            Self::RecallLanguage => "english / german / french / spanish / … (17 languages)",
        }
    }

    /// A help line: `` **<display>**: <description> — `<valid values>` ``.
    pub fn help_line(self) -> String {
        format!(
            "**{}**: {} — `{}`",
            self.display_name(),
            self.description(),
            self.valid_values()
        )
    }

    /// The `/config key` slash-option choices as `(name, value)`: display name, `snake_case` name.
    pub fn choices() -> [(&'static str, &'static str); 18] {
        Self::DROPDOWN.map(|key| (key.display_name(), key.name()))
    }
}

impl std::fmt::Display for ConfigKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.display_name())
    }
}

pub(crate) use super::values::*;
