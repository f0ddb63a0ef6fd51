//! Runtime settings stored in `state/config.json` (CFG-1 … CFG-5).
//!
//! The file is a JSON object with `snake_case` keys. A missing file or key means the default;
//! keys this version does not know are ignored on load and kept as they are on save (so a
//! newer version's settings survive a downgrade); only non-default values are written (F-34),
//! yet full objects load just as well. Legacy boolean thinking values load as
//! `true` → `adaptive`, `false` → `off` (AGT-10). A file that is not a JSON object is moved
//! aside to `config.json.corrupt-<when it was last written>` before the defaults are used, so a later
//! save never silently overwrites the owner's broken edit.

mod channel;
mod display;
mod json;
mod keys;
mod settings;
mod thinking;
mod values;

#[cfg(test)]
mod settings_tests;
#[cfg(test)]
mod tests;

use std::path::Path;
use std::time::Duration;

use serde_json::{Map, Value};

use crate::claude::{PermissionMode, Thinking};
use crate::domain::quiet_hours::QuietWindow;
use crate::state::{StateError, state_file::StateFile};

pub use channel::{HomeSetting, NotifyPlace, ThreadKind, channel_id};
pub use keys::ConfigKey;
pub use settings::RuntimeSettings;
pub use thinking::{THINKING_PRESETS, thinking_choice_name, thinking_from_choice, thinking_label};

use channel::{parse_channel, parse_notify, parse_threads};
pub use json::ConfigFile;
use json::{keep_unknown, raw_from_json};
use keys::{
    DEFAULT_CALENDAR, DEFAULT_TASK_LIST, parse_bool, parse_budget, parse_calendars, parse_hour,
    parse_language, parse_minutes_or_never, parse_model, parse_permission_mode, parse_positive,
    parse_quiet, parse_task_list, parse_thinking,
};

/// The runtime settings (CFG-2); `Default` gives every key its documented default.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuntimeConfig {
    /// Main-session model (`opus`, `sonnet`, `haiku`); `None` = the CLI default.
    pub model_main: Option<String>,
    /// Interactive-fork model; `None` = inherit [`Self::model_main`].
    pub model_fork: Option<String>,
    /// Main-session thinking (default `off`).
    pub thinking_main: Thinking,
    /// Interactive-fork thinking (default `adaptive`).
    pub thinking_fork: Thinking,
    /// Max background-fork runtime in seconds (default 1800).
    pub bg_fork_timeout: u64,
    /// Model calls a background run may make before it is stopped (USE-7).
    pub bg_max_turns: u64,
    /// Background runs at once (default 3); more wait in arrival order (issue 16).
    pub bg_max_concurrent: u64,
    /// What background work may spend a day, in cents; `None` = no limit (USE-6).
    pub bg_daily_budget_cents: Option<u64>,
    /// Interactive-fork idle timeout in minutes (default 10).
    pub fork_idle_timeout: u64,
    /// Permission mode (default `dontAsk`; never `plan`).
    pub permission_mode: PermissionMode,
    /// Install new releases (`v*` tags) and restart (default off; UPD-1).
    pub auto_update: bool,
    /// Update check interval in minutes (default 60).
    pub auto_update_interval: u64,
    /// Hour of the day (0–23) at which updates are applied (default 6).
    pub auto_update_hour: u8,
    /// Calendar ids to read, never empty (default `["primary"]`).
    pub google_calendars: Vec<String>,
    /// Google Tasks list id (default `@default`).
    pub google_task_list: String,
    /// The home channel (CHN-1): chosen with `/home`, turned off, or unchosen.
    pub home_channel: HomeSetting,
    /// Where the bot reaches out on its own (CHN-5).
    pub notify_in: NotifyPlace,
    /// The kind of thread a fork in the home channel gets (issue 41 §1).
    pub fork_threads: ThreadKind,
    /// The daily quiet window, in the owner's zone; `None` = off (issue 28 §2).
    pub quiet_hours: Option<QuietWindow>,
    /// Whether busy events of the owner's Google calendars count as quiet time (QUI-5).
    pub quiet_when_busy: bool,
    /// Minutes the conversation's CLI stays up with nothing to do; `0` = always up (issue 29).
    pub cli_idle_minutes: u64,
    /// `recall_language`: the language recall stems in, one of [`RECALL_LANGUAGES`].
    pub recall_language: &'static str,
}

/// What background work may spend a day by default: a few dozen ordinary runs, well under
/// what a runaway loop of them would cost overnight (USE-6).
pub const DEFAULT_BG_DAILY_BUDGET_CENTS: u64 = 500;

/// Model calls a background run may make by default: routines that read mail, tasks and
/// the calendar and post a summary take a dozen or two; a run still going at 50 is looping.
pub const DEFAULT_BG_MAX_TURNS: u64 = 50;

/// Minutes the conversation's CLI stays up idle by default: a back-and-forth with pauses
/// keeps it warm, and an owner who walks away gets ~200 MiB back soon after (issue 29).
pub const DEFAULT_CLI_IDLE_MINUTES: u64 = 10;

/// The languages recall can match word forms in (its Snowball stemmers), the first the
/// default.
pub const RECALL_LANGUAGES: [&str; 17] = [
    "english",
    "german",
    "french",
    "spanish",
    "italian",
    "portuguese",
    "dutch",
    "danish",
    "swedish",
    "norwegian",
    "finnish",
    "hungarian",
    "romanian",
    "russian",
    "greek",
    "turkish",
    "arabic",
];

/// Background runs at once by default: each is a Claude CLI of 200–300 MB, so three keep a
/// small server's memory in bounds while a burst of fires still moves quickly.
pub const DEFAULT_BG_MAX_CONCURRENT: u64 = 3;

impl Default for RuntimeConfig {
    fn default() -> Self {
        Self {
            model_main: None,
            model_fork: None,
            thinking_main: Thinking::Off,
            thinking_fork: Thinking::Adaptive,
            bg_fork_timeout: 1800,
            bg_max_turns: DEFAULT_BG_MAX_TURNS,
            bg_max_concurrent: DEFAULT_BG_MAX_CONCURRENT,
            bg_daily_budget_cents: Some(DEFAULT_BG_DAILY_BUDGET_CENTS),
            fork_idle_timeout: 10,
            permission_mode: PermissionMode::DontAsk,
            auto_update: false,
            auto_update_interval: 60,
            auto_update_hour: 6,
            google_calendars: vec![DEFAULT_CALENDAR.to_owned()],
            google_task_list: DEFAULT_TASK_LIST.to_owned(),
            home_channel: HomeSetting::Unchosen,
            notify_in: NotifyPlace::Dm,
            fork_threads: ThreadKind::Public,
            quiet_hours: None,
            quiet_when_busy: false,
            cli_idle_minutes: DEFAULT_CLI_IDLE_MINUTES,
            recall_language: RECALL_LANGUAGES[0],
        }
    }
}

/// Why `/config <key> <value>` could not be applied to the file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigUpdateError {
    /// The value was refused; displays as the ephemeral reply `<display>: <reason>` (SLC-10).
    #[error("{key}: {reason}")]
    Invalid {
        /// The key being set.
        key: ConfigKey,
        /// The CFG-2 reason, e.g. `must be an integer 0-23`.
        reason: String,
    },
    /// The new value was valid but `config.json` could not be written.
    #[error("could not save config.json: {0}")]
    Save(#[from] StateError),
}

impl RuntimeConfig {
    /// Loads `path`: a missing file gives the defaults; one that can't be read the defaults
    /// (the owner told once, the file left alone); one that is not a JSON object is set aside
    /// (`<name>.corrupt-<last written>`, the owner told) and the defaults are used. Invalid values
    /// of known keys are warned about and defaulted.
    pub fn load(path: &Path) -> Self {
        Self::read(&StateFile::new(path))
    }

    /// [`Self::load`] through `file`.
    pub(crate) fn read(file: &StateFile<ConfigFile>) -> Self {
        match file.read() {
            Ok(object) => Self::from_json(&object),
            Err(error) => {
                tracing::warn!(%error, "cannot read config.json; using defaults");
                Self::default()
            }
        }
    }

    /// Writes the non-default values to `path` atomically (`snake_case` keys, pretty JSON),
    /// keeping any keys of the current file this version does not know. Creates the parent
    /// directory if needed; a file that can't be read is an error, never written over.
    pub fn save(&self, path: &Path) -> Result<(), StateError> {
        self.write(&StateFile::new(path))
    }

    /// [`Self::save`] through `file`.
    pub(crate) fn write(&self, file: &StateFile<ConfigFile>) -> Result<(), StateError> {
        file.update(|object| {
            keep_unknown(object);
            object.extend(self.to_json());
        })
    }

    /// Sets `key` from the owner's text with the CFG-2 rules (trimmed; model, thinking and
    /// boolean values case-insensitive; `permission_mode` case-sensitive). On error nothing
    /// changes and the reason (e.g. `must be a positive integer`) is returned.
    pub fn set(&mut self, key: ConfigKey, raw: &str) -> Result<(), String> {
        match key {
            ConfigKey::ModelMain => self.model_main = parse_model(raw)?,
            ConfigKey::ModelFork => self.model_fork = parse_model(raw)?,
            ConfigKey::ThinkingMain => self.thinking_main = parse_thinking(raw)?,
            ConfigKey::ThinkingFork => self.thinking_fork = parse_thinking(raw)?,
            ConfigKey::BgForkTimeout => self.bg_fork_timeout = parse_positive(raw)?,
            ConfigKey::BgMaxTurns => self.bg_max_turns = parse_positive(raw)?,
            ConfigKey::BgMaxConcurrent => self.bg_max_concurrent = parse_positive(raw)?,
            ConfigKey::BgDailyBudget => self.bg_daily_budget_cents = parse_budget(raw)?,
            ConfigKey::ForkIdleTimeout => self.fork_idle_timeout = parse_positive(raw)?,
            ConfigKey::PermissionMode => self.permission_mode = parse_permission_mode(raw)?,
            ConfigKey::AutoUpdate => self.auto_update = parse_bool(raw)?,
            ConfigKey::AutoUpdateInterval => self.auto_update_interval = parse_positive(raw)?,
            ConfigKey::AutoUpdateHour => self.auto_update_hour = parse_hour(raw)?,
            ConfigKey::GoogleCalendars => self.google_calendars = parse_calendars(raw),
            ConfigKey::GoogleTaskList => self.google_task_list = parse_task_list(raw),
            ConfigKey::HomeChannel => self.home_channel = parse_channel(raw)?,
            ConfigKey::NotifyIn => self.notify_in = parse_notify(raw)?,
            ConfigKey::ForkThreads => self.fork_threads = parse_threads(raw)?,
            ConfigKey::QuietHours => self.quiet_hours = parse_quiet(raw)?,
            ConfigKey::QuietWhenBusy => self.quiet_when_busy = parse_bool(raw)?,
            ConfigKey::CliIdleMinutes => self.cli_idle_minutes = parse_minutes_or_never(raw)?,
            ConfigKey::RecallLanguage => self.recall_language = parse_language(raw)?,
        }
        Ok(())
    }

    /// Like [`Self::set`] with the key given by name (display or `snake_case`); an unknown
    /// name gives `unknown key: <name>`. Returns the key that was set.
    pub fn set_named(&mut self, name: &str, raw: &str) -> Result<ConfigKey, String> {
        let key = ConfigKey::from_name(name).ok_or_else(|| format!("unknown key: {name}"))?;
        self.set(key, raw)?;
        Ok(key)
    }

    /// Whether `key` has its default value.
    pub fn is_default(&self, key: ConfigKey) -> bool {
        self.stored_value(key) == Self::default().stored_value(key)
    }

    /// One `/config` line: `**<display>**: <value>`.
    pub fn render_line(&self, key: ConfigKey) -> String {
        format!("**{}**: {}", key.display_name(), self.display_value(key))
    }

    /// Every key's line ([`ConfigKey::ALL`], Google keys included), joined by newlines.
    pub fn render_all(&self) -> String {
        ConfigKey::ALL
            .iter()
            .map(|key| self.render_line(*key))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The model interactive forks use: [`Self::model_fork`], else [`Self::model_main`].
    pub fn fork_model(&self) -> Option<&str> {
        self.model_fork.as_deref().or(self.model_main.as_deref())
    }

    /// [`Self::bg_fork_timeout`] as a duration.
    pub fn bg_fork_timeout_duration(&self) -> Duration {
        Duration::from_secs(self.bg_fork_timeout)
    }

    /// [`Self::fork_idle_timeout`] as a duration.
    pub fn fork_idle_timeout_duration(&self) -> Duration {
        Duration::from_secs(self.fork_idle_timeout.saturating_mul(60))
    }

    /// [`Self::auto_update_interval`] as a duration.
    pub fn auto_update_interval_duration(&self) -> Duration {
        Duration::from_secs(self.auto_update_interval.saturating_mul(60))
    }

    /// The non-default values as a JSON object with `snake_case` keys, as saved.
    pub fn to_json(&self) -> Map<String, Value> {
        ConfigKey::ALL
            .into_iter()
            .filter(|key| !self.is_default(*key))
            .map(|key| (key.name().to_owned(), self.stored_value(key)))
            .collect()
    }

    /// Builds a configuration from a `config.json` object (full or sparse).
    pub fn from_json(object: &Map<String, Value>) -> Self {
        let mut config = Self::default();
        for (name, value) in object {
            let Some(key) = ConfigKey::from_stored_name(name) else {
                tracing::debug!(key = %name, "ignoring unknown key in config.json");
                continue;
            };
            let Some(raw) = raw_from_json(key, value) else {
                if !value.is_null() {
                    tracing::warn!(key = %name, %value, "config.json value has the wrong type; using the default");
                }
                continue;
            };
            if let Err(reason) = config.set(key, &raw) {
                tracing::warn!(key = %name, %value, %reason, "invalid config.json value; using the default");
            }
        }
        config
    }

    /// The JSON form of one value, as stored in the file.
    fn stored_value(&self, key: ConfigKey) -> Value {
        match key {
            ConfigKey::ModelMain => self.model_main.clone().map_or(Value::Null, Value::String),
            ConfigKey::ModelFork => self.model_fork.clone().map_or(Value::Null, Value::String),
            ConfigKey::ThinkingMain => Value::String(self.thinking_main.to_string()),
            ConfigKey::ThinkingFork => Value::String(self.thinking_fork.to_string()),
            ConfigKey::BgForkTimeout => Value::from(self.bg_fork_timeout),
            ConfigKey::BgMaxTurns => Value::from(self.bg_max_turns),
            ConfigKey::BgMaxConcurrent => Value::from(self.bg_max_concurrent),
            ConfigKey::BgDailyBudget => self.bg_daily_budget_cents.map_or_else(
                || Value::from("off"),
                |cents| Value::String(format!("{}.{:02}", cents / 100, cents % 100)),
            ),
            ConfigKey::ForkIdleTimeout => Value::from(self.fork_idle_timeout),
            ConfigKey::PermissionMode => Value::from(self.permission_mode.as_str()),
            ConfigKey::AutoUpdate => Value::Bool(self.auto_update),
            ConfigKey::AutoUpdateInterval => Value::from(self.auto_update_interval),
            ConfigKey::AutoUpdateHour => Value::from(self.auto_update_hour),
            ConfigKey::GoogleCalendars => Value::String(self.google_calendars.join(",")),
            ConfigKey::GoogleTaskList => Value::String(self.google_task_list.clone()),
            ConfigKey::HomeChannel => match self.home_channel {
                HomeSetting::Unchosen => Value::Null,
                HomeSetting::Off => Value::from("off"),
                HomeSetting::Channel(id) => Value::String(id.to_string()),
            },
            ConfigKey::NotifyIn => Value::from(self.notify_in.as_str()),
            ConfigKey::ForkThreads => Value::from(self.fork_threads.as_str()),
            ConfigKey::QuietHours => self
                .quiet_hours
                .map_or(Value::Null, |window| Value::String(window.to_string())),
            ConfigKey::QuietWhenBusy => Value::Bool(self.quiet_when_busy),
            ConfigKey::CliIdleMinutes => Value::from(self.cli_idle_minutes),
            ConfigKey::RecallLanguage => Value::from(self.recall_language),
        }
    }
}
