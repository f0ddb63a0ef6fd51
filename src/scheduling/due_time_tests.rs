use chrono::{Datelike, TimeZone, Timelike};
use chrono_tz::Tz;

use super::*;

const BERLIN: Tz = chrono_tz::Europe::Berlin;
const NEW_YORK: Tz = chrono_tz::America::New_York;

fn at(tz: Tz, y: i32, mo: u32, d: u32, h: u32, mi: u32) -> DateTime<Tz> {
    tz.with_ymd_and_hms(y, mo, d, h, mi, 0).earliest().unwrap()
}

fn shown(time: DateTime<FixedOffset>) -> String {
    time.format("%Y-%m-%d %H:%M %:z").to_string()
}

#[test]
fn delays_and_durations_count_from_now() {
    let now = at(BERLIN, 2026, 6, 1, 10, 0);
    let delay = resolve(&DueInput::DelayMinutes(30), now).unwrap();
    assert_eq!(shown(delay), "2026-06-01 10:30 +02:00");
    for (text, expected) in [
        ("2h30m", "2026-06-01 12:30 +02:00"),
        ("90m", "2026-06-01 11:30 +02:00"),
        ("1h 15m", "2026-06-01 11:15 +02:00"),
        ("1d", "2026-06-02 10:00 +02:00"),
        (" 45min ", "2026-06-01 10:45 +02:00"),
    ] {
        assert_eq!(
            shown(resolve(&DueInput::In(text.into()), now).unwrap()),
            expected,
            "{text}"
        );
    }
    assert_eq!(
        resolve(&DueInput::DelayMinutes(-1), now),
        Err(DueTimeError::NegativeDelay)
    );
    let bad = resolve(&DueInput::In("soon".into()), now).unwrap_err();
    assert!(
        bad.to_string()
            .starts_with("--in \"soon\" is not a duration"),
        "{bad}"
    );
    // The complaint is in words, never the parser's offsets.
    for (text, complaint) in [
        ("m", "(a number must come first)"),
        ("5x", "(unknown unit \"x\": use m, h or d)"),
    ] {
        let bad = resolve(&DueInput::In(text.into()), now).unwrap_err();
        assert!(bad.to_string().contains(complaint), "{bad}");
    }
}

#[test]
fn a_clock_time_is_the_next_one() {
    let now = at(BERLIN, 2026, 6, 1, 10, 0);
    let later = resolve(&DueInput::At("15:30".into()), now).unwrap();
    assert_eq!(shown(later), "2026-06-01 15:30 +02:00");
    let passed = resolve(&DueInput::At("09:15".into()), now).unwrap();
    assert_eq!(shown(passed), "2026-06-02 09:15 +02:00");
    let this_minute = resolve(&DueInput::At("10:00".into()), now).unwrap();
    assert_eq!(this_minute.day(), 2, "now itself is already past");
}

#[test]
fn a_date_and_time_must_be_ahead() {
    let now = at(BERLIN, 2026, 11, 25, 12, 0);
    for text in [
        "2026-12-01 09:00",
        "2026-12-01T09:00",
        "2026-12-01 09:00:00",
    ] {
        assert_eq!(
            shown(resolve(&DueInput::At(text.into()), now).unwrap()),
            "2026-12-01 09:00 +01:00",
            "{text}"
        );
    }
    let past = resolve(&DueInput::At("2026-11-25 11:59".into()), now).unwrap_err();
    assert_eq!(
        past.to_string(),
        "--at \"2026-11-25 11:59\" is in the past (it is 2026-11-25 12:00 now)"
    );
    for text in ["3pm", "25:00", "2026-13-01 09:00", ""] {
        assert_eq!(
            resolve(&DueInput::At(text.into()), now),
            Err(DueTimeError::BadTime(text.into())),
            "{text}"
        );
    }
}

#[test]
fn durations_cross_daylight_saving_in_real_time() {
    // New York springs forward at 02:00 on 2026-03-08: 01:30 EST + 1h = 03:30 EDT.
    let now = at(NEW_YORK, 2026, 3, 8, 1, 30);
    let due = resolve(&DueInput::In("1h".into()), now).unwrap();
    assert_eq!(shown(due), "2026-03-08 03:30 -04:00");
}

#[test]
fn a_skipped_time_is_refused_and_a_doubled_one_is_the_first() {
    // Spring forward: 02:30 does not exist in New York on 2026-03-08.
    let before = at(NEW_YORK, 2026, 3, 8, 0, 10);
    let skipped = resolve(&DueInput::At("02:30".into()), before).unwrap_err();
    assert_eq!(
        skipped.to_string(),
        "02:30:00 does not exist on 2026-03-08 in America/New_York: the clocks jump forward \
         then; pick another time"
    );
    // Fall back: 01:30 happens twice on 2026-11-01; the first (EDT) is meant.
    let before = at(NEW_YORK, 2026, 11, 1, 0, 10);
    let doubled = resolve(&DueInput::At("2026-11-01 01:30".into()), before).unwrap();
    assert_eq!(shown(doubled), "2026-11-01 01:30 -04:00");
    assert_eq!(doubled.hour(), 1);
}
