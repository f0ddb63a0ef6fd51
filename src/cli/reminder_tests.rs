//! NAG-2: `reminder add --until-done [--nag-every GAP] [--max-nags N]`: what clap takes and
//! refuses, and what the file gets.

use std::time::Duration;

use clap::Parser;

use super::*;
use crate::cli::{Cli, Command};

const TZ: Tz = chrono_tz::Europe::Berlin;

fn parse(extra: &[&str]) -> Result<ReminderAdd, clap::Error> {
    let mut args = vec!["ollim-bot", "reminder", "add", "-m", "Meds", "--delay", "5"];
    args.extend_from_slice(extra);
    match Cli::try_parse_from(args)?.command {
        Some(Command::Reminder {
            action: ReminderCommand::Add(add),
        }) => Ok(*add),
        other => panic!("not reminder add: {other:?}"),
    }
}

#[test]
fn nag_2_until_done_flags_give_the_reminders_settings() {
    assert_eq!(parse(&[]).unwrap().until_done(), None);
    assert_eq!(
        parse(&["--until-done"]).unwrap().until_done(),
        Some(UntilDone::default())
    );
    let add = parse(&["--until-done", "--nag-every", "1h30m", "--max-nags", "6"]).unwrap();
    assert_eq!(
        add.until_done(),
        Some(UntilDone {
            nag_every: Some(Duration::from_secs(90 * 60)),
            max_nags: Some(6),
        })
    );
}

#[test]
fn nag_2_bad_values_are_refused_at_the_command_line() {
    for (extra, needle) in [
        (&["--until-done", "--nag-every", "15"][..], "needs a unit"),
        (&["--until-done", "--nag-every", "2d"], "isn't a gap"),
        (&["--until-done", "--nag-every", "25h"], "longer than a day"),
        (&["--until-done", "--max-nags", "0"], "1..=12"),
        (&["--until-done", "--max-nags", "13"], "1..=12"),
        (&["--nag-every", "15m"], "--until-done"),
        (&["--max-nags", "3"], "--until-done"),
    ] {
        let error = parse(extra).unwrap_err().to_string();
        assert!(error.contains(needle), "{extra:?}: {error}");
    }
}

#[test]
fn nag_2_reminder_add_writes_the_keys() {
    let tmp = tempfile::tempdir().unwrap();
    let data_dir = DataDir::new(tmp.path());
    let add = parse(&["--until-done", "--nag-every", "15m", "--max-nags", "3"]).unwrap();
    assert_eq!(
        run(
            &data_dir,
            TZ,
            chrono::Utc::now(),
            ReminderCommand::Add(Box::new(add))
        ),
        0
    );
    let (files, problems) = load_reminders(&data_dir, TZ);
    assert!(problems.is_empty(), "{problems:?}");
    let [file] = files.as_slice() else {
        panic!("one reminder expected: {files:?}");
    };
    let policy = file.item.nag_policy().unwrap();
    assert_eq!(
        (policy.first_gap, policy.max_nags),
        (Duration::from_secs(15 * 60), Some(3))
    );
    let text = std::fs::read_to_string(tmp.path().join(&file.path)).unwrap();
    assert!(
        text.contains("until-done: true\nnag-every: \"15m\"\nmax-nags: 3\n"),
        "{text}"
    );
    assert!(schedule(&file.item, TZ).ends_with(" (until done)"));
}
