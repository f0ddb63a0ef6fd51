//! Quiet windows read from the owner's text, stored, and checked against instants; the
//! override and how it combines with the window. Clock-change days are in `dst`.

use chrono_tz::Europe::Berlin;

use super::*;

fn utc(text: &str) -> DateTime<Utc> {
    text.parse().unwrap()
}

fn window(text: &str) -> QuietWindow {
    text.parse().unwrap()
}

fn hm(hour: u32, minute: u32) -> NaiveTime {
    NaiveTime::from_hms_opt(hour, minute, 0).unwrap()
}

/// Whether `at` is quiet under `window` in `tz`, and until when; checks that `contains` and
/// `ends_after` agree.
fn quiet(window: &QuietWindow, tz: Tz, at: &str) -> Option<DateTime<Utc>> {
    let at = utc(at);
    let ends = window.ends_after(at, tz);
    assert_eq!(window.contains(at, tz), ends.is_some(), "{window} at {at}");
    ends
}

#[path = "quiet_hours_dst_tests.rs"]
mod dst;

#[test]
fn reads_24_hour_forms() {
    let cases = [
        ("22:00-08:00", hm(22, 0), hm(8, 0)),
        ("7:30-9:00", hm(7, 30), hm(9, 0)),
        ("22-8", hm(22, 0), hm(8, 0)),
        ("22 - 08:00", hm(22, 0), hm(8, 0)),
        ("  22:00 – 08:00  ", hm(22, 0), hm(8, 0)),
        ("22:00—08:00", hm(22, 0), hm(8, 0)),
        ("0-7", hm(0, 0), hm(7, 0)),
        ("22:00-24:00", hm(22, 0), hm(0, 0)),
    ];
    for (text, start, end) in cases {
        let read = window(text);
        assert_eq!((read.start(), read.end()), (start, end), "{text}");
    }
}

#[test]
fn reads_am_and_pm_in_any_case() {
    let cases = [
        ("10pm-7am", hm(22, 0), hm(7, 0)),
        ("10:30PM-7AM", hm(22, 30), hm(7, 0)),
        ("10 pm - 7 am", hm(22, 0), hm(7, 0)),
        ("11Pm-6:15aM", hm(23, 0), hm(6, 15)),
        ("12am-6am", hm(0, 0), hm(6, 0)),
        ("12pm-1pm", hm(12, 0), hm(13, 0)),
        ("22-7am", hm(22, 0), hm(7, 0)),
    ];
    for (text, start, end) in cases {
        let read = window(text);
        assert_eq!((read.start(), read.end()), (start, end), "{text}");
    }
}

#[test]
fn refuses_what_is_not_two_times_joined_by_a_dash() {
    for text in [
        "",
        "22:00",
        "22:00-08:00-09:00",
        "22:00-",
        "-08:00",
        " - ",
        "22:00 08:00",
    ] {
        let error = text.parse::<QuietWindow>().unwrap_err();
        assert_eq!(error, QuietWindowError::NotARange, "{text:?}");
    }
}

#[test]
fn refuses_a_side_that_is_not_a_time_naming_it() {
    let cases = [
        ("25:00-08:00", "25:00"),
        ("22:60-08:00", "22:60"),
        ("22:5-08:00", "22:5"),
        ("24:30-08:00", "24:30"),
        ("220-08", "220"),
        ("22:00-8.30", "8.30"),
        ("13pm-7am", "13pm"),
        ("0am-7am", "0am"),
        ("ten-seven", "ten"),
        ("22:00-pm", "pm"),
    ];
    for (text, side) in cases {
        let error = text.parse::<QuietWindow>().unwrap_err();
        assert_eq!(error, QuietWindowError::NotATime(side.into()), "{text}");
    }
}

#[test]
fn refuses_a_bare_hour_beside_am_or_pm_rather_than_guess() {
    for text in ["10-7am", "10pm-7", "12-6am", "10:30-7am"] {
        let error = text.parse::<QuietWindow>().unwrap_err();
        assert_eq!(error, QuietWindowError::HalfAmPm, "{text}");
    }
}

#[test]
fn refuses_the_same_start_and_end_saying_why() {
    for (text, time) in [
        ("22:00-22:00", "22:00"),
        ("10pm-22", "22:00"),
        ("0-24", "00:00"),
    ] {
        let error = text.parse::<QuietWindow>().unwrap_err();
        assert_eq!(error, QuietWindowError::SameStartAndEnd(time.into()));
        assert!(error.to_string().contains("pick two different times"));
    }
}

#[test]
fn every_error_says_the_form_expected_with_an_example() {
    for text in ["", "25:00-08:00", "10-7am", "22:00-22:00"] {
        let message = text.parse::<QuietWindow>().unwrap_err().to_string();
        assert!(
            message.contains("like 22:00-08:00") || message.contains("like 10pm-7am"),
            "{message}"
        );
    }
}

#[test]
fn new_cuts_to_whole_minutes_and_refuses_the_same_minute() {
    let seconds = |h, m, s| NaiveTime::from_hms_opt(h, m, s).unwrap();
    let made = QuietWindow::new(seconds(22, 0, 30), seconds(8, 0, 59)).unwrap();
    assert_eq!((made.start(), made.end()), (hm(22, 0), hm(8, 0)));
    assert!(made.crosses_midnight());
    assert!(!window("9-17").crosses_midnight());
    let same = QuietWindow::new(seconds(8, 0, 10), seconds(8, 0, 50));
    assert_eq!(same, Err(QuietWindowError::SameStartAndEnd("08:00".into())));
}

#[test]
fn displays_with_an_en_dash_and_reads_that_back() {
    let read = window("10pm-7:30am");
    assert_eq!(read.to_string(), "22:00–07:30");
    assert_eq!(window(&read.to_string()), read);
}

#[test]
fn is_stored_as_the_string_the_owner_types() {
    let read = window("10pm-7am");
    assert_eq!(serde_json::to_string(&read).unwrap(), "\"22:00-07:00\"");
    assert_eq!(
        serde_json::from_str::<QuietWindow>("\"22-7\"").unwrap(),
        read
    );
    let error = serde_json::from_str::<QuietWindow>("\"22:00-22:00\"").unwrap_err();
    assert!(
        error.to_string().contains("pick two different times"),
        "{error}"
    );
    assert!(serde_json::from_str::<QuietWindow>("2200").is_err());
}

#[test]
fn a_daytime_window_holds_its_start_but_not_its_end() {
    let day = window("09:00-17:00");
    // Berlin in June is UTC+2.
    assert_eq!(
        quiet(&day, Berlin, "2026-06-10T07:00:00Z"),
        Some(utc("2026-06-10T15:00:00Z"))
    );
    assert_eq!(
        quiet(&day, Berlin, "2026-06-10T14:59:59Z"),
        Some(utc("2026-06-10T15:00:00Z"))
    );
    assert_eq!(quiet(&day, Berlin, "2026-06-10T15:00:00Z"), None);
    assert_eq!(quiet(&day, Berlin, "2026-06-10T06:59:59Z"), None);
    let next = |at| day.next_start_after(utc(at), Berlin);
    assert_eq!(next("2026-06-10T06:00:00Z"), utc("2026-06-10T07:00:00Z"));
    assert_eq!(next("2026-06-10T07:00:00Z"), utc("2026-06-11T07:00:00Z"));
    assert_eq!(next("2026-06-10T16:00:00Z"), utc("2026-06-11T07:00:00Z"));
}

#[test]
fn a_window_across_midnight_runs_into_the_next_day() {
    let night = window("22:00-08:00");
    let ends = Some(utc("2026-06-11T06:00:00Z"));
    assert_eq!(quiet(&night, Berlin, "2026-06-10T19:59:59Z"), None);
    assert_eq!(quiet(&night, Berlin, "2026-06-10T20:00:00Z"), ends);
    assert_eq!(quiet(&night, Berlin, "2026-06-10T23:00:00Z"), ends);
    assert_eq!(quiet(&night, Berlin, "2026-06-11T05:59:59Z"), ends);
    assert_eq!(quiet(&night, Berlin, "2026-06-11T06:00:00Z"), None);
    let next = |at| night.next_start_after(utc(at), Berlin);
    assert_eq!(next("2026-06-11T01:00:00Z"), utc("2026-06-11T20:00:00Z"));
    assert_eq!(next("2026-06-10T20:00:00Z"), utc("2026-06-11T20:00:00Z"));
}

// quiet_until: the window 22:00-08:00 in Berlin in June is 20:00-06:00 UTC.

fn until(manual: Option<&str>, at: &str) -> Option<DateTime<Utc>> {
    let night = window("22:00-08:00");
    quiet_until(Some(&night), manual.map(utc), utc(at), Berlin)
}

#[test]
fn nothing_holds_outside_the_window_without_an_override() {
    assert_eq!(
        quiet_until(None, None, utc("2026-06-10T12:00:00Z"), Berlin),
        None
    );
    assert_eq!(until(None, "2026-06-10T12:00:00Z"), None);
    assert_eq!(
        until(Some("2026-06-10T12:00:00Z"), "2026-06-10T12:00:00Z"),
        None
    );
    assert_eq!(
        until(Some("2026-06-10T11:00:00Z"), "2026-06-10T12:00:00Z"),
        None
    );
}

#[test]
fn one_source_alone_gives_its_own_end() {
    assert_eq!(
        until(None, "2026-06-10T23:00:00Z"),
        Some(utc("2026-06-11T06:00:00Z"))
    );
    assert_eq!(
        until(Some("2026-06-10T14:00:00Z"), "2026-06-10T12:00:00Z"),
        Some(utc("2026-06-10T14:00:00Z"))
    );
    let alone = quiet_until(
        None,
        Some(utc("2026-06-10T23:00:00Z")),
        utc("2026-06-10T12:00:00Z"),
        Berlin,
    );
    assert_eq!(alone, Some(utc("2026-06-10T23:00:00Z")));
}

#[test]
fn an_override_that_runs_into_the_window_lasts_to_the_window_end() {
    let window_end = Some(utc("2026-06-11T06:00:00Z"));
    assert_eq!(
        until(Some("2026-06-10T21:00:00Z"), "2026-06-10T19:00:00Z"),
        window_end
    );
    // Ending exactly as the window opens: the quiet runs on without a break.
    assert_eq!(
        until(Some("2026-06-10T20:00:00Z"), "2026-06-10T19:00:00Z"),
        window_end
    );
    // Set inside the window, ending before it does.
    assert_eq!(
        until(Some("2026-06-11T01:00:00Z"), "2026-06-10T23:00:00Z"),
        window_end
    );
    // Reaching into the next night's window.
    let next_end = Some(utc("2026-06-12T06:00:00Z"));
    assert_eq!(
        until(Some("2026-06-11T21:00:00Z"), "2026-06-10T12:00:00Z"),
        next_end
    );
}

#[test]
fn an_override_that_outlasts_the_window_gives_its_own_end() {
    let manual = Some(utc("2026-06-11T07:00:00Z"));
    assert_eq!(
        until(Some("2026-06-11T07:00:00Z"), "2026-06-11T05:00:00Z"),
        manual
    );
    let touching = Some(utc("2026-06-11T06:00:00Z"));
    assert_eq!(
        until(Some("2026-06-11T06:00:00Z"), "2026-06-10T23:00:00Z"),
        touching
    );
}

#[test]
fn quiet_until_follows_the_window_through_a_clock_change() {
    let night = window("22:00-08:00");
    let at = utc("2026-03-28T23:00:00Z");
    assert_eq!(
        quiet_until(Some(&night), None, at, Berlin),
        Some(utc("2026-03-29T06:00:00Z"))
    );
    let manual = Some(utc("2026-03-28T21:30:00Z"));
    let from_evening = quiet_until(Some(&night), manual, utc("2026-03-28T20:00:00Z"), Berlin);
    assert_eq!(from_evening, Some(utc("2026-03-29T06:00:00Z")));
}

#[test]
fn quiet_for_a_while_ends_after_that_while() {
    let at = utc("2026-06-10T12:00:00Z");
    let two_hours = QuietUntil::starting(at, std::time::Duration::from_secs(2 * 3600));
    assert_eq!(two_hours, QuietUntil(utc("2026-06-10T14:00:00Z")));
    assert!(two_hours.contains(at));
    assert!(!two_hours.contains(utc("2026-06-10T14:00:00Z")));
    let forever = QuietUntil::starting(at, std::time::Duration::MAX);
    assert_eq!(forever, QuietUntil(DateTime::<Utc>::MAX_UTC));
    let stored = serde_json::to_string(&two_hours).unwrap();
    assert_eq!(
        serde_json::from_str::<QuietUntil>(&stored).unwrap(),
        two_hours
    );
}

/// QUI-6: a night the owner ended holds nothing until its end, even where a "quiet for …"
/// runs into it; the next night holds again.
#[test]
fn an_ended_night_holds_nothing_until_the_next_one() {
    let night = window("22:00-08:00");
    let resumes = Some(utc("2026-06-11T06:00:00Z"));
    let at = |at| quiet_until_resuming(Some(&night), resumes, None, utc(at), Berlin);
    assert_eq!(at("2026-06-10T23:00:00Z"), None);
    assert_eq!(
        at("2026-06-11T20:00:00Z"),
        Some(utc("2026-06-12T06:00:00Z"))
    );
    let manual = Some(utc("2026-06-11T01:00:00Z"));
    let for_a_while = quiet_until_resuming(
        Some(&night),
        resumes,
        manual,
        utc("2026-06-10T23:00:00Z"),
        Berlin,
    );
    assert_eq!(for_a_while, manual);
}
