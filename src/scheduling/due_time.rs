//! When a reminder is due, from what a person types: `--delay 30` (minutes), `--in 2h30m`
//! (a duration, read by `humantime`), `--at 15:30` (the next 15:30 in the owner's zone) or
//! `--at "2026-12-01 09:00"`. Pure, with `now` injected, so daylight-saving edges are tested.

use chrono::{DateTime, Duration, FixedOffset, NaiveDate, NaiveDateTime, NaiveTime, TimeZone};
use chrono_tz::Tz;

/// How a due time was asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DueInput {
    /// Whole minutes from now (`--delay`).
    DelayMinutes(i64),
    /// A duration from now (`--in 2h30m`, `--in 90m`, `--in "1h 15m"`).
    In(String),
    /// A wall-clock time (`--at 15:30`) or date and time (`--at "2026-12-01 09:00"`).
    At(String),
}

/// Why the input gives no usable time.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DueTimeError {
    /// A negative `--delay`.
    #[error("--delay must be zero or more minutes")]
    NegativeDelay,
    /// `--in` is not a duration.
    #[error(
        "--in {input:?} is not a duration ({reason}); e.g. --in 45m, --in 2h30m, --in \"1d 2h\""
    )]
    BadDuration {
        /// What was typed.
        input: String,
        /// The parser's complaint.
        reason: String,
    },
    /// `--at` is neither `HH:MM` nor `YYYY-MM-DD HH:MM`.
    #[error("--at {0:?} is not a time; use HH:MM (e.g. 15:30) or \"YYYY-MM-DD HH:MM\"")]
    BadTime(String),
    /// A date and time already past.
    #[error("--at {input:?} is in the past (it is {now} now)")]
    Past {
        /// What was typed.
        input: String,
        /// The current local time.
        now: String,
    },
    /// The clocks skip that time on that day (daylight saving starts).
    #[error(
        "{time} does not exist on {date} in {zone}: the clocks jump forward then; pick another time"
    )]
    Skipped {
        /// The local time asked for.
        time: NaiveTime,
        /// The day.
        date: NaiveDate,
        /// The zone.
        zone: Tz,
    },
    /// Too far away to represent.
    #[error("that is too far in the future")]
    OutOfRange,
}

/// The moment `input` names, seen from `now` in `tz`, to the second. A time that occurs twice
/// (clocks turned back) is its first occurrence; `HH:MM` already past today means tomorrow.
pub fn resolve(input: &DueInput, now: DateTime<Tz>) -> Result<DateTime<FixedOffset>, DueTimeError> {
    let tz = now.timezone();
    let in_zone = |at: DateTime<FixedOffset>| at.with_timezone(&tz).fixed_offset();
    let now = now.fixed_offset();
    match input {
        DueInput::DelayMinutes(minutes) if *minutes < 0 => Err(DueTimeError::NegativeDelay),
        DueInput::DelayMinutes(minutes) => add(now, Duration::try_minutes(*minutes)).map(in_zone),
        DueInput::In(text) => {
            let parsed = humantime::parse_duration(text.trim()).map_err(|error| {
                DueTimeError::BadDuration {
                    input: text.clone(),
                    reason: duration_complaint(&error),
                }
            })?;
            add(now, Duration::from_std(parsed).ok()).map(in_zone)
        }
        DueInput::At(text) => resolve_at(text, now.with_timezone(&tz)),
    }
}

/// What is wrong with a duration, in words rather than the parser's offsets.
fn duration_complaint(error: &humantime::DurationError) -> String {
    match error {
        humantime::DurationError::Empty => "it is empty".to_owned(),
        humantime::DurationError::NumberExpected(_) => "a number must come first".to_owned(),
        humantime::DurationError::InvalidCharacter(at) => {
            format!("a character it can't read at position {}", at + 1)
        }
        humantime::DurationError::UnknownUnit { unit, .. } => {
            format!("unknown unit {unit:?}: use m, h or d")
        }
        humantime::DurationError::NumberOverflow => "the number is too large".to_owned(),
    }
}

fn add(
    now: DateTime<FixedOffset>,
    delta: Option<Duration>,
) -> Result<DateTime<FixedOffset>, DueTimeError> {
    delta
        .and_then(|delta| now.checked_add_signed(delta))
        .ok_or(DueTimeError::OutOfRange)
}

fn resolve_at(text: &str, now: DateTime<Tz>) -> Result<DateTime<FixedOffset>, DueTimeError> {
    let trimmed = text.trim();
    let tz = now.timezone();
    if let Some(time) = parse_time(trimmed) {
        let today = now.date_naive();
        let at = local(today.and_time(time), tz)?;
        if at > now {
            return Ok(at.fixed_offset());
        }
        let tomorrow = today.succ_opt().ok_or(DueTimeError::OutOfRange)?;
        return local(tomorrow.and_time(time), tz).map(|at| at.fixed_offset());
    }
    let naive = ["%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M:%S"]
        .iter()
        .find_map(|format| NaiveDateTime::parse_from_str(trimmed, format).ok())
        .ok_or_else(|| DueTimeError::BadTime(text.to_owned()))?;
    let at = local(naive, tz)?;
    if at <= now {
        return Err(DueTimeError::Past {
            input: text.to_owned(),
            now: now.format("%Y-%m-%d %H:%M").to_string(),
        });
    }
    Ok(at.fixed_offset())
}

fn parse_time(text: &str) -> Option<NaiveTime> {
    ["%H:%M", "%H:%M:%S"]
        .iter()
        .find_map(|format| NaiveTime::parse_from_str(text, format).ok())
}

/// The zone's reading of a wall-clock time: the earlier of two, or an error in a gap.
fn local(naive: NaiveDateTime, tz: Tz) -> Result<DateTime<Tz>, DueTimeError> {
    tz.from_local_datetime(&naive)
        .earliest()
        .ok_or(DueTimeError::Skipped {
            time: naive.time(),
            date: naive.date(),
            zone: tz,
        })
}

#[cfg(test)]
#[path = "due_time_tests.rs"]
mod tests;
