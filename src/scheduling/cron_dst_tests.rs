//! Daylight-saving days: Los Angeles and Berlin, both directions.

use super::*;

// ---- America/Los_Angeles spring forward: 2026-03-08 02:00 PST -> 03:00 PDT ----

#[test]
fn la_spring_forward_fixed_time_in_gap_fires_once_at_gap_end() {
    let fires = chain(
        "30 2 * * *",
        local(LA, 2026, 3, 7, 0, 0),
        local(LA, 2026, 3, 10, 0, 0),
    );
    assert_eq!(
        fires,
        [
            utc(LA, 2026, 3, 7, 10, 30), // 02:30 PST
            utc(LA, 2026, 3, 8, 10, 0),  // 03:00 PDT, first instant after the gap
            utc(LA, 2026, 3, 9, 9, 30),  // 02:30 PDT
        ]
    );
    assert_eq!(fires[1], local(LA, 2026, 3, 8, 3, 0));
    // Recomputing from the fire itself, or from inside the day, never repeats it.
    assert_eq!(next("30 2 * * *", fires[1]), local(LA, 2026, 3, 9, 2, 30));
    assert_eq!(next("30 2 * * *", local(LA, 2026, 3, 8, 1, 59)), fires[1]);
}

#[test]
fn la_spring_forward_nine_am_stays_nine_am() {
    let fires = sched("0 9 * * *").fires_between(
        local(LA, 2026, 3, 6, 12, 0),
        local(LA, 2026, 3, 10, 12, 0),
        10,
    );
    assert_eq!(
        fires,
        [
            utc(LA, 2026, 3, 7, 17, 0), // 09:00 PST
            utc(LA, 2026, 3, 8, 16, 0), // 09:00 PDT
            utc(LA, 2026, 3, 9, 16, 0),
            utc(LA, 2026, 3, 10, 16, 0),
        ]
    );
    assert!(fires.iter().all(|f| f.hour() == 9 && f.minute() == 0));
}

#[test]
fn la_spring_forward_repeating_and_collapsed_schedules() {
    let day = (local(LA, 2026, 3, 8, 0, 30), local(LA, 2026, 3, 8, 4, 0));
    // Hourly: the nonexistent 02:05 is dropped (one real hour between fires).
    let hourly = sched("5 * * * *").fires_between(day.0, day.1, 10);
    assert_eq!(
        hourly,
        [local(LA, 2026, 3, 8, 1, 5), local(LA, 2026, 3, 8, 3, 5)]
    );
    // Every 15 minutes: 02:00-02:45 do not exist; 03:00 fires once.
    let quarter = sched("*/15 * * * *").fires_between(day.0, local(LA, 2026, 3, 8, 3, 15), 20);
    let minutes: Vec<(u32, u32)> = quarter.iter().map(|f| (f.hour(), f.minute())).collect();
    assert_eq!(
        minutes,
        [(0, 45), (1, 0), (1, 15), (1, 30), (1, 45), (3, 0), (3, 15)]
    );
    // Fixed hour with several times in the gap: one fire at the gap end.
    for expr in ["*/15 2 * * *", "0 2,3 * * *", "* 2 * * *"] {
        let fires = sched(expr).fires_between(day.0, day.1, 100);
        assert_eq!(fires, [local(LA, 2026, 3, 8, 3, 0)], "{expr}");
    }
}

// ---- America/Los_Angeles fall back: 2026-11-01 02:00 PDT -> 01:00 PST ----

#[test]
fn la_fall_back_fixed_time_in_overlap_fires_once() {
    let first_130 = utc(LA, 2026, 11, 1, 8, 30); // 01:30 PDT
    let fires = chain(
        "30 1 * * *",
        local(LA, 2026, 10, 31, 0, 0),
        local(LA, 2026, 11, 3, 0, 0),
    );
    assert_eq!(
        fires,
        [
            utc(LA, 2026, 10, 31, 8, 30),
            first_130,
            utc(LA, 2026, 11, 2, 9, 30), // 01:30 PST
        ]
    );
    // From inside the repeated hour (01:10 PST, after the 01:30 PDT fire) nothing refires.
    let second_110 = utc(LA, 2026, 11, 1, 9, 10);
    assert_eq!(next("30 1 * * *", second_110), utc(LA, 2026, 11, 2, 9, 30));
    // From 01:10 PDT the fire is the first 01:30.
    assert_eq!(next("30 1 * * *", utc(LA, 2026, 11, 1, 8, 10)), first_130);
}

#[test]
fn la_fall_back_nine_am_is_pst() {
    assert_eq!(
        next("0 9 * * *", local(LA, 2026, 10, 31, 12, 0)),
        utc(LA, 2026, 11, 1, 17, 0)
    );
    assert_eq!(
        next("0 9 * * *", local(LA, 2026, 10, 30, 12, 0)),
        utc(LA, 2026, 10, 31, 16, 0)
    );
}

#[test]
fn la_fall_back_hourly_fires_in_both_passes() {
    let from = local(LA, 2026, 11, 1, 0, 30);
    let to = local(LA, 2026, 11, 1, 3, 30);
    let want = [
        utc(LA, 2026, 11, 1, 8, 0),  // 01:00 PDT
        utc(LA, 2026, 11, 1, 9, 0),  // 01:00 PST
        utc(LA, 2026, 11, 1, 10, 0), // 02:00 PST
        utc(LA, 2026, 11, 1, 11, 0), // 03:00 PST
    ];
    assert_eq!(sched("0 * * * *").fires_between(from, to, 10), want);
    assert_eq!(chain("0 * * * *", from, to), want);
    // From the middle of the first pass, the next fire is the second 01:00.
    assert_eq!(next("0 * * * *", utc(LA, 2026, 11, 1, 8, 30)), want[1]);
    // Every 15 minutes through the overlap: 8 distinct instants from 01:00 PDT to 01:45 PST.
    let quarter = sched("*/15 * * * *").fires_between(
        utc(LA, 2026, 11, 1, 7, 59),
        utc(LA, 2026, 11, 1, 9, 59),
        100,
    );
    assert_eq!(quarter.len(), 8);
    assert!(
        quarter
            .windows(2)
            .all(|w| w[1] - w[0] == Duration::minutes(15))
    );
    // A fixed hour with repeating minutes runs through the hour once.
    let fixed = sched("*/15 1 * * *").fires_between(from, to, 100);
    assert_eq!(fixed.len(), 4);
    assert_eq!(fixed[0], utc(LA, 2026, 11, 1, 8, 0));
    assert_eq!(fixed[3], utc(LA, 2026, 11, 1, 8, 45));
}

// ---- Europe/Berlin: 2026-03-29 02:00 -> 03:00, 2026-10-25 03:00 -> 02:00 ----

#[test]
fn berlin_spring_forward() {
    let fires = chain(
        "30 2 * * *",
        local(Berlin, 2026, 3, 28, 0, 0),
        local(Berlin, 2026, 3, 31, 0, 0),
    );
    assert_eq!(
        fires,
        [
            utc(Berlin, 2026, 3, 28, 1, 30), // 02:30 CET
            utc(Berlin, 2026, 3, 29, 1, 0),  // 03:00 CEST
            utc(Berlin, 2026, 3, 30, 0, 30), // 02:30 CEST
        ]
    );
    assert_eq!(
        next("0 9 * * *", local(Berlin, 2026, 3, 28, 12, 0)),
        utc(Berlin, 2026, 3, 29, 7, 0)
    );
}

#[test]
fn berlin_fall_back() {
    let fires = chain(
        "30 2 * * *",
        local(Berlin, 2026, 10, 24, 0, 0),
        local(Berlin, 2026, 10, 27, 0, 0),
    );
    assert_eq!(
        fires,
        [
            utc(Berlin, 2026, 10, 24, 0, 30), // 02:30 CEST
            utc(Berlin, 2026, 10, 25, 0, 30), // first 02:30 (CEST) only
            utc(Berlin, 2026, 10, 26, 1, 30), // 02:30 CET
        ]
    );
    assert_eq!(
        next("0 9 * * *", local(Berlin, 2026, 10, 24, 12, 0)),
        utc(Berlin, 2026, 10, 25, 8, 0)
    );
    let hourly = sched("0 * * * *").fires_between(
        utc(Berlin, 2026, 10, 24, 23, 30),
        utc(Berlin, 2026, 10, 25, 2, 30),
        10,
    );
    assert_eq!(
        hourly,
        [
            utc(Berlin, 2026, 10, 25, 0, 0), // 02:00 CEST
            utc(Berlin, 2026, 10, 25, 1, 0), // 02:00 CET
            utc(Berlin, 2026, 10, 25, 2, 0), // 03:00 CET
        ]
    );
}
