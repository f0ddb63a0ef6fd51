//! NAG-3: the `add_reminder` tool's `until_done`, `nag_every` and `max_nags` arguments.

use std::time::Duration;

use super::*;

fn args(
    until_done: Option<bool>,
    nag_every: Option<&str>,
    max_nags: Option<i64>,
) -> AddReminderArgs {
    AddReminderArgs {
        prompt: "Meds".to_owned(),
        delay_minutes: Some(5),
        run_at: None,
        description: None,
        foreground: None,
        max_chain: None,
        until_done,
        nag_every: nag_every.map(str::to_owned),
        max_nags,
    }
}

#[test]
fn nag_3_until_done_arguments_become_the_reminders_settings() {
    assert_eq!(until_done_of(&args(None, None, None)), Ok(None));
    assert_eq!(until_done_of(&args(Some(false), None, None)), Ok(None));
    assert_eq!(
        until_done_of(&args(Some(true), None, None)),
        Ok(Some(UntilDone::default()))
    );
    assert_eq!(
        until_done_of(&args(Some(true), Some("1h30m"), Some(12))),
        Ok(Some(UntilDone {
            nag_every: Some(Duration::from_secs(90 * 60)),
            max_nags: Some(12),
        }))
    );
}

#[test]
fn nag_3_bad_values_answer_an_error() {
    for (call, answer) in [
        (
            args(Some(true), Some("15"), None),
            "Error: nag_every: '15' needs a unit: 10m for minutes or 1h for hours.",
        ),
        (
            args(Some(true), Some("0m"), None),
            "Error: nag_every: '0m' is too often; nag at most once a minute (1m or more).",
        ),
        (
            args(Some(true), None, Some(0)),
            "Error: max_nags must be 1 to 12.",
        ),
        (
            args(Some(true), None, Some(13)),
            "Error: max_nags must be 1 to 12.",
        ),
        (
            args(Some(true), None, Some(-1)),
            "Error: max_nags must be 1 to 12.",
        ),
        (
            args(None, Some("15m"), None),
            "Error: nag_every and max_nags need until_done: true.",
        ),
        (
            args(Some(false), None, Some(3)),
            "Error: nag_every and max_nags need until_done: true.",
        ),
    ] {
        assert_eq!(until_done_of(&call).unwrap_err(), answer);
    }
}
