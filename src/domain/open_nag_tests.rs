use chrono::TimeZone;

use super::*;

fn at(h: u32, m: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 28, h, m, 0).unwrap()
}

fn meds(policy: NagPolicy) -> OpenNag {
    OpenNag::open(
        "a1b2c3d4".into(),
        "meds".into(),
        "Take your meds".into(),
        policy,
        at(9, 0),
    )
}

/// NAG-6.
#[test]
fn an_open_reminder_nags_at_widening_gaps_then_rests() {
    let mut nag = meds(NagPolicy {
        max_nags: Some(3),
        ..NagPolicy::default()
    });
    assert_eq!(nag.wait, NagWait::Due { at: at(9, 10) });
    assert!(!nag.is_due(at(9, 9)));
    assert!(nag.is_due(at(9, 10)));
    // Sent late (quiet time, the budget): the next gap counts from when it went out.
    nag.nagged(at(9, 12));
    assert_eq!(nag.wait, NagWait::Due { at: at(9, 32) });
    nag.nagged(at(9, 32));
    assert_eq!(nag.wait, NagWait::Due { at: at(10, 12) });
    nag.nagged(at(10, 12));
    assert!(nag.is_resting());
    assert!(!nag.is_due(at(23, 0)));
    assert_eq!(nag.nudges, 3);
}

/// NAG-7.
#[test]
fn a_snooze_moves_it_and_counts_the_gaps_afresh() {
    let mut nag = meds(NagPolicy::default());
    nag.nagged(at(9, 10));
    nag.nagged(at(9, 30));
    nag.snoozed(at(19, 0));
    assert_eq!(nag.wait, NagWait::Snoozed { at: at(19, 0) });
    assert_eq!(nag.wait.due_at(), Some(at(19, 0)));
    nag.nagged(at(19, 0));
    // The snooze's end was the round's first nag: the second gap follows, and the nudges
    // keep their total.
    assert_eq!(nag.wait, NagWait::Due { at: at(19, 20) });
    assert_eq!((nag.round, nag.nudges), (1, 3));
}

#[test]
fn it_survives_the_file_it_is_kept_in() {
    let mut nag = meds(NagPolicy::default());
    nag.snoozed(at(19, 0));
    let text = serde_json::to_string(&nag).unwrap();
    let back: OpenNag = serde_json::from_str(&text).unwrap();
    assert_eq!(back, nag);
}

#[test]
fn labels_are_short_and_named_by_the_description_first() {
    assert_eq!(label_of("meds", "Take the blue pill"), "meds");
    assert_eq!(
        label_of("  ", "\n  Take the blue pill\nwith water"),
        "Take the blue pill"
    );
    assert_eq!(label_of("", ""), "reminder");
    let long = "Call the dentist about moving the appointment to a day when the kids are at school";
    let label = label_of("", long);
    assert!(label.ends_with('…'), "{label}");
    assert!(label.chars().count() <= LABEL_CHARS + 1, "{label}");
    assert!(long.starts_with(label.trim_end_matches('…')), "{label}");
}

/// NAG-9.
#[test]
fn its_status_says_how_often_it_nudged_and_what_comes_next() {
    let tz = chrono_tz::Europe::Berlin;
    let mut nag = meds(NagPolicy::default());
    assert_eq!(
        nag.status(at(9, 5), tz),
        "meds (since 10:00): not nudged yet, next nudge at 10:10"
    );
    assert_eq!(
        nag.status(at(9, 11), tz),
        "meds (since 10:00): not nudged yet, next nudge due now"
    );
    nag.nagged(at(9, 10));
    nag.nagged(at(9, 30));
    nag.snoozed(at(18, 0));
    assert_eq!(
        nag.status(at(9, 31), tz),
        "meds (since 10:00): nudged twice, snoozed until 19:00"
    );
}
