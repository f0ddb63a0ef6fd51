//! Quiet hours that hold pings (issue 28): a daily window in the owner's zone, as they type it
//! in `/quiet 22:00-08:00`, and a "quiet for 2 h now" override, with the arithmetic that says
//! whether the owner is quiet at an instant and when that ends.
//!
//! A window is a span of wall-clock time each day, start included, end not; it crosses
//! midnight when its end is earlier than its start. On the days the clocks change, its start
//! and end become instants by the rules of [`wall_clock::instant`]: a skipped time is the first
//! instant after the gap, a repeated one its earlier instant. So a window can be an hour
//! longer or shorter on those nights, and one that lies wholly in a gap is empty that day.

use std::{fmt, str::FromStr};

use chrono::{DateTime, NaiveDate, NaiveTime, TimeDelta, Timelike, Utc};
use chrono_tz::Tz;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::wall_clock;

/// A daily quiet window in the owner's local time, e.g. `22:00-08:00`. Start and end are whole
/// minutes and never equal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct QuietWindow {
    start: NaiveTime,
    end: NaiveTime,
}

/// Why the owner's text is not a quiet window. The texts are shown to the owner as they are.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QuietWindowError {
    /// Not two times joined by a dash.
    #[error("use a start and end time like 22:00-08:00")]
    NotARange,
    /// One side is not a time of day.
    #[error("'{0}' isn't a time of day; use 22:00, 7:30, 22 or 10pm, like 22:00-08:00")]
    NotATime(String),
    /// One side says am or pm and the other is a bare hour that could be either.
    #[error("say am or pm on both times, like 10pm-7am")]
    HalfAmPm,
    /// The start and end are the same minute: no quiet at all, or quiet with no end.
    #[error(
        "the start and end are both {0}, so it's unclear when quiet hours are; pick two different times, like 22:00-08:00"
    )]
    SameStartAndEnd(String),
}

impl QuietWindow {
    /// A window from `start` to `end`, each cut to the whole minute; refused when they are the
    /// same minute, since that could mean no quiet hours or quiet all day.
    pub fn new(start: NaiveTime, end: NaiveTime) -> Result<Self, QuietWindowError> {
        let minute = |time: NaiveTime| {
            NaiveTime::from_hms_opt(time.hour(), time.minute(), 0).unwrap_or(time)
        };
        let (start, end) = (minute(start), minute(end));
        if start == end {
            return Err(QuietWindowError::SameStartAndEnd(
                start.format("%H:%M").to_string(),
            ));
        }
        Ok(Self { start, end })
    }

    /// When quiet begins each day, local time.
    pub fn start(&self) -> NaiveTime {
        self.start
    }

    /// When quiet ends each day, local time (on the next day when the window crosses midnight).
    pub fn end(&self) -> NaiveTime {
        self.end
    }

    /// Whether the window runs past midnight (`22:00-08:00`).
    pub fn crosses_midnight(&self) -> bool {
        self.end < self.start
    }

    /// Whether `at` is inside the window: at its start counts as inside, at its end as outside.
    pub fn contains(&self, at: DateTime<Utc>, tz: Tz) -> bool {
        self.spans_from(at, tz)
            .take_while(|(start, _)| *start <= at)
            .any(|(start, end)| start <= at && at < end)
    }

    /// When the quiet that holds `at` ends, or `None` when `at` is outside the window. Spans
    /// of the window that touch (possible only across a daylight-saving gap) count as one.
    pub fn ends_after(&self, at: DateTime<Utc>, tz: Tz) -> Option<DateTime<Utc>> {
        let mut ends = None;
        for (start, end) in self.spans_from(at, tz) {
            match ends {
                None if start > at => return None,
                None if at < end => ends = Some(end),
                None => {}
                Some(current) if start <= current => ends = Some(end.max(current)),
                Some(_) => break,
            }
        }
        ends
    }

    /// The next time the window opens strictly after `at` (tomorrow's start when `at` is
    /// exactly today's). A day whose window the clocks skip entirely is passed over. At the
    /// far end of chrono's range, where no later day exists, `DateTime::<Utc>::MAX_UTC`.
    pub fn next_start_after(&self, at: DateTime<Utc>, tz: Tz) -> DateTime<Utc> {
        self.spans_from(at, tz)
            .map(|(start, _)| start)
            .find(|start| *start > at)
            .unwrap_or(DateTime::<Utc>::MAX_UTC)
    }

    /// The window's non-empty spans as instants, in order, from those that open two local
    /// days before `at` (which is enough to find any that holds `at`) onwards.
    fn spans_from(
        &self,
        at: DateTime<Utc>,
        tz: Tz,
    ) -> impl Iterator<Item = (DateTime<Utc>, DateTime<Utc>)> + '_ {
        let today = wall_clock::local_date(at, tz);
        let first = today
            .pred_opt()
            .and_then(|day| day.pred_opt())
            .unwrap_or(today);
        std::iter::successors(Some(first), NaiveDate::succ_opt)
            .filter_map(move |day| self.span_opening_on(day, tz))
    }

    /// The span that opens on local `day`, or `None` when the clocks skip all of it.
    fn span_opening_on(&self, day: NaiveDate, tz: Tz) -> Option<(DateTime<Utc>, DateTime<Utc>)> {
        let end_day = if self.crosses_midnight() {
            day.succ_opt()?
        } else {
            day
        };
        let start = wall_clock::instant(day, self.start, tz)?;
        let end = wall_clock::instant(end_day, self.end, tz)?;
        (start < end).then_some((start, end))
    }
}

/// Shown to the owner: `22:00–08:00`, with an en dash.
impl fmt::Display for QuietWindow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}–{}",
            self.start.format("%H:%M"),
            self.end.format("%H:%M")
        )
    }
}

/// Reads what the owner types: `22:00-08:00`, `7:30-9:00`, `22-8` (whole hours), spaces
/// around the dash (a hyphen, en or em dash), `10pm-7am`, `10:30PM-7am`, `24:00` for midnight.
impl FromStr for QuietWindow {
    type Err = QuietWindowError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let sides: Vec<&str> = text.split(['-', '–', '—']).map(str::trim).collect();
        let [start, end] = sides.as_slice() else {
            return Err(QuietWindowError::NotARange);
        };
        if start.is_empty() || end.is_empty() {
            return Err(QuietWindowError::NotARange);
        }
        let (start, end) = (Clock::read(start)?, Clock::read(end)?);
        if start.could_be_either_half(&end) || end.could_be_either_half(&start) {
            return Err(QuietWindowError::HalfAmPm);
        }
        Self::new(start.time, end.time)
    }
}

/// Stored as the string the owner would type: `"22:00-08:00"`.
impl Serialize for QuietWindow {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&format_args!(
            "{}-{}",
            self.start.format("%H:%M"),
            self.end.format("%H:%M")
        ))
    }
}

/// Read from any form [`FromStr`] takes; a bad one fails with its friendly text.
impl<'de> Deserialize<'de> for QuietWindow {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// One side of a typed window.
struct Clock {
    time: NaiveTime,
    /// Whether it said am or pm.
    half: bool,
    /// The hour as typed, for telling whether a bare hour could be am or pm.
    typed_hour: u32,
}

impl Clock {
    /// `H`, `HH`, `H:MM`, `HH:MM`, `24:00`, each with an optional `am`/`pm` (any case, a space
    /// before it allowed; the hour then 1 to 12).
    fn read(text: &str) -> Result<Self, QuietWindowError> {
        let not_a_time = || QuietWindowError::NotATime(text.to_owned());
        let lower = text.to_ascii_lowercase();
        let (digits, pm) = match (lower.strip_suffix("am"), lower.strip_suffix("pm")) {
            (Some(rest), _) => (rest.trim_end(), Some(false)),
            (_, Some(rest)) => (rest.trim_end(), Some(true)),
            _ => (lower.as_str(), None),
        };
        let (hour, minute) = digits.split_once(':').unwrap_or((digits, "00"));
        let number = |part: &str, widths: &[usize]| {
            (widths.contains(&part.len()) && part.bytes().all(|b| b.is_ascii_digit()))
                .then(|| part.parse::<u32>().ok())
                .flatten()
        };
        let typed_hour = number(hour, &[1, 2]).ok_or_else(not_a_time)?;
        let minute = number(minute, &[2])
            .filter(|m| *m < 60)
            .ok_or_else(not_a_time)?;
        let hour = match pm {
            Some(_) if !(1..=12).contains(&typed_hour) => return Err(not_a_time()),
            Some(pm) => typed_hour % 12 + if pm { 12 } else { 0 },
            None if typed_hour == 24 && minute == 0 => 0,
            None => typed_hour,
        };
        let time = NaiveTime::from_hms_opt(hour, minute, 0).ok_or_else(not_a_time)?;
        Ok(Self {
            time,
            half: pm.is_some(),
            typed_hour,
        })
    }

    /// Whether this is a bare hour from 1 to 12 beside a side that said am or pm (`10-7am`),
    /// where guessing could mean twelve hours of quiet the owner didn't ask for.
    fn could_be_either_half(&self, other: &Self) -> bool {
        !self.half && other.half && (1..=12).contains(&self.typed_hour)
    }
}

/// A "quiet for 2 h now" override: the owner is quiet until this instant, whatever the window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct QuietUntil(pub DateTime<Utc>);

impl QuietUntil {
    /// Quiet from `at` for `length` (the end of chrono's range if that is past it).
    pub fn starting(at: DateTime<Utc>, length: std::time::Duration) -> Self {
        let end = TimeDelta::from_std(length)
            .ok()
            .and_then(|length| at.checked_add_signed(length))
            .unwrap_or(DateTime::<Utc>::MAX_UTC);
        Self(end)
    }

    /// Whether the override still holds at `at` (its end is outside it).
    pub fn contains(self, at: DateTime<Utc>) -> bool {
        at < self.0
    }
}

/// When the owner's quiet that holds `at` ends, from the daily `window` and a `manual` override
/// (its end instant), or `None` when neither holds `at`.
///
/// Quiet that runs on without a break counts as one: when both hold, the later end; when the
/// override ends inside the window (or exactly as it opens), the window's end; when the window
/// ends inside the override, the override's end.
pub fn quiet_until(
    window: Option<&QuietWindow>,
    manual: Option<DateTime<Utc>>,
    at: DateTime<Utc>,
    tz: Tz,
) -> Option<DateTime<Utc>> {
    quiet_until_resuming(window, None, manual, at, tz)
}

/// [`quiet_until`] when the owner ended the window's span under way (`/quiet end`, QUI-6): the
/// window holds no instant before `window_resumes` (that span's end), so neither alone nor
/// as the quiet a "quiet for …" runs into.
pub fn quiet_until_resuming(
    window: Option<&QuietWindow>,
    window_resumes: Option<DateTime<Utc>>,
    manual: Option<DateTime<Utc>>,
    at: DateTime<Utc>,
    tz: Tz,
) -> Option<DateTime<Utc>> {
    let window_end = |at: DateTime<Utc>| {
        window
            .filter(|_| window_resumes.is_none_or(|resumes| at >= resumes))
            .and_then(|window| window.ends_after(at, tz))
    };
    let from_manual = manual.filter(|until| QuietUntil(*until).contains(at));
    let end = window_end(at).max(from_manual)?;
    Some(window_end(end).unwrap_or(end))
}

#[cfg(test)]
#[path = "quiet_hours_tests.rs"]
mod tests;
