//! `--since` windows: `30m`, `24h`, `7d`. Pure.

use chrono::Duration;

/// Parses a window: a positive whole number followed by `m` (minutes), `h` (hours) or `d`
/// (days).
pub fn parse_window(raw: &str) -> Result<Duration, String> {
    let raw = raw.trim();
    let bad = || format!("invalid window {raw:?}: use minutes, hours or days, e.g. 30m, 24h, 7d");
    let split = raw.len().checked_sub(1).ok_or_else(bad)?;
    let (digits, unit) = raw.split_at(split);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let amount: i64 = digits.parse().map_err(|_| bad())?;
    if amount == 0 {
        return Err(bad());
    }
    let window = match unit {
        "m" => Duration::try_minutes(amount),
        "h" => Duration::try_hours(amount),
        "d" => Duration::try_days(amount),
        _ => None,
    };
    window.ok_or_else(bad)
}
