//! Cron schedules evaluated in the owner's timezone (RTN-2, E.1).
//!
//! A [`CronSchedule`] is a standard 5-field expression `minute hour day-of-month month weekday`
//! (lists `9,13`, ranges `1-5`, steps `*/4`, `9-17/2`, `mon-fri/2`, month and weekday names,
//! weekday `0` and `7` both Sunday). Parsing and field matching are done by `croner`; the fire
//! times are computed here, so the scheduler loop never depends on a library's timezone
//! handling (tokio-cron-scheduler issue #107 runs jobs an hour off after DST changes).
//!
//! # How fire times are computed
//!
//! croner enumerates matching *wall-clock* times in naive local time (evaluated against UTC, which
//! has no DST, so croner's own DST heuristics never apply). Each wall-clock candidate is then
//! mapped to real instants in the schedule's timezone by the rules below, and the results are
//! sorted and de-duplicated by instant. All maths are stateless: the next fire is always
//! recomputed from "now", so a fire can never be repeated at the same instant.
//!
//! # DST rules
//!
//! A schedule is *fixed-hour* when its hour field names hours (`9`, `1,2`, `9-17/2`) and
//! *repeating* when the hour field starts with `*` (`*`, `*/4`).
//!
//! - **Spring forward (gap)**: a fixed-hour wall-clock time that does not exist that day fires
//!   once, at the first instant after the gap (`30 2 * * *` on 2026-03-08 in
//!   `America/Los_Angeles` fires at 03:00 PDT). Several skipped times collapse into that single
//!   instant (`*/15 2 * * *` fires once at 03:00), and a skipped time that lands on a real fire
//!   (`0 2,3 * * *`) fires once. For repeating schedules the nonexistent times are dropped: an
//!   hourly `5 * * * *` fires 01:05 PST then 03:05 PDT, one real hour apart.
//! - **Fall back (overlap)**: a fixed-hour wall-clock time that occurs twice fires only at its
//!   first occurrence (`30 1 * * *` on 2026-11-01 fires at 01:30 PDT, not again at 01:30 PST).
//!   Repeating schedules fire at both occurrences, which are distinct instants an hour apart
//!   (`0 * * * *` fires at 01:00 PDT and again at 01:00 PST).
//! - Times outside a transition keep their wall-clock meaning: `0 9 * * *` is 09:00 PDT in
//!   summer and 09:00 PST in winter.
//!
//! # Day-of-month and weekday
//!
//! Vixie semantics: if either field is `*` only the other one restricts the day; if both are
//! restricted a day matches when *either* matches (`0 9 1 * mon` fires on the 1st and on every
//! Monday). As in Vixie cron, a field starting with `*` (such as `*/2`) counts as unrestricted
//! for this purpose, so `0 9 */2 * mon` fires on Mondays that are odd days of the month.
//!
//! # Extensions
//!
//! croner's extensions are accepted as croner defines them: `?` (same as `*` in day fields),
//! `L` (last day of the month, or last weekday with `5#L`/`5L`), `#` (nth weekday, `5#2`), `W`
//! (closest weekday, `15W`) and a `+` prefix on the weekday field (day-of-month AND weekday).
//! Nicknames (`@daily`), seconds and years are rejected: the expression must have exactly five
//! fields. An expression that can never fire (`0 0 31 2 *`) is rejected as invalid.

use std::fmt;

use chrono::{DateTime, Duration, LocalResult, NaiveDate, NaiveDateTime, TimeZone, Timelike, Utc};
use chrono_tz::Tz;
use croner::Cron;

/// How far a timezone's UTC offset can move at one transition, with room to spare (real zones
/// move by at most two hours, and transitions are months apart).
const MAX_OFFSET_SHIFT: Duration = Duration::hours(3);

/// Errors from parsing a cron expression.
#[derive(Debug, thiserror::Error)]
pub enum CronError {
    /// The expression does not have exactly five whitespace-separated fields.
    #[error("cron must have exactly 5 fields (minute hour day month weekday)")]
    FieldCount {
        /// How many fields the expression had.
        found: usize,
    },
    /// The expression has five fields but croner rejects it, or it can never fire.
    #[error("invalid cron expression '{expr}': {reason}")]
    Invalid {
        /// The (whitespace-normalized) expression.
        expr: String,
        /// Why it is invalid, from croner where it applies.
        reason: String,
    },
}

/// A parsed 5-field cron expression whose fire times are computed in a caller-given timezone
/// with wall-clock semantics (see the module docs for the DST rules).
#[derive(Debug, Clone)]
pub struct CronSchedule {
    /// The expression with whitespace collapsed to single spaces.
    source: String,
    /// croner's parse of the expression (weekday field possibly prefixed with `+`, see `parse`).
    cron: Cron,
    /// `true` when the hour field names hours (fixed-hour); `false` when it starts with `*`.
    fixed_hour: bool,
}

impl PartialEq for CronSchedule {
    fn eq(&self, other: &Self) -> bool {
        self.source == other.source
    }
}

impl Eq for CronSchedule {}

impl fmt::Display for CronSchedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

impl CronSchedule {
    /// Parses a standard 5-field expression. Surrounding whitespace is trimmed and runs of
    /// whitespace between fields are collapsed. Fails with [`CronError::FieldCount`] for any
    /// other number of fields (including 6/7-field forms with seconds or years, and `@daily`),
    /// and with [`CronError::Invalid`] when croner rejects a field or the schedule never fires.
    pub fn parse(expr: &str) -> Result<Self, CronError> {
        let fields: Vec<&str> = expr.split_whitespace().collect();
        let [minute, hour, dom, month, dow] = fields[..] else {
            return Err(CronError::FieldCount {
                found: fields.len(),
            });
        };
        let source = fields.join(" ");
        let invalid = |reason: String| CronError::Invalid {
            expr: source.clone(),
            reason,
        };

        // Vixie treats a day field that starts with `*` (e.g. `*/2`) as unrestricted, which
        // makes the two day fields combine with AND; croner only does that for a bare `*`.
        let loosely_star = |f: &str| f.starts_with('*') || f.starts_with('?');
        let is_star = |f: &str| f == "*" || f == "?";
        let force_and = !is_star(dom)
            && !is_star(dow)
            && !dow.starts_with('+')
            && (loosely_star(dom) || loosely_star(dow));
        let croner_dow = if force_and {
            format!("+{dow}")
        } else {
            dow.to_owned()
        };
        let pattern = format!("{minute} {hour} {dom} {month} {croner_dow}");
        let cron: Cron = pattern.parse().map_err(|e| invalid(format!("{e}")))?;

        let schedule = Self {
            fixed_hour: !hour.starts_with('*'),
            source: source.clone(),
            cron,
        };
        let epoch = NaiveDate::from_ymd_opt(2000, 1, 1).and_then(|d| d.and_hms_opt(0, 0, 0));
        if epoch.and_then(|e| schedule.naive_next(e)).is_none() {
            return Err(invalid(
                "the schedule never fires (no date matches)".to_owned(),
            ));
        }
        Ok(schedule)
    }

    /// The expression, whitespace-normalized (fields separated by single spaces).
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// The first fire strictly after `after`, in `after`'s timezone (wall-clock semantics; see
    /// the module docs for DST). `None` only if no fire exists before croner's year limit.
    pub fn next_after(&self, after: DateTime<Tz>) -> Option<DateTime<Tz>> {
        self.collect(after, None, 1).into_iter().next()
    }

    /// The latest fire in `[at - window, at]` (both ends inclusive), in `at`'s timezone, or
    /// `None` if there is none (or `window` is negative). Used for "fired in the last 15
    /// minutes" checks and missed fires.
    pub fn last_at_or_before(&self, at: DateTime<Tz>, window: Duration) -> Option<DateTime<Tz>> {
        if window < Duration::zero() {
            return None;
        }
        let from = at
            .checked_sub_signed(window)?
            .checked_sub_signed(Duration::nanoseconds(1))?;
        self.collect(from, Some(at), usize::MAX).pop()
    }

    /// Every fire in `(from, to]`, ascending, in `from`'s timezone, capped at the first `limit`
    /// entries (missed-fire reporting).
    pub fn fires_between(
        &self,
        from: DateTime<Tz>,
        to: DateTime<Tz>,
        limit: usize,
    ) -> Vec<DateTime<Tz>> {
        if to <= from {
            return Vec::new();
        }
        self.collect(from, Some(to.with_timezone(&from.timezone())), limit)
    }

    /// The first `limit` fires in `(after, to]` (unbounded above when `to` is `None`), sorted.
    ///
    /// Wall-clock candidates come in naive order, which differs from instant order only around
    /// a fall-back transition. The scan starts at the earliest wall-clock time reached at or
    /// after `after` and stops past the latest one reached at or before `to`, or at or before
    /// the largest fire collected when the count first reached `limit` (every later candidate
    /// then fires after it).
    fn collect(
        &self,
        after: DateTime<Tz>,
        to: Option<DateTime<Tz>>,
        limit: usize,
    ) -> Vec<DateTime<Tz>> {
        let mut found = std::collections::BTreeSet::new();
        if limit == 0 {
            return Vec::new();
        }
        let tz = after.timezone();
        // One second earlier so a candidate equal to `after`'s own wall-clock time is seen
        // (its second occurrence in an overlap can be later than `after`).
        let mut cursor = lowest_local_from(after)
            .with_nanosecond(0)
            .and_then(|n| n.checked_sub_signed(Duration::seconds(1)));
        let mut stop_after = to.map(highest_local_until);
        let mut saturated = false;
        while let Some(candidate) = cursor.and_then(|n| self.naive_next(n)) {
            if cursor.is_some_and(|prev| candidate <= prev) {
                break; // croner must make progress; never loop on the same time
            }
            cursor = Some(candidate);
            if stop_after.is_some_and(|e| candidate > e) {
                break;
            }
            for instant in self.instants(candidate, tz).into_iter().flatten() {
                if instant > after && to.is_none_or(|t| instant <= t) {
                    found.insert(instant);
                }
            }
            if !saturated && found.len() >= limit {
                saturated = true;
                let bound = found.last().map(|v| highest_local_until(*v));
                stop_after = match (stop_after, bound) {
                    (Some(e), Some(b)) => Some(e.min(b)),
                    (e, b) => b.or(e),
                };
            }
        }
        found.into_iter().take(limit).collect()
    }

    /// The next matching wall-clock time strictly after `naive` (whole seconds).
    fn naive_next(&self, naive: NaiveDateTime) -> Option<NaiveDateTime> {
        self.cron
            .find_next_occurrence(&Utc.from_utc_datetime(&naive), false)
            .ok()
            .map(|dt| dt.naive_utc())
    }

    /// The real instants a matching wall-clock time fires at, per the DST rules.
    fn instants(&self, naive: NaiveDateTime, tz: Tz) -> [Option<DateTime<Tz>>; 2] {
        match tz.from_local_datetime(&naive) {
            LocalResult::Single(dt) => [Some(dt), None],
            LocalResult::Ambiguous(a, b) => {
                let (first, second) = if a <= b { (a, b) } else { (b, a) };
                if self.fixed_hour {
                    [Some(first), None]
                } else {
                    [Some(first), Some(second)]
                }
            }
            LocalResult::None if self.fixed_hour => [gap_end(naive, tz), None],
            LocalResult::None => [None, None],
        }
    }
}

/// The earliest wall-clock time shown at or after `t`: `t`'s own, unless the clock falls back
/// within [`MAX_OFFSET_SHIFT`] after it.
fn lowest_local_from(t: DateTime<Tz>) -> NaiveDateTime {
    let own = t.naive_local();
    t.checked_add_signed(MAX_OFFSET_SHIFT)
        .and_then(|later| later.naive_local().checked_sub_signed(MAX_OFFSET_SHIFT))
        .map_or(own, |shifted| own.min(shifted))
}

/// The latest wall-clock time shown at or before `t`: `t`'s own, unless the clock fell back
/// within [`MAX_OFFSET_SHIFT`] before it.
fn highest_local_until(t: DateTime<Tz>) -> NaiveDateTime {
    let own = t.naive_local();
    t.checked_sub_signed(MAX_OFFSET_SHIFT)
        .and_then(|earlier| earlier.naive_local().checked_add_signed(MAX_OFFSET_SHIFT))
        .map_or(own, |shifted| own.max(shifted))
}

/// The first instant after the DST gap containing the nonexistent wall-clock time `naive`
/// (`domain::wall_clock::gap_end`), in `tz`.
fn gap_end(naive: NaiveDateTime, tz: Tz) -> Option<DateTime<Tz>> {
    crate::domain::wall_clock::gap_end(naive, tz).map(|utc| utc.with_timezone(&tz))
}

#[cfg(test)]
#[path = "cron_tests.rs"]
mod tests;
