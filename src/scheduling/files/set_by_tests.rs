//! REM-15: who set a reminder, read from its frontmatter.

use super::*;

const TZ: chrono_tz::Tz = chrono_tz::UTC;

/// A reminder file with `extra` frontmatter lines after `id` and `run-at`.
fn reminder_with(extra: &str) -> String {
    format!("---\nid: \"m1\"\nrun-at: \"2026-02-24T13:00:00-08:00\"\n{extra}---\nDo it.\n")
}

fn reminder_err(text: &str) -> String {
    parse_reminder(text, TZ).unwrap_err()
}

/// REM-15: `set-by` and `generation` come together or not at all, so a damaged key never reads
/// as the owner's.
#[test]
fn who_set_a_reminder_is_read_whole() {
    let owner = parse_reminder(&reminder_with(""), TZ).unwrap();
    assert_eq!(owner.set_by, SetBy::Owner);
    let run = parse_reminder(
        &reminder_with("set-by: \"routine:r1\"\ngeneration: 2\n"),
        TZ,
    )
    .unwrap();
    assert_eq!(
        run.set_by,
        SetBy::Background {
            job: "routine:r1".into(),
            generation: 2,
        }
    );
    for (extra, reason) in [
        ("generation: 1\n", "\"generation\" needs \"set-by\""),
        (
            "set-by: \"routine:r1\"\n",
            "\"set-by\" needs a \"generation\" of 1 or more",
        ),
        (
            "set-by: \" \"\ngeneration: 1\n",
            "\"set-by\" must name a job, e.g. \"routine:abc\", on one line",
        ),
        (
            "set-by: \"routine:r1\"\ngeneration: -1\n",
            "\"generation\" must be a whole number (0 or more)",
        ),
    ] {
        assert_eq!(reminder_err(&reminder_with(extra)), reason, "{extra}");
    }
}
