//! A wall-clock time in the owner's zone as one instant, by the daylight-saving rules that quiet
//! hours and snoozes share (issue 28): a time the clocks skip (spring forward) is the first
//! instant after the gap, and a time the clocks show twice (fall back) is the earlier one.

use chrono::{DateTime, LocalResult, NaiveDate, NaiveDateTime, NaiveTime, TimeZone, Utc};
use chrono_tz::Tz;

/// The instant the clocks in `tz` show `time` on `date`: the earlier of two when the clocks fall
/// back, the first instant after the gap when they skip it. `None` only at the ends of chrono's
/// range.
pub fn instant(date: NaiveDate, time: NaiveTime, tz: Tz) -> Option<DateTime<Utc>> {
    let naive = date.and_time(time);
    match tz.from_local_datetime(&naive) {
        LocalResult::Single(at) => Some(at.with_timezone(&Utc)),
        LocalResult::Ambiguous(first, second) => Some(first.min(second).with_timezone(&Utc)),
        LocalResult::None => gap_end(naive, tz),
    }
}

/// `at` on the owner's 24-hour clock in `tz`: `09:40`.
pub fn hh_mm(at: DateTime<Utc>, tz: Tz) -> String {
    at.with_timezone(&tz).format("%H:%M").to_string()
}

/// The local date of `at` in `tz`.
pub fn local_date(at: DateTime<Utc>, tz: Tz) -> NaiveDate {
    at.with_timezone(&tz).date_naive()
}

/// The first instant after the gap that swallows `naive`: the earliest second whose wall clock
/// reads later than `naive`, found by bisection over a span wide enough for any UTC offset.
pub fn gap_end(naive: NaiveDateTime, tz: Tz) -> Option<DateTime<Utc>> {
    let reads_later = |seconds: i64| {
        DateTime::from_timestamp(seconds, 0).map(|at| at.with_timezone(&tz).naive_local() > naive)
    };
    let base = naive.and_utc().timestamp();
    let (mut before, mut after) = (base - 15 * 3600, base + 15 * 3600);
    if reads_later(before)? || !reads_later(after)? {
        return None;
    }
    while after - before > 1 {
        let middle = before + (after - before) / 2;
        if reads_later(middle)? {
            after = middle;
        } else {
            before = middle;
        }
    }
    DateTime::from_timestamp(after, 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utc(text: &str) -> DateTime<Utc> {
        text.parse().unwrap()
    }

    fn day(y: i32, m: u32, d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, d).unwrap()
    }

    fn hm(h: u32, m: u32) -> NaiveTime {
        NaiveTime::from_hms_opt(h, m, 0).unwrap()
    }

    #[test]
    fn an_ordinary_time_is_its_one_instant() {
        let at = instant(day(2026, 6, 1), hm(9, 0), chrono_tz::Europe::Berlin);
        assert_eq!(at, Some(utc("2026-06-01T07:00:00Z")));
    }

    #[test]
    fn a_skipped_time_is_the_first_instant_after_the_gap() {
        // Berlin skips 02:00-03:00 on 29 March 2026; 03:00 CEST is 01:00 UTC.
        let berlin = chrono_tz::Europe::Berlin;
        for time in [hm(2, 0), hm(2, 30), hm(2, 59)] {
            let at = instant(day(2026, 3, 29), time, berlin);
            assert_eq!(at, Some(utc("2026-03-29T01:00:00Z")), "{time}");
        }
        // New York skips 02:00-03:00 on 8 March 2026; 03:00 EDT is 07:00 UTC.
        let at = instant(day(2026, 3, 8), hm(2, 15), chrono_tz::America::New_York);
        assert_eq!(at, Some(utc("2026-03-08T07:00:00Z")));
    }

    #[test]
    fn a_repeated_time_is_its_earlier_instant() {
        // Berlin shows 02:00-03:00 twice on 25 October 2026: first CEST (UTC+2).
        let at = instant(day(2026, 10, 25), hm(2, 30), chrono_tz::Europe::Berlin);
        assert_eq!(at, Some(utc("2026-10-25T00:30:00Z")));
        // New York shows 01:00-02:00 twice on 1 November 2026: first EDT (UTC-4).
        let at = instant(day(2026, 11, 1), hm(1, 30), chrono_tz::America::New_York);
        assert_eq!(at, Some(utc("2026-11-01T05:30:00Z")));
    }
}
