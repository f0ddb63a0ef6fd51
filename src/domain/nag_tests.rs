use chrono_tz::{America::New_York, Europe::Berlin};

use super::*;

fn utc(text: &str) -> DateTime<Utc> {
    text.parse().unwrap()
}

fn minutes(count: u64) -> Duration {
    Duration::from_secs(count * 60)
}

fn gaps(policy: &NagPolicy, count: u32) -> Vec<u64> {
    (1..=count)
        .map(|nth| policy.gap_before(nth).as_secs() / 60)
        .collect()
}

#[test]
fn default_gaps_double_from_ten_minutes_up_to_two_hours() {
    let policy = NagPolicy::default();
    assert_eq!(gaps(&policy, 8), [10, 20, 40, 80, 120, 120, 120, 120]);
    assert_eq!(policy.gap_before(0), policy.gap_before(1));
    assert_eq!(policy.gap_before(u32::MAX), minutes(120));
    assert_eq!(policy.max_nags, None);
}

#[test]
fn a_custom_first_gap_or_factor_shapes_the_gaps() {
    let every = |first_gap| NagPolicy {
        first_gap,
        ..NagPolicy::default()
    };
    assert_eq!(gaps(&every(minutes(30)), 4), [30, 60, 120, 120]);
    // A first gap longer than the cap is kept, not cut to the cap.
    assert_eq!(gaps(&every(minutes(180)), 3), [180, 180, 180]);
    let factor = |factor| NagPolicy {
        factor,
        ..NagPolicy::default()
    };
    assert_eq!(gaps(&factor(3), 4), [10, 30, 90, 120]);
    assert_eq!(gaps(&factor(1), 3), [10, 10, 10]);
    assert_eq!(gaps(&factor(0), 3), [10, 10, 10]);
}

#[test]
fn a_gap_is_never_under_a_minute() {
    let hasty = NagPolicy {
        first_gap: Duration::ZERO,
        cap: Duration::ZERO,
        ..NagPolicy::default()
    };
    assert_eq!(hasty.gap_before(1), MIN_GAP);
    assert_eq!(hasty.gap_before(5), MIN_GAP);
}

#[test]
fn the_next_nag_is_one_gap_after_the_last_ping() {
    let policy = NagPolicy::default();
    let reminder = utc("2026-06-10T07:00:00Z");
    assert_eq!(
        policy.next_after(reminder, 0),
        Some(utc("2026-06-10T07:10:00Z"))
    );
    let fourth = utc("2026-06-10T09:30:00Z");
    assert_eq!(
        policy.next_after(fourth, 4),
        Some(utc("2026-06-10T11:30:00Z"))
    );
}

#[test]
fn nagging_stops_at_max_nags() {
    let three = NagPolicy {
        max_nags: Some(3),
        ..NagPolicy::default()
    };
    let at = utc("2026-06-10T07:00:00Z");
    assert!(three.next_after(at, 2).is_some());
    assert_eq!(three.next_after(at, 3), None);
    assert_eq!(three.next_after(at, 4), None);
    let none = NagPolicy {
        max_nags: Some(0),
        ..NagPolicy::default()
    };
    assert_eq!(none.next_after(at, 0), None);
}

#[test]
fn never_more_than_twelve_nags_whatever_max_nags_says() {
    let at = utc("2026-06-10T07:00:00Z");
    for max_nags in [None, Some(12), Some(50), Some(u32::MAX)] {
        let policy = NagPolicy {
            max_nags,
            ..NagPolicy::default()
        };
        assert_eq!(policy.limit(), NAG_CEILING);
        assert!(policy.next_after(at, 11).is_some(), "{max_nags:?}");
        assert_eq!(policy.next_after(at, 12), None, "{max_nags:?}");
    }
}

#[test]
fn twelve_default_nags_span_most_of_a_day() {
    let policy = NagPolicy::default();
    let mut at = utc("2026-06-10T07:00:00Z");
    let mut sent = 0;
    while let Some(next) = policy.next_after(at, sent) {
        at = next;
        sent += 1;
    }
    assert_eq!(sent, 12);
    // 10 + 20 + 40 + 80 + 8 × 120 minutes = 18 h 30 min.
    assert_eq!(at, utc("2026-06-11T01:30:00Z"));
}

#[test]
fn reads_gaps_in_minutes_and_hours() {
    let cases = [
        ("10m", 10),
        ("1h", 60),
        ("90m", 90),
        ("1h30m", 90),
        ("1h 30m", 90),
        (" 1H30M ", 90),
        ("2 hours", 120),
        ("1 hr 5 mins", 65),
        ("45 min", 45),
        ("1m", 1),
        ("24h", 1440),
        ("1440m", 1440),
    ];
    for (text, expected) in cases {
        assert_eq!(parse_gap(text), Ok(minutes(expected)), "{text}");
    }
}

#[test]
fn refuses_gaps_saying_why() {
    let cases = [
        ("", GapError::Empty),
        ("  ", GapError::Empty),
        ("10", GapError::NoUnit("10".into())),
        ("0m", GapError::TooShort("0m".into())),
        ("25h", GapError::TooLong("25h".into())),
        ("24h1m", GapError::TooLong("24h1m".into())),
        (
            "99999999999999999999m",
            GapError::TooLong("99999999999999999999m".into()),
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(parse_gap(text), Err(expected), "{text:?}");
    }
    for text in [
        "10s",
        "1.5h",
        "30m1h",
        "1h1h",
        "h",
        "-5m",
        "1h30",
        "ten minutes",
        "1d",
    ] {
        assert_eq!(
            parse_gap(text),
            Err(GapError::NotAGap(text.into())),
            "{text}"
        );
    }
    for text in ["", "10", "10s"] {
        let message = parse_gap(text).unwrap_err().to_string();
        assert!(message.contains("10m"), "{message}");
    }
}

#[test]
fn snooze_buttons_have_their_labels_and_ids_that_read_back() {
    let labels: Vec<&str> = Snooze::ALL.iter().map(|snooze| snooze.label()).collect();
    assert_eq!(
        labels,
        ["10 min", "1 h", "This evening", "Tomorrow morning"]
    );
    for snooze in Snooze::ALL {
        assert_eq!(Snooze::from_id(snooze.id()), Some(snooze));
        assert!(snooze.id().len() <= 10 && snooze.id().bytes().all(|b| b.is_ascii_alphanumeric()));
    }
    assert_eq!(Snooze::from_id("later"), None);
}

#[test]
fn ten_minutes_and_an_hour_are_from_now() {
    let at = utc("2026-06-10T12:34:00Z");
    assert_eq!(
        Snooze::TenMinutes.until(at, Berlin),
        utc("2026-06-10T12:44:00Z")
    );
    assert_eq!(
        Snooze::OneHour.until(at, Berlin),
        utc("2026-06-10T13:34:00Z")
    );
}

#[test]
fn this_evening_is_19_00_unless_that_is_under_half_an_hour_away() {
    // Berlin in June is UTC+2: 19:00 is 17:00 UTC.
    let evening = |at| Snooze::ThisEvening.until(utc(at), Berlin);
    assert_eq!(evening("2026-06-10T08:00:00Z"), utc("2026-06-10T17:00:00Z"));
    assert_eq!(evening("2026-06-10T16:30:00Z"), utc("2026-06-10T17:00:00Z"));
    assert_eq!(evening("2026-06-10T16:31:00Z"), utc("2026-06-10T17:31:00Z"));
    assert_eq!(evening("2026-06-10T20:00:00Z"), utc("2026-06-10T21:00:00Z"));
    // At 01:00 local, this evening is the coming one.
    assert_eq!(evening("2026-06-10T23:00:00Z"), utc("2026-06-11T17:00:00Z"));
}

#[test]
fn tomorrow_morning_is_09_00_and_before_05_00_it_is_todays() {
    let morning = |at| Snooze::TomorrowMorning.until(utc(at), Berlin);
    assert_eq!(morning("2026-06-10T12:00:00Z"), utc("2026-06-11T07:00:00Z"));
    assert_eq!(morning("2026-06-10T21:30:00Z"), utc("2026-06-11T07:00:00Z"));
    // 01:00 and 04:59 local on the 11th: still last night.
    assert_eq!(morning("2026-06-10T23:00:00Z"), utc("2026-06-11T07:00:00Z"));
    assert_eq!(morning("2026-06-11T02:59:00Z"), utc("2026-06-11T07:00:00Z"));
    // 05:00 local: the night is over.
    assert_eq!(morning("2026-06-11T03:00:00Z"), utc("2026-06-12T07:00:00Z"));
}

#[test]
fn snoozes_land_on_local_times_across_clock_changes() {
    // Berlin springs forward on 29 March 2026: 21:00 CET, then 09:00 CEST.
    let at = utc("2026-03-28T20:00:00Z");
    assert_eq!(
        Snooze::TomorrowMorning.until(at, Berlin),
        utc("2026-03-29T07:00:00Z")
    );
    let at = utc("2026-03-29T08:00:00Z");
    assert_eq!(
        Snooze::ThisEvening.until(at, Berlin),
        utc("2026-03-29T17:00:00Z")
    );
    // Berlin falls back on 25 October 2026: 09:00 CET is 08:00 UTC.
    let at = utc("2026-10-24T20:00:00Z");
    assert_eq!(
        Snooze::TomorrowMorning.until(at, Berlin),
        utc("2026-10-25T08:00:00Z")
    );
    // New York springs forward on 8 March 2026; 01:30 EST is before 05:00.
    let at = utc("2026-03-08T06:30:00Z");
    assert_eq!(
        Snooze::TomorrowMorning.until(at, New_York),
        utc("2026-03-08T13:00:00Z")
    );
    // New York falls back on 1 November 2026: 22:00 EDT, then 09:00 and 19:00 EST.
    let at = utc("2026-11-01T02:00:00Z");
    assert_eq!(
        Snooze::TomorrowMorning.until(at, New_York),
        utc("2026-11-01T14:00:00Z")
    );
    let at = utc("2026-11-01T17:00:00Z");
    assert_eq!(
        Snooze::ThisEvening.until(at, New_York),
        utc("2026-11-02T00:00:00Z")
    );
}

#[test]
fn outcomes_read_as_one_plain_line() {
    let snoozed = NagOutcome::Snoozed(utc("2026-06-10T17:00:00Z"));
    let cases = [
        (NagOutcome::Done, 0, "meds: done at 9:40, right away"),
        (NagOutcome::Done, 1, "meds: done at 9:40, nudged once"),
        (NagOutcome::Done, 2, "meds: done at 9:40 after two nudges"),
        (
            NagOutcome::Done,
            12,
            "meds: done at 9:40 after twelve nudges",
        ),
        (NagOutcome::Done, 13, "meds: done at 9:40 after 13 nudges"),
        (NagOutcome::NotToday, 3, "meds: not today"),
        (NagOutcome::Dropped, 2, "meds: dropped from the nag list"),
        (snoozed, 1, "meds: snoozed until 9:40"),
        (
            NagOutcome::GaveUp,
            0,
            "meds: no answer yet; it's still in /nags",
        ),
        (
            NagOutcome::GaveUp,
            1,
            "meds: no answer, nudged once; it's still in /nags",
        ),
        (
            NagOutcome::GaveUp,
            12,
            "meds: no answer after twelve nudges; it's still in /nags",
        ),
    ];
    for (outcome, nags, expected) in cases {
        assert_eq!(outcome.summary("meds", nags, "9:40"), expected);
    }
    assert_eq!(
        snoozed.summary("meds", 0, "19:00"),
        "meds: snoozed until 19:00"
    );
}

#[test]
fn counts_up_to_twelve_are_words() {
    let words = [
        "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
    ];
    for (nags, word) in (2..=12).zip(words) {
        let text = NagOutcome::Done.summary("walk", nags, "noon");
        assert!(text.contains(&format!("after {word} nudges")), "{text}");
        assert!(!text.bytes().any(|b| b.is_ascii_digit()), "{text}");
    }
}

#[test]
fn no_outcome_scolds() {
    let outcomes = [
        NagOutcome::Done,
        NagOutcome::NotToday,
        NagOutcome::Snoozed(utc("2026-06-10T17:00:00Z")),
        NagOutcome::GaveUp,
    ];
    for outcome in outcomes {
        for nags in 0..=20 {
            let text = outcome.summary("meds", nags, "9:40").to_lowercase();
            for word in ["missed", "failed", "forgot", "ignored", "late", "overdue"] {
                assert!(!text.contains(word), "{word:?} in {text:?}");
            }
        }
    }
}

#[test]
fn format_gap_writes_what_parse_gap_reads_back_nag_1() {
    for (gap, text) in [
        (1, "1m"),
        (15, "15m"),
        (60, "1h"),
        (90, "1h30m"),
        (1440, "24h"),
    ] {
        assert_eq!(format_gap(minutes(gap)), text);
        assert_eq!(parse_gap(text), Ok(minutes(gap)), "{text}");
    }
    assert_eq!(format_gap(Duration::from_secs(30)), "1m");
    assert_eq!(format_gap(Duration::from_secs(119)), "1m");
}
