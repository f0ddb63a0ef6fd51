//! Reminders that come back until answered (issue 28): how long to wait before each nag, when
//! to stop, the snooze buttons' times, and the one-line outcome told in the main conversation.
//! Pure: the caller passes the clock and the owner's zone, and holds pings through quiet hours.

use std::{fmt, time::Duration};

use chrono::{DateTime, NaiveTime, TimeDelta, Timelike, Utc};
use chrono_tz::Tz;

use super::wall_clock;

/// No reminder nags more than this many times, whatever its `max_nags`: with the default gaps
/// twelve nags take about 18 hours, and a reminder left unanswered through a whole day is noise
/// rather than help. It isn't lost when the nagging stops: it stays in the owner's nag list.
pub const NAG_CEILING: u32 = 12;

/// The shortest gap a reminder may ask for between nags.
pub const MIN_GAP: Duration = Duration::from_secs(60);

/// The longest gap a reminder may ask for between nags.
pub const MAX_GAP: Duration = Duration::from_secs(24 * 3600);

/// How a reminder nags until answered: the wait before the first nag, growing by `factor` each
/// time up to `cap`, for at most `max_nags` nags (and never more than [`NAG_CEILING`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct NagPolicy {
    /// The wait from the reminder to the first nag; a reminder's `nag-every` sets it.
    pub first_gap: Duration,
    /// How much each gap grows over the one before; 0 and 1 keep the gap fixed.
    pub factor: u32,
    /// The longest wait between nags; a `first_gap` longer than it wins.
    pub cap: Duration,
    /// How many nags at most; `None` nags until answered, up to [`NAG_CEILING`].
    pub max_nags: Option<u32>,
}

impl Default for NagPolicy {
    /// 10 minutes, then 20, 40, 80, and every 2 hours after that, until answered.
    fn default() -> Self {
        Self {
            first_gap: Duration::from_secs(10 * 60),
            factor: 2,
            cap: Duration::from_secs(2 * 3600),
            max_nags: None,
        }
    }
}

impl NagPolicy {
    /// How many nags this policy sends at most: `max_nags`, held to [`NAG_CEILING`].
    pub fn limit(&self) -> u32 {
        self.max_nags
            .map_or(NAG_CEILING, |max| max.min(NAG_CEILING))
    }

    /// The wait before the `nth` nag (counted from 1; 0 reads as 1), after the reminder or the
    /// nag before it. The defaults give 10, 20, 40, 80, 120, 120, … minutes. Never under
    /// [`MIN_GAP`], so a policy built by hand can't nag in a tight loop.
    pub fn gap_before(&self, nth: u32) -> Duration {
        let first = self.first_gap.max(MIN_GAP);
        let cap = self.cap.max(first);
        if self.factor <= 1 {
            return first;
        }
        let mut gap = first;
        for _ in 1..nth {
            match gap.checked_mul(self.factor) {
                Some(next) if next < cap => gap = next,
                _ => return cap,
            }
        }
        gap
    }

    /// When the next nag is due, `nags_sent` nags after the reminder, the last ping (the
    /// reminder or the latest nag) at `last_ping`; `None` once the limit is reached. Quiet
    /// hours are the caller's to apply: a nag due in them waits for their end.
    pub fn next_after(&self, last_ping: DateTime<Utc>, nags_sent: u32) -> Option<DateTime<Utc>> {
        if nags_sent >= self.limit() {
            return None;
        }
        let gap = TimeDelta::from_std(self.gap_before(nags_sent + 1)).ok()?;
        last_ping.checked_add_signed(gap)
    }
}

/// Why a nag gap from frontmatter (`nag-every: 1h30m`) is refused. Shown to the owner.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GapError {
    /// Nothing given.
    #[error("give a gap like 10m, 1h or 1h30m")]
    Empty,
    /// Not minutes and hours.
    #[error("'{0}' isn't a gap; use minutes and hours like 10m, 90m or 1h30m")]
    NotAGap(String),
    /// A number without `m` or `h`.
    #[error("'{0}' needs a unit: 10m for minutes or 1h for hours")]
    NoUnit(String),
    /// Under a minute.
    #[error("'{0}' is too often; nag at most once a minute (1m or more)")]
    TooShort(String),
    /// Over a day.
    #[error("'{0}' is longer than a day; use 24h or less")]
    TooLong(String),
}

/// A gap between nags as a reminder's frontmatter gives it: `10m`, `90m`, `1h`, `1h30m`, also
/// `1h 30m`, `2 hours`, `45 min`; hours before minutes, each once. From 1 minute to 24 hours.
pub fn parse_gap(text: &str) -> Result<Duration, GapError> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(GapError::Empty);
    }
    let not_a_gap = || GapError::NotAGap(trimmed.to_owned());
    if trimmed.bytes().all(|b| b.is_ascii_digit()) {
        return Err(GapError::NoUnit(trimmed.to_owned()));
    }
    let lower = trimmed.to_ascii_lowercase();
    let mut rest = lower.as_str();
    let mut minutes: u64 = 0;
    let mut units_seen = 0;
    while !rest.is_empty() {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let (number, after) = rest.split_at(digits);
        let unit_len = after
            .trim_start()
            .bytes()
            .take_while(u8::is_ascii_alphabetic)
            .count();
        let after = after.trim_start();
        let (unit, after) = after.split_at(unit_len);
        let per_unit = match unit {
            "h" | "hr" | "hrs" | "hour" | "hours" if units_seen == 0 => 60,
            "m" | "min" | "mins" | "minute" | "minutes" if units_seen < 2 => 1,
            _ => return Err(not_a_gap()),
        };
        units_seen = if per_unit == 60 { 1 } else { 2 };
        let number: u64 = match number.parse() {
            Ok(number) => number,
            Err(_) if number.is_empty() => return Err(not_a_gap()),
            Err(_) => return Err(GapError::TooLong(trimmed.to_owned())),
        };
        minutes = number
            .checked_mul(per_unit)
            .and_then(|part| minutes.checked_add(part))
            .ok_or_else(|| GapError::TooLong(trimmed.to_owned()))?;
        rest = after.trim_start();
    }
    let gap = Duration::from_secs(minutes.saturating_mul(60));
    if gap < MIN_GAP {
        Err(GapError::TooShort(trimmed.to_owned()))
    } else if gap > MAX_GAP {
        Err(GapError::TooLong(trimmed.to_owned()))
    } else {
        Ok(gap)
    }
}

/// A gap as [`parse_gap`] reads it back: `15m`, `2h`, `1h30m` (whole minutes, rounded down;
/// never under `1m`). The form a reminder file writes for `nag-every` (NAG-1).
pub fn format_gap(gap: Duration) -> String {
    let minutes = (gap.as_secs() / 60).max(1);
    match (minutes / 60, minutes % 60) {
        (0, minutes) => format!("{minutes}m"),
        (hours, 0) => format!("{hours}h"),
        (hours, minutes) => format!("{hours}h{minutes}m"),
    }
}

/// The snooze buttons under a nag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Snooze {
    /// Ten minutes from now.
    TenMinutes,
    /// An hour from now.
    OneHour,
    /// 19:00 today, or an hour from now when that is under half an hour away or past.
    ThisEvening,
    /// 09:00 tomorrow, or 09:00 today when it is before 05:00 (the owner is up late).
    TomorrowMorning,
}

/// When "this evening" is, local time.
const EVENING: NaiveTime = NaiveTime::from_hms_opt(19, 0, 0).expect("19:00 is a time");

/// When "tomorrow morning" is, local time.
const MORNING: NaiveTime = NaiveTime::from_hms_opt(9, 0, 0).expect("09:00 is a time");

/// Before this local hour it is still "last night", so the coming 09:00 is "tomorrow morning".
const NIGHT_ENDS_HOUR: u32 = 5;

/// "This evening" must be at least this far off, or it becomes an hour from now.
const EVENING_LEAD: TimeDelta = TimeDelta::minutes(30);

impl Snooze {
    /// Every snooze, in the order the buttons show them.
    pub const ALL: [Self; 4] = [
        Self::TenMinutes,
        Self::OneHour,
        Self::ThisEvening,
        Self::TomorrowMorning,
    ];

    /// The button's text.
    pub fn label(self) -> &'static str {
        match self {
            Self::TenMinutes => "10 min",
            Self::OneHour => "1 h",
            Self::ThisEvening => "This evening",
            Self::TomorrowMorning => "Tomorrow morning",
        }
    }

    /// A short, stable name for the button's custom id; [`Snooze::from_id`] reads it back.
    pub fn id(self) -> &'static str {
        match self {
            Self::TenMinutes => "10m",
            Self::OneHour => "1h",
            Self::ThisEvening => "evening",
            Self::TomorrowMorning => "morning",
        }
    }

    /// The snooze an [`id`](Snooze::id) names.
    pub fn from_id(id: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|snooze| snooze.id() == id)
    }

    /// When the reminder comes back, pressed at `at` in the owner's zone `tz`. Local times
    /// follow the daylight-saving rules of [`wall_clock::instant`].
    ///
    /// This evening is 19:00 today when that is at least 30 minutes off, otherwise an hour
    /// from now (pressed at 18:45 or 22:00, the reminder returns at 19:45 or 23:00). Tomorrow
    /// morning is 09:00 on the next day, or 09:00 today when pressed before 05:00.
    pub fn until(self, at: DateTime<Utc>, tz: Tz) -> DateTime<Utc> {
        let later = |delta: TimeDelta| {
            at.checked_add_signed(delta)
                .unwrap_or(DateTime::<Utc>::MAX_UTC)
        };
        let in_an_hour = later(TimeDelta::hours(1));
        let today = wall_clock::local_date(at, tz);
        match self {
            Self::TenMinutes => later(TimeDelta::minutes(10)),
            Self::OneHour => in_an_hour,
            Self::ThisEvening => wall_clock::instant(today, EVENING, tz)
                .filter(|evening| *evening - at >= EVENING_LEAD)
                .unwrap_or(in_an_hour),
            Self::TomorrowMorning => {
                let up_late = at.with_timezone(&tz).hour() < NIGHT_ENDS_HOUR;
                let day = if up_late {
                    Some(today)
                } else {
                    today.succ_opt()
                };
                day.and_then(|day| wall_clock::instant(day, MORNING, tz))
                    .unwrap_or(in_an_hour)
            }
        }
    }
}

/// How a nagging reminder ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NagOutcome {
    /// The owner marked it done.
    Done,
    /// The owner let it go for today.
    NotToday,
    /// The owner snoozed it until this instant.
    Snoozed(DateTime<Utc>),
    /// It reached its limit of nags unanswered; it stays in the nag list.
    GaveUp,
    /// The owner dropped it from the nag list.
    Dropped,
}

impl NagOutcome {
    /// A one-line, guilt-free note for the main conversation: `meds: done at 9:40 after two
    /// nudges`, `meds: not today`, `meds: snoozed until 19:00`, `meds: no answer after twelve
    /// nudges; it's still in /nags`. `nags` is how many nags were sent; `at_local` is the
    /// owner's local clock time the outcome names: when it was done, or when a snooze ends.
    pub fn summary(&self, label: &str, nags: u32, at_local: impl fmt::Display) -> String {
        match self {
            Self::Done => match nags {
                0 => format!("{label}: done at {at_local}, right away"),
                1 => format!("{label}: done at {at_local}, nudged once"),
                _ => format!("{label}: done at {at_local} after {}", nudges(nags)),
            },
            Self::NotToday => format!("{label}: not today"),
            Self::Dropped => format!("{label}: dropped from the nag list"),
            Self::Snoozed(_) => format!("{label}: snoozed until {at_local}"),
            Self::GaveUp => match nags {
                0 => format!("{label}: no answer yet; it's still in /nags"),
                1 => format!("{label}: no answer, nudged once; it's still in /nags"),
                _ => format!(
                    "{label}: no answer after {}; it's still in /nags",
                    nudges(nags)
                ),
            },
        }
    }
}

/// `two nudges` … `twelve nudges`, then digits (`13 nudges`).
fn nudges(count: u32) -> String {
    const WORDS: [&str; 13] = [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
        "eleven", "twelve",
    ];
    let number = usize::try_from(count)
        .ok()
        .and_then(|index| WORDS.get(index))
        .map_or_else(|| count.to_string(), |word| (*word).to_owned());
    let plural = if count == 1 { "" } else { "s" };
    format!("{number} nudge{plural}")
}

#[cfg(test)]
#[path = "nag_tests.rs"]
mod tests;
