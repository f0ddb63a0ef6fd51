//! Reading routine (E.1) and reminder (E.2) files, with the validation rules of RTN-6, PRS-1,
//! REM-6 and REM-14.

use chrono::{DateTime, Duration, FixedOffset, NaiveDate, NaiveDateTime, Offset, TimeZone};
use chrono_tz::Tz;

use super::{Reminder, Routine, SetBy, UntilDone};
use crate::domain::frontmatter::{Fields, line_of, split};
use crate::domain::job_options::{BgSession, JobKind, OPTION_TEXT_KEYS, RunMode, RunOptions};

/// Frontmatter keys (kebab-case) of the files themselves whose values are read as text; the
/// run options add theirs ([`OPTION_TEXT_KEYS`]).
const FILE_TEXT_KEYS: &[&str] = &[
    "id",
    "cron",
    "run-at",
    "description",
    "chain-parent",
    "set-by",
    "nag-every",
];

/// The frontmatter fields, the body, and the validated `id`.
fn open(text: &str) -> Result<(Fields, String, &str), String> {
    let (yaml, body) = split(text)?;
    let mut text_keys = FILE_TEXT_KEYS.to_vec();
    text_keys.extend_from_slice(OPTION_TEXT_KEYS);
    let fields = Fields::parse_at(yaml, &text_keys, line_of(text, yaml))?;
    let id = fields.required_text("id")?;
    if id.trim().is_empty() {
        return Err("\"id\" must not be empty".to_owned());
    }
    if id.chars().any(char::is_control) {
        return Err("\"id\" must not contain line breaks or control characters".to_owned());
    }
    Ok((fields, id, body))
}

fn body_text(body: &str) -> Result<String, String> {
    if body.is_empty() {
        Err("the body (the prompt after the closing ---) is empty".to_owned())
    } else {
        Ok(body.to_owned())
    }
}

/// Parses a routine file's text (E.1). The error is the reason the file was skipped (RTN-6).
/// Background-only options on a foreground routine are ignored (a foreground `isolated: true`
/// reads as [`RunMode::Foreground`]).
pub fn parse_routine(text: &str) -> Result<Routine, String> {
    let (fields, id, body) = open(text)?;
    let cron = fields.required_text("cron")?;
    if cron.split_whitespace().count() != 5 {
        return Err("cron must have exactly 5 fields (minute hour day month weekday)".to_owned());
    }
    let description = fields.text("description")?.unwrap_or_default();
    let run = RunMode::read(&fields, JobKind::Routine)?;
    let options = RunOptions::read(&fields)?;
    let until_done = UntilDone::read(&fields)?;
    if run == RunMode::Background(BgSession::Persistent)
        && !id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    {
        // The id names the session file (PRS-1).
        return Err(
            "session: persistent needs an id of only ASCII letters, digits, '-' or '_'".to_owned(),
        );
    }
    let message = body_text(body)?;
    Ok(Routine {
        id,
        cron,
        description,
        run,
        options,
        until_done,
        message,
    })
}

/// Parses a reminder file's text (E.2). A `run-at` without an offset is read in `tz`.
pub fn parse_reminder(text: &str, tz: Tz) -> Result<Reminder, String> {
    let (fields, id, body) = open(text)?;
    let run_at_text = fields.required_text("run-at")?;
    let run_at = parse_run_at(&run_at_text, tz)
        .ok_or_else(|| format!("run-at is not an ISO-8601 datetime: {run_at_text:?}"))?;
    let description = fields.text("description")?.unwrap_or_default();
    let run = RunMode::read(&fields, JobKind::Reminder)?;
    let chain_depth = fields.count("chain-depth")?;
    let max_chain = fields.count("max-chain")?;
    let chain_parent = fields.text("chain-parent")?;
    let set_by = SetBy::read(&fields)?;
    let options = RunOptions::read(&fields)?;
    let until_done = UntilDone::read(&fields)?;
    if chain_depth > max_chain {
        return Err(format!(
            "chain-depth ({chain_depth}) is greater than max-chain ({max_chain})"
        ));
    }
    let message = body_text(body)?;
    Ok(Reminder {
        id,
        run_at,
        description,
        chain_depth,
        max_chain,
        chain_parent,
        set_by,
        run,
        options,
        until_done,
        message,
    })
}

/// Formats with an explicit offset (`T` or space between date and time).
const ZONED: &[&str] = &[
    "%Y-%m-%dT%H:%M:%S%.f%#z",
    "%Y-%m-%d %H:%M:%S%.f%#z",
    "%Y-%m-%dT%H:%M%#z",
    "%Y-%m-%d %H:%M%#z",
];

/// Formats without an offset, read in the configured zone.
const NAIVE: &[&str] = &[
    "%Y-%m-%dT%H:%M:%S%.f",
    "%Y-%m-%d %H:%M:%S%.f",
    "%Y-%m-%dT%H:%M",
    "%Y-%m-%d %H:%M",
];

/// Reads an ISO-8601 datetime: RFC 3339 (`Z` or `±HH:MM`, optional fraction), the space
/// separated form `PyYAML` produced, or a naive datetime or date interpreted in `tz`.
pub fn parse_run_at(text: &str, tz: Tz) -> Option<DateTime<FixedOffset>> {
    let text = text.trim();
    if let Ok(at) = DateTime::parse_from_rfc3339(text) {
        return Some(at);
    }
    if let Some(at) = ZONED
        .iter()
        .find_map(|format| DateTime::parse_from_str(text, format).ok())
    {
        return Some(at);
    }
    let naive = NAIVE
        .iter()
        .find_map(|format| NaiveDateTime::parse_from_str(text, format).ok())
        .or_else(|| {
            NaiveDate::parse_from_str(text, "%Y-%m-%d")
                .ok()
                .and_then(|date| date.and_hms_opt(0, 0, 0))
        })?;
    Some(localize(naive, tz))
}

/// A wall-clock time in `tz`. Ambiguous times (DST fall-back) take the earlier instant;
/// times in a spring-forward gap keep the offset in force before the gap, as Python does.
fn localize(naive: NaiveDateTime, tz: Tz) -> DateTime<FixedOffset> {
    if let Some(at) = tz.from_local_datetime(&naive).earliest() {
        return at.fixed_offset();
    }
    let offset = naive
        .checked_sub_signed(Duration::hours(3))
        .and_then(|before| tz.from_local_datetime(&before).earliest())
        .map_or_else(|| chrono::Utc.fix(), |at| at.offset().fix());
    let utc = naive
        .checked_sub_signed(Duration::seconds(i64::from(offset.local_minus_utc())))
        .unwrap_or(naive);
    tz.from_utc_datetime(&utc).fixed_offset()
}
