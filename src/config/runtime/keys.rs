//! The settings of `config.json` (CFG-2): their names, how raw text is parsed and the exact
//! error texts the owner sees.

use crate::claude::{PermissionMode, Thinking};
use crate::domain::model_name::check_model;

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
}

impl ConfigKey {
    /// Every key, in display order.
    pub const ALL: [Self; 21] = [
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
    ];

    /// The keys offered by the `/config key` dropdown (all but the Google keys and the home
    /// channel, which `/home` sets where it is; CFG-5).
    pub const DROPDOWN: [Self; 17] = [
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
    pub fn choices() -> [(&'static str, &'static str); 17] {
        Self::DROPDOWN.map(|key| (key.display_name(), key.name()))
    }
}

impl std::fmt::Display for ConfigKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.display_name())
    }
}

/// Error text for a bad thinking mode.
pub(crate) const THINKING_ERROR: &str =
    "must be 'off', 'adaptive', or a positive integer (budget tokens)";
/// Error text for a bad positive integer.
pub(crate) const POSITIVE_ERROR: &str = "must be a positive integer";
/// Error text for a bad hour.
pub(crate) const HOUR_ERROR: &str = "must be an integer 0-23";
/// Error text for a bad boolean.
pub(crate) const BOOL_ERROR: &str = "must be on/off";
/// Error text for a bad permission mode.
pub(crate) const PERMISSION_ERROR: &str =
    "must be one of: acceptEdits, bypassPermissions, default, dontAsk";

/// The permission modes `permission_mode` accepts (`plan` is not one of them).
const PERMISSION_MODES: [PermissionMode; 4] = [
    PermissionMode::DontAsk,
    PermissionMode::Default,
    PermissionMode::AcceptEdits,
    PermissionMode::BypassPermissions,
];

/// The default calendar id.
pub(crate) const DEFAULT_CALENDAR: &str = "primary";
/// The default task list id.
pub(crate) const DEFAULT_TASK_LIST: &str = "@default";

/// Non-empty and ASCII digits only (no sign, no spaces inside).
pub(super) fn digits(raw: &str) -> Option<&str> {
    (!raw.is_empty() && raw.bytes().all(|b| b.is_ascii_digit())).then_some(raw)
}

/// A model alias or full id (issue 24 §3), or `None` for the reset words `""`, `null`,
/// `none`, `default`.
pub(crate) fn parse_model(raw: &str) -> Result<Option<String>, String> {
    match raw.trim().to_ascii_lowercase().as_str() {
        "" | "null" | "none" | "default" => Ok(None),
        _ => check_model(raw)
            .map(Some)
            .map_err(|error| error.to_string()),
    }
}

/// `off`, `adaptive` or a positive integer budget (case-insensitive).
pub(crate) fn parse_thinking(raw: &str) -> Result<Thinking, &'static str> {
    let lowered = raw.trim().to_ascii_lowercase();
    match lowered.as_str() {
        "off" => Ok(Thinking::Off),
        "adaptive" => Ok(Thinking::Adaptive),
        other => digits(other)
            .and_then(|n| n.parse::<u32>().ok())
            .filter(|n| *n > 0)
            .map(Thinking::Budget)
            .ok_or(THINKING_ERROR),
    }
}

/// A positive integer.
pub(crate) fn parse_positive(raw: &str) -> Result<u64, &'static str> {
    digits(raw.trim())
        .and_then(|n| n.parse::<u64>().ok())
        .filter(|n| *n > 0)
        .ok_or(POSITIVE_ERROR)
}

/// Minutes, `0` (also `never`, `off`) included.
pub(crate) fn parse_minutes_or_never(raw: &str) -> Result<u64, &'static str> {
    match raw.trim().to_ascii_lowercase().as_str() {
        "never" | "off" => Ok(0),
        other => digits(other)
            .and_then(|n| n.parse::<u64>().ok())
            .ok_or("expected minutes, or 0 for never"),
    }
}

/// An hour 0–23.
pub(crate) fn parse_hour(raw: &str) -> Result<u8, &'static str> {
    digits(raw.trim())
        .and_then(|n| n.parse::<u8>().ok())
        .filter(|n| *n <= 23)
        .ok_or(HOUR_ERROR)
}

/// `on/true/1/yes` or `off/false/0/no` (case-insensitive).
pub(crate) fn parse_bool(raw: &str) -> Result<bool, &'static str> {
    match raw.trim().to_ascii_lowercase().as_str() {
        "on" | "true" | "1" | "yes" => Ok(true),
        "off" | "false" | "0" | "no" => Ok(false),
        _ => Err(BOOL_ERROR),
    }
}

/// One of the four permission modes, spelled exactly as the CLI does.
pub(crate) fn parse_permission_mode(raw: &str) -> Result<PermissionMode, &'static str> {
    let raw = raw.trim();
    PERMISSION_MODES
        .into_iter()
        .find(|mode| mode.as_str() == raw)
        .ok_or(PERMISSION_ERROR)
}

/// Comma-separated calendar ids; blank (or only commas) means `primary`.
pub(crate) fn parse_calendars(raw: &str) -> Vec<String> {
    let ids: Vec<String> = raw
        .split(',')
        .map(str::trim)
        .filter(|id| !id.is_empty())
        .map(str::to_owned)
        .collect();
    if ids.is_empty() {
        vec![DEFAULT_CALENDAR.to_owned()]
    } else {
        ids
    }
}

/// A task list id; blank means `@default`.
pub(crate) fn parse_task_list(raw: &str) -> String {
    match raw.trim() {
        "" => DEFAULT_TASK_LIST.to_owned(),
        id => id.to_owned(),
    }
}

/// Error text for a bad budget.
pub(crate) const BUDGET_ERROR: &str = "must be dollars a day (like 5 or 2.50) or off";

/// Dollars a day in cents (`5`, `$2.50`, `0.10`), or `None` for `off` (USE-6).
pub(crate) fn parse_budget(raw: &str) -> Result<Option<u64>, &'static str> {
    let raw = raw.trim().to_ascii_lowercase();
    if matches!(raw.as_str(), "off" | "none" | "unlimited") {
        return Ok(None);
    }
    let amount = raw.strip_prefix('$').unwrap_or(&raw).trim();
    let (whole, cents) = amount.split_once('.').unwrap_or((amount, ""));
    let cents = match cents.len() {
        0 => Some(0),
        1 => digits(cents)
            .and_then(|c| c.parse::<u64>().ok())
            .map(|c| c * 10),
        2 => digits(cents).and_then(|c| c.parse::<u64>().ok()),
        _ => None,
    };
    let whole = digits(whole).and_then(|w| w.parse::<u64>().ok());
    match (whole, cents) {
        (Some(whole), Some(cents)) if whole > 0 || cents > 0 => whole
            .checked_mul(100)
            .and_then(|w| w.checked_add(cents))
            .map(Some)
            .ok_or(BUDGET_ERROR),
        _ => Err(BUDGET_ERROR),
    }
}

/// `quiet_hours`: a window like `22:00-08:00`, or `off` / blank for none (issue 28 §2).
pub(crate) fn parse_quiet(
    raw: &str,
) -> Result<Option<crate::domain::quiet_hours::QuietWindow>, String> {
    let raw = raw.trim();
    if raw.is_empty() || raw.eq_ignore_ascii_case("off") {
        return Ok(None);
    }
    raw.parse().map(Some).map_err(|error| format!("{error}"))
}
