//! Quiet windows on the 2026 clock-change days of Berlin (29 March, 25 October) and New York
//! (8 March, 1 November): nights an hour shorter or longer, and windows that start or end in
//! a skipped or a repeated hour.

use chrono_tz::America::New_York;

use super::*;

// Berlin, 29 March 2026: at 01:00 UTC the clocks jump from 02:00 CET to 03:00 CEST.

#[test]
fn berlin_spring_forward_night_is_an_hour_shorter() {
    let night = window("22:00-08:00");
    let ends = Some(utc("2026-03-29T06:00:00Z"));
    assert_eq!(quiet(&night, Berlin, "2026-03-28T20:59:59Z"), None);
    assert_eq!(quiet(&night, Berlin, "2026-03-28T21:00:00Z"), ends);
    assert_eq!(quiet(&night, Berlin, "2026-03-29T01:00:00Z"), ends);
    assert_eq!(quiet(&night, Berlin, "2026-03-29T05:59:59Z"), ends);
    assert_eq!(quiet(&night, Berlin, "2026-03-29T06:00:00Z"), None);
}

#[test]
fn berlin_a_window_that_starts_in_the_gap_opens_as_the_gap_ends() {
    let early = window("02:30-07:00");
    assert_eq!(quiet(&early, Berlin, "2026-03-29T00:59:59Z"), None);
    assert_eq!(
        quiet(&early, Berlin, "2026-03-29T01:00:00Z"),
        Some(utc("2026-03-29T05:00:00Z"))
    );
    let next = |at| early.next_start_after(utc(at), Berlin);
    assert_eq!(next("2026-03-28T12:00:00Z"), utc("2026-03-29T01:00:00Z"));
    assert_eq!(next("2026-03-29T01:00:00Z"), utc("2026-03-30T00:30:00Z"));
}

#[test]
fn berlin_a_window_that_ends_in_the_gap_closes_as_the_gap_ends() {
    let late = window("22:00-02:30");
    let ends = Some(utc("2026-03-29T01:00:00Z"));
    assert_eq!(quiet(&late, Berlin, "2026-03-28T22:00:00Z"), ends);
    assert_eq!(quiet(&late, Berlin, "2026-03-29T00:59:59Z"), ends);
    assert_eq!(quiet(&late, Berlin, "2026-03-29T01:00:00Z"), None);
}

#[test]
fn berlin_a_window_wholly_in_the_gap_is_empty_that_night() {
    let skipped = window("02:10-02:40");
    assert_eq!(
        quiet(&skipped, Berlin, "2026-03-28T01:10:00Z"),
        Some(utc("2026-03-28T01:40:00Z"))
    );
    assert_eq!(quiet(&skipped, Berlin, "2026-03-29T00:59:59Z"), None);
    assert_eq!(quiet(&skipped, Berlin, "2026-03-29T01:00:00Z"), None);
    let next = skipped.next_start_after(utc("2026-03-28T12:00:00Z"), Berlin);
    assert_eq!(next, utc("2026-03-30T00:10:00Z"));
}

#[test]
fn berlin_spans_that_touch_across_the_gap_are_one_stretch_of_quiet() {
    // 02:30 to 02:10 the next day: the night's end and the next start both fall in the gap.
    let nearly_always = window("02:30-02:10");
    let ends = Some(utc("2026-03-30T00:10:00Z"));
    assert_eq!(quiet(&nearly_always, Berlin, "2026-03-28T12:00:00Z"), ends);
    assert_eq!(quiet(&nearly_always, Berlin, "2026-03-29T01:00:00Z"), ends);
}

// Berlin, 25 October 2026: at 01:00 UTC the clocks fall back from 03:00 CEST to 02:00 CET.

#[test]
fn berlin_fall_back_night_is_an_hour_longer() {
    let night = window("22:00-08:00");
    let ends = Some(utc("2026-10-25T07:00:00Z"));
    assert_eq!(quiet(&night, Berlin, "2026-10-24T20:00:00Z"), ends);
    assert_eq!(quiet(&night, Berlin, "2026-10-25T06:59:59Z"), ends);
    assert_eq!(quiet(&night, Berlin, "2026-10-25T07:00:00Z"), None);
}

#[test]
fn berlin_a_window_that_ends_in_the_repeated_hour_ends_at_its_first_pass() {
    let late = window("22:00-02:30");
    let ends = Some(utc("2026-10-25T00:30:00Z"));
    assert_eq!(quiet(&late, Berlin, "2026-10-24T21:00:00Z"), ends);
    assert_eq!(quiet(&late, Berlin, "2026-10-25T00:29:59Z"), ends);
    assert_eq!(quiet(&late, Berlin, "2026-10-25T00:30:00Z"), None);
    assert_eq!(quiet(&late, Berlin, "2026-10-25T01:30:00Z"), None);
}

#[test]
fn berlin_a_window_that_starts_in_the_repeated_hour_starts_at_its_first_pass() {
    let early = window("02:30-06:00");
    let ends = Some(utc("2026-10-25T05:00:00Z"));
    assert_eq!(quiet(&early, Berlin, "2026-10-25T00:29:59Z"), None);
    assert_eq!(quiet(&early, Berlin, "2026-10-25T00:30:00Z"), ends);
    // 02:15 on the second pass is after the start as an instant.
    assert_eq!(quiet(&early, Berlin, "2026-10-25T01:15:00Z"), ends);
    let next = early.next_start_after(utc("2026-10-24T12:00:00Z"), Berlin);
    assert_eq!(next, utc("2026-10-25T00:30:00Z"));
}

// New York, 8 March 2026: at 07:00 UTC the clocks jump from 02:00 EST to 03:00 EDT.

#[test]
fn new_york_spring_forward_night_is_an_hour_shorter() {
    let night = window("22:00-07:00");
    let ends = Some(utc("2026-03-08T11:00:00Z"));
    assert_eq!(quiet(&night, New_York, "2026-03-08T02:59:59Z"), None);
    assert_eq!(quiet(&night, New_York, "2026-03-08T03:00:00Z"), ends);
    assert_eq!(quiet(&night, New_York, "2026-03-08T10:59:59Z"), ends);
    assert_eq!(quiet(&night, New_York, "2026-03-08T11:00:00Z"), None);
}

#[test]
fn new_york_a_window_that_starts_where_the_gap_begins_opens_as_it_ends() {
    let early = window("02:00-06:00");
    assert_eq!(quiet(&early, New_York, "2026-03-08T06:59:59Z"), None);
    assert_eq!(
        quiet(&early, New_York, "2026-03-08T07:00:00Z"),
        Some(utc("2026-03-08T10:00:00Z"))
    );
}

#[test]
fn new_york_a_window_that_ends_in_the_gap_closes_as_the_gap_ends() {
    let late = window("23:00-02:30");
    let ends = Some(utc("2026-03-08T07:00:00Z"));
    assert_eq!(quiet(&late, New_York, "2026-03-08T04:00:00Z"), ends);
    assert_eq!(quiet(&late, New_York, "2026-03-08T06:59:59Z"), ends);
    assert_eq!(quiet(&late, New_York, "2026-03-08T07:00:00Z"), None);
}

// New York, 1 November 2026: at 06:00 UTC the clocks fall back from 02:00 EDT to 01:00 EST.

#[test]
fn new_york_fall_back_night_is_an_hour_longer() {
    let night = window("22:00-07:00");
    let ends = Some(utc("2026-11-01T12:00:00Z"));
    assert_eq!(quiet(&night, New_York, "2026-11-01T02:00:00Z"), ends);
    assert_eq!(quiet(&night, New_York, "2026-11-01T11:59:59Z"), ends);
    assert_eq!(quiet(&night, New_York, "2026-11-01T12:00:00Z"), None);
}

#[test]
fn new_york_the_repeated_hour_counts_from_its_first_pass() {
    let late = window("23:00-01:30");
    assert_eq!(
        quiet(&late, New_York, "2026-11-01T05:29:59Z"),
        Some(utc("2026-11-01T05:30:00Z"))
    );
    assert_eq!(quiet(&late, New_York, "2026-11-01T05:30:00Z"), None);
    assert_eq!(quiet(&late, New_York, "2026-11-01T06:30:00Z"), None);
    let early = window("01:30-05:00");
    let ends = Some(utc("2026-11-01T10:00:00Z"));
    assert_eq!(quiet(&early, New_York, "2026-11-01T05:29:59Z"), None);
    assert_eq!(quiet(&early, New_York, "2026-11-01T05:30:00Z"), ends);
    assert_eq!(quiet(&early, New_York, "2026-11-01T06:15:00Z"), ends);
}
