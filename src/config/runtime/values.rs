//! The values of the `/config` keys as typed or stored: each parser and its error text
//! (CFG-2). The channel keys' values are in `channel.rs`.

use crate::claude::{PermissionMode, Thinking};
use crate::domain::model_name::check_model;

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

/// A language of [`super::RECALL_LANGUAGES`] (case-insensitive).
pub(crate) fn parse_language(raw: &str) -> Result<&'static str, String> {
    let wanted = raw.trim().to_lowercase();
    super::RECALL_LANGUAGES
        .into_iter()
        .find(|name| *name == wanted)
        .ok_or_else(|| format!("must be one of {}", super::RECALL_LANGUAGES.join(", ")))
}
