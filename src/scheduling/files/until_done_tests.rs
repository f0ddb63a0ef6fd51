//! NAG-1: a reminder's `until-done`, `nag-every` and `max-nags` keys: read, written back, the
//! problems a file can have with them, and the nag policy they ask for.

use std::time::Duration;

use chrono_tz::Tz;

use super::*;
use crate::domain::nag::{NAG_CEILING, NagPolicy};

const TZ: Tz = chrono_tz::Europe::Berlin;

/// A reminder file with `extra` frontmatter lines after `id` and `run-at`.
fn reminder_with(extra: &str) -> String {
    format!("---\nid: \"m1\"\nrun-at: \"2026-02-24T13:00:00+01:00\"\n{extra}---\nMeds.\n")
}

fn read(extra: &str) -> Result<Reminder, String> {
    parse_reminder(&reminder_with(extra), TZ)
}

fn minutes(count: u64) -> Duration {
    Duration::from_secs(count * 60)
}

#[test]
fn nag_1_until_done_and_its_settings_are_read() {
    let plain = read("").unwrap();
    assert_eq!(plain.until_done, None);
    assert_eq!(plain.nag_policy(), None, "a plain reminder fires once");

    let open = read("until-done: true\n").unwrap();
    assert_eq!(open.until_done, Some(UntilDone::default()));
    assert_eq!(open.nag_policy(), Some(NagPolicy::default()));

    let tuned = read("until-done: true\nnag-every: 15m\nmax-nags: 6\n").unwrap();
    let until_done = UntilDone {
        nag_every: Some(minutes(15)),
        max_nags: Some(6),
    };
    assert_eq!(tuned.until_done, Some(until_done));
    let policy = tuned.nag_policy().unwrap();
    assert_eq!(policy.first_gap, minutes(15));
    assert_eq!(policy.max_nags, Some(6));
    assert_eq!(
        (policy.factor, policy.cap),
        (NagPolicy::default().factor, NagPolicy::default().cap)
    );

    // snake_case, quoted values, the other gap spellings and `until-done: false`.
    let legacy = read("until_done: yes\nnag_every: \"1h 30m\"\nmax_nags: 12\n").unwrap();
    assert_eq!(
        legacy.until_done,
        Some(UntilDone {
            nag_every: Some(minutes(90)),
            max_nags: Some(NAG_CEILING),
        })
    );
    assert_eq!(read("until-done: false\n").unwrap().until_done, None);
}

#[test]
fn nag_1_bad_values_are_file_problems_that_say_why() {
    let cases = [
        (
            "until-done: maybe\n",
            "\"until-done\" must be true or false",
        ),
        (
            "until-done: true\nnag-every: 15\n",
            "\"nag-every\": '15' needs a unit: 10m for minutes or 1h for hours",
        ),
        (
            "until-done: true\nnag-every: often\n",
            "\"nag-every\": 'often' isn't a gap; use minutes and hours like 10m, 90m or 1h30m",
        ),
        (
            "until-done: true\nnag-every: 30s\n",
            "\"nag-every\": '30s' isn't a gap; use minutes and hours like 10m, 90m or 1h30m",
        ),
        (
            "until-done: true\nnag-every: 25h\n",
            "\"nag-every\": '25h' is longer than a day; use 24h or less",
        ),
        (
            "until-done: true\nmax-nags: 0\n",
            "\"max-nags\" must be a whole number from 1 to 12",
        ),
        (
            "until-done: true\nmax-nags: 13\n",
            "\"max-nags\" must be a whole number from 1 to 12",
        ),
        (
            "until-done: true\nmax-nags: -1\n",
            "\"max-nags\" must be a whole number from 1 to 12",
        ),
        (
            "until-done: true\nmax-nags: three\n",
            "\"max-nags\" must be a whole number from 1 to 12",
        ),
    ];
    for (extra, reason) in cases {
        assert_eq!(read(extra).unwrap_err(), reason, "{extra}");
    }
}

#[test]
fn nag_1_settings_without_until_done_are_a_problem_not_ignored() {
    for (extra, key) in [
        ("nag-every: 15m\n", "nag-every"),
        ("max-nags: 3\n", "max-nags"),
        ("until-done: false\nmax-nags: 3\n", "max-nags"),
        ("nag-every: 15m\nmax-nags: 3\n", "nag-every"),
    ] {
        assert_eq!(
            read(extra).unwrap_err(),
            format!(
                "\"{key}\" only applies to a reminder that stays open until answered; add \
                 until-done: true, or remove \"{key}\""
            ),
            "{extra}"
        );
    }
}

#[test]
fn nag_1_until_done_renders_after_the_chain_keys_and_round_trips() {
    let mut reminder = parse_reminder(&reminder_with("max-chain: 2\n"), TZ).unwrap();
    reminder.until_done = Some(UntilDone {
        nag_every: Some(minutes(90)),
        max_nags: Some(4),
    });
    let text = render_reminder(&reminder);
    assert_eq!(
        text,
        "---\nid: \"m1\"\nrun-at: \"2026-02-24T13:00:00+01:00\"\nmax-chain: 2\n\
         until-done: true\nnag-every: \"1h30m\"\nmax-nags: 4\n---\nMeds.\n"
    );
    assert_eq!(parse_reminder(&text, TZ).unwrap(), reminder);

    for until_done in [
        None,
        Some(UntilDone::default()),
        Some(UntilDone {
            nag_every: Some(minutes(1)),
            max_nags: None,
        }),
        Some(UntilDone {
            nag_every: None,
            max_nags: Some(1),
        }),
    ] {
        reminder.until_done = until_done;
        let back = parse_reminder(&render_reminder(&reminder), TZ).unwrap();
        assert_eq!(back, reminder);
    }
    reminder.until_done = Some(UntilDone::default());
    assert!(render_reminder(&reminder).contains("\nuntil-done: true\n---\n"));
}

#[test]
fn nag_1_a_reminder_that_would_not_load_back_is_not_written() {
    let (_tmp, data_dir) = super::store_tests::data_dir();
    let mut reminder = Reminder::new_in(30, "Meds.", chrono::Utc::now().with_timezone(&TZ));
    reminder.until_done = Some(UntilDone {
        nag_every: None,
        max_nags: Some(NAG_CEILING + 1),
    });
    let error = write_reminder(&data_dir, &reminder, Commit::Skip).unwrap_err();
    assert!(error.to_string().contains("\"max-nags\""), "{error}");
}

#[test]
fn nag_1_the_keys_belong_to_reminders_and_routines() {
    let reminder = reminder_with("until-done: true\nnag-every: 15m\nmax-nags: 6\n");
    assert!(reminder_notes(&reminder).is_empty());
    let routine = "---\nid: r1\ncron: \"0 9 * * *\"\nuntil-done: true\nmax-nags: 3\n---\nHi\n";
    let parsed = parse_routine(routine).unwrap();
    assert_eq!(
        parsed.until_done,
        Some(UntilDone {
            nag_every: None,
            max_nags: Some(3)
        })
    );
    assert!(routine_notes(routine).is_empty());
    assert_eq!(parse_routine(&render_routine(&parsed)).unwrap(), parsed);
    let stray = "---\nid: r1\ncron: \"0 9 * * *\"\nnag-every: 5m\n---\nHi\n";
    assert!(
        parse_routine(stray)
            .unwrap_err()
            .contains("until-done: true")
    );
    let run_at = "---\nid: r1\ncron: \"0 9 * * *\"\nrun-at: \"2026-01-01T09:00:00Z\"\n---\nHi\n";
    assert_eq!(routine_notes(run_at), ["unknown key \"run-at\" is ignored"]);
}

#[test]
fn nag_1_max_nags_is_checked_against_the_ceiling() {
    assert_eq!(UntilDone::check_max_nags(1), Ok(1));
    assert_eq!(UntilDone::check_max_nags(NAG_CEILING), Ok(NAG_CEILING));
    for bad in [0, NAG_CEILING + 1, u32::MAX] {
        assert_eq!(
            UntilDone::check_max_nags(bad).unwrap_err(),
            "\"max-nags\" must be a whole number from 1 to 12"
        );
    }
}
