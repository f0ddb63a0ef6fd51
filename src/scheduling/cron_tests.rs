//! Paused-time tests for [`CronSchedule`]: fixed instants in fixed timezones, no clock.

use super::*;
use chrono::{Datelike, Weekday};
use chrono_tz::America::Los_Angeles as LA;
use chrono_tz::Europe::Berlin;

fn sched(expr: &str) -> CronSchedule {
    CronSchedule::parse(expr).expect("valid cron")
}

/// An instant given in UTC, shown in `tz` (unambiguous even inside a DST overlap).
fn utc(tz: Tz, y: i32, mo: u32, d: u32, h: u32, mi: u32) -> DateTime<Tz> {
    Utc.with_ymd_and_hms(y, mo, d, h, mi, 0)
        .single()
        .expect("valid UTC time")
        .with_timezone(&tz)
}

/// An unambiguous local wall-clock time in `tz`.
fn local(tz: Tz, y: i32, mo: u32, d: u32, h: u32, mi: u32) -> DateTime<Tz> {
    tz.with_ymd_and_hms(y, mo, d, h, mi, 0)
        .single()
        .expect("unambiguous local time")
}

fn next(expr: &str, after: DateTime<Tz>) -> DateTime<Tz> {
    sched(expr).next_after(after).expect("a next fire")
}

/// Chains `next_after` the way the scheduler loop does (recompute from the last fire).
fn chain(expr: &str, from: DateTime<Tz>, to: DateTime<Tz>) -> Vec<DateTime<Tz>> {
    let s = sched(expr);
    let mut out = Vec::new();
    let mut now = from;
    while let Some(fire) = s.next_after(now).filter(|f| *f <= to) {
        assert!(fire > now, "{expr}: fire {fire} not after {now}");
        out.push(fire);
        now = fire;
    }
    out
}

#[path = "cron_dst_tests.rs"]
mod dst;

// ---- parsing ----

#[test]
fn parse_trims_and_collapses_whitespace() {
    let s = sched("  0   9 *\t* \n mon-fri ");
    assert_eq!(s.as_str(), "0 9 * * mon-fri");
    assert_eq!(s.to_string(), "0 9 * * mon-fri");
    assert_eq!(s, sched("0 9 * * mon-fri"));
}

#[test]
fn wrong_field_count_is_rejected_with_the_spec_message() {
    for (expr, found) in [
        ("", 0),
        ("0 9 * *", 4),
        ("0 0 9 * * *", 6),
        ("0 0 9 * * * 2026", 7),
        ("@daily", 1),
    ] {
        let err = CronSchedule::parse(expr).expect_err(expr);
        assert!(
            matches!(err, CronError::FieldCount { found: f } if f == found),
            "{expr}: {err:?}"
        );
        assert_eq!(
            err.to_string(),
            "cron must have exactly 5 fields (minute hour day month weekday)"
        );
    }
}

#[test]
fn garbage_and_out_of_range_fields_are_invalid() {
    for expr in [
        "a b c d e",
        "60 * * * *",
        "0 24 * * *",
        "0 9 32 * *",
        "0 9 * 13 *",
        "0 9 * * 8",
        "0 9 * * funday",
        "*/0 * * * *",
    ] {
        let err = CronSchedule::parse(expr).expect_err(expr);
        let CronError::Invalid { expr: e, reason } = &err else {
            panic!("{expr}: expected Invalid, got {err:?}");
        };
        assert_eq!(e, expr);
        assert!(!reason.is_empty());
        assert!(
            err.to_string()
                .starts_with(&format!("invalid cron expression '{expr}': ")),
            "{err}"
        );
    }
}

#[test]
fn schedules_that_never_fire_are_invalid() {
    let err = CronSchedule::parse("0 0 31 2 *").expect_err("Feb 31");
    assert!(err.to_string().contains("never fires"), "{err}");
    // Feb 29 exists every four years, so it is fine.
    let leap = sched("0 0 29 2 *");
    let fire = leap
        .next_after(local(LA, 2026, 1, 1, 0, 0))
        .expect("leap day");
    assert_eq!((fire.year(), fire.month(), fire.day()), (2028, 2, 29));
}

#[test]
fn croner_extensions_are_accepted() {
    // `L`: last day of the month.
    let fire = next("0 9 L * *", local(LA, 2026, 2, 1, 0, 0));
    assert_eq!(fire, local(LA, 2026, 2, 28, 9, 0));
    // `5#L`: last Friday of the month (2026-11-27).
    assert_eq!(
        next("0 9 * * 5#L", local(LA, 2026, 11, 1, 0, 0)),
        local(LA, 2026, 11, 27, 9, 0)
    );
}

// ---- weekdays ----

#[test]
fn weekday_zero_seven_and_sun_are_sunday() {
    let sat = local(LA, 2026, 11, 21, 10, 0);
    assert_eq!(sat.weekday(), Weekday::Sat);
    let sunday_nine = local(LA, 2026, 11, 22, 9, 0);
    assert_eq!(sunday_nine.weekday(), Weekday::Sun);
    for expr in [
        "0 9 * * 0",
        "0 9 * * 7",
        "0 9 * * sun",
        "0 9 * * SUN",
        "0 9 * * sat-sun/1",
    ] {
        let fire = next(expr, sat);
        let want = if expr.contains("sat") {
            local(LA, 2026, 11, 22, 9, 0) // Saturday 10:00 is past 09:00 already
        } else {
            sunday_nine
        };
        assert_eq!(fire, want, "{expr}");
    }
}

#[test]
fn weekday_ranges_skip_weekends() {
    let fri = local(LA, 2026, 11, 20, 10, 0);
    assert_eq!(fri.weekday(), Weekday::Fri);
    for expr in ["0 9 * * 1-5", "0 9 * * mon-fri"] {
        use Weekday::*;
        assert_eq!(next(expr, fri), local(LA, 2026, 11, 23, 9, 0), "{expr}");
        let week = chain(expr, fri, local(LA, 2026, 11, 30, 0, 0));
        let days: Vec<Weekday> = week.iter().map(Datelike::weekday).collect();
        assert_eq!(days, [Mon, Tue, Wed, Thu, Fri], "{expr}");
    }
    let alt = chain(
        "0 9 * * mon-fri/2",
        local(LA, 2026, 11, 22, 0, 0),
        local(LA, 2026, 11, 29, 0, 0),
    );
    let days: Vec<u32> = alt.iter().map(Datelike::day).collect();
    assert_eq!(days, [23, 25, 27]); // Mon, Wed, Fri
}

#[test]
fn day_of_month_and_weekday_combine_with_or() {
    let from = local(LA, 2026, 6, 30, 12, 0);
    let to = local(LA, 2026, 7, 31, 23, 0);
    assert_eq!(local(LA, 2026, 7, 1, 9, 0).weekday(), Weekday::Wed);
    let days = |expr: &str| -> Vec<u32> {
        sched(expr)
            .fires_between(from, to, 100)
            .iter()
            .map(Datelike::day)
            .collect()
    };
    assert_eq!(days("0 9 1 * mon"), [1, 6, 13, 20, 27]);
    assert_eq!(days("0 9 1,15 * fri"), [1, 3, 10, 15, 17, 24, 31]);
    // Either field `*`: only the other restricts.
    assert_eq!(days("0 9 * * mon"), [6, 13, 20, 27]);
    assert_eq!(days("0 9 1 * *"), [1]);
    // Vixie: a day field starting with `*` is unrestricted, so the fields combine with AND.
    assert_eq!(days("0 9 */2 * mon"), [13, 27]);
    // croner's `+` forces AND explicitly.
    assert_eq!(days("0 9 1-10 * +mon"), [6]);
}

// ---- steps, lists, ranges ----

#[test]
fn steps_lists_and_ranges() {
    let t = local(LA, 2026, 5, 5, 10, 7);
    assert_eq!(next("*/15 * * * *", t), local(LA, 2026, 5, 5, 10, 15));
    assert_eq!(next("0 */4 * * *", t), local(LA, 2026, 5, 5, 12, 0));
    assert_eq!(next("0 9,13 * * *", t), local(LA, 2026, 5, 5, 13, 0));
    let hours: Vec<u32> = chain(
        "0 9-17/2 * * *",
        local(LA, 2026, 5, 5, 0, 0),
        local(LA, 2026, 5, 6, 10, 0),
    )
    .iter()
    .map(chrono::Timelike::hour)
    .collect();
    assert_eq!(hours, [9, 11, 13, 15, 17, 9]);
    assert_eq!(next("30 8 * jan,jul *", t), local(LA, 2026, 7, 1, 8, 30));
}

#[test]
fn next_is_strictly_after_even_with_subsecond_input() {
    let nine = local(LA, 2026, 5, 5, 9, 0);
    assert_eq!(next("0 9 * * *", nine), local(LA, 2026, 5, 6, 9, 0));
    let half_second = nine + Duration::milliseconds(500);
    assert_eq!(next("0 9 * * *", half_second), local(LA, 2026, 5, 6, 9, 0));
    let before = nine - Duration::nanoseconds(1);
    assert_eq!(next("0 9 * * *", before), nine);
    // The result is in the caller's timezone.
    let in_berlin = next("0 9 * * *", nine.with_timezone(&Berlin));
    assert_eq!(in_berlin.timezone(), Berlin);
    assert_eq!(in_berlin, local(Berlin, 2026, 5, 6, 9, 0));
}

// ---- last_at_or_before ----

#[test]
fn last_at_or_before_window_is_inclusive() {
    let s = sched("0 9 * * *");
    let nine = local(LA, 2026, 5, 5, 9, 0);
    let window = Duration::minutes(15);
    assert_eq!(s.last_at_or_before(nine, window), Some(nine));
    assert_eq!(s.last_at_or_before(nine + window, window), Some(nine));
    assert_eq!(
        s.last_at_or_before(nine + window + Duration::nanoseconds(1), window),
        None
    );
    assert_eq!(
        s.last_at_or_before(nine - Duration::minutes(1), window),
        None
    );
    assert_eq!(s.last_at_or_before(nine, Duration::zero()), Some(nine));
    assert_eq!(s.last_at_or_before(nine, Duration::minutes(-1)), None);
    // The latest of several fires in the window.
    let five = sched("*/5 * * * *");
    assert_eq!(
        five.last_at_or_before(local(LA, 2026, 5, 5, 9, 12), window),
        Some(local(LA, 2026, 5, 5, 9, 10))
    );
    // Across the spring gap: the shifted 02:30 counts as fired at 03:00.
    assert_eq!(
        sched("30 2 * * *").last_at_or_before(local(LA, 2026, 3, 8, 3, 10), window),
        Some(local(LA, 2026, 3, 8, 3, 0))
    );
    // Inside the repeated hour, the 01:30 PDT fire is 50 minutes old at 01:20 PST.
    let s130 = sched("30 1 * * *");
    assert_eq!(
        s130.last_at_or_before(utc(LA, 2026, 11, 1, 9, 20), window),
        None
    );
    assert_eq!(
        s130.last_at_or_before(utc(LA, 2026, 11, 1, 8, 40), window),
        Some(utc(LA, 2026, 11, 1, 8, 30))
    );
}

// ---- fires_between ----

#[test]
fn fires_between_is_half_open_capped_and_crosses_dst() {
    let s = sched("0 9 * * *");
    let from = local(LA, 2026, 10, 30, 9, 0);
    let to = local(LA, 2026, 11, 2, 9, 0);
    let fires = s.fires_between(from, to, 10);
    assert_eq!(
        fires,
        [
            utc(LA, 2026, 10, 31, 16, 0),
            utc(LA, 2026, 11, 1, 17, 0),
            utc(LA, 2026, 11, 2, 17, 0),
        ]
    );
    assert_eq!(s.fires_between(from, to, 2), fires[..2]);
    assert!(s.fires_between(from, to, 0).is_empty());
    assert!(s.fires_between(to, from, 10).is_empty());
    assert!(s.fires_between(to, to, 10).is_empty());
    // Results are in `from`'s timezone whatever `to`'s is.
    let mixed = s.fires_between(from, to.with_timezone(&Berlin), 10);
    assert_eq!(mixed, fires);
    assert!(mixed.iter().all(|f| f.timezone() == LA));
}

/// The scheduler recomputes from "now" at arbitrary moments: every minute across the LA and
/// Berlin DST days, `next_after(now)` must be the first fire of the full list that is after `now`.
#[test]
fn recomputing_from_any_minute_agrees_with_the_fire_list() {
    let exprs = [
        "30 2 * * *",
        "30 1 * * *",
        "0 * * * *",
        "*/20 * * * *",
        "5 * * * *",
        "*/15 2 * * *",
        "0 1,2,3 * * *",
    ];
    for expr in exprs {
        let s = sched(expr);
        for (start, end) in [
            (utc(LA, 2026, 3, 8, 6, 0), utc(LA, 2026, 3, 8, 14, 0)),
            (utc(LA, 2026, 11, 1, 6, 0), utc(LA, 2026, 11, 1, 14, 0)),
            (
                utc(Berlin, 2026, 3, 28, 23, 0),
                utc(Berlin, 2026, 3, 29, 5, 0),
            ),
            (
                utc(Berlin, 2026, 10, 24, 22, 0),
                utc(Berlin, 2026, 10, 25, 5, 0),
            ),
        ] {
            let all = s.fires_between(start - Duration::hours(1), end + Duration::days(2), 500);
            let unique: std::collections::BTreeSet<_> = all.iter().collect();
            assert_eq!(unique.len(), all.len(), "{expr}: duplicate instants");
            let mut now = start;
            while now < end {
                let want = all.iter().find(|f| **f > now).copied();
                assert_eq!(s.next_after(now), want, "{expr} at {now}");
                now += Duration::minutes(1);
            }
        }
    }
}
