//! The run flags of `routine add` / `reminder add` become a run mode and run options (CMD-2,
//! CMD-4, E.1), and the schedule line shows them.

use super::*;

fn flags(isolated: bool) -> RunFlags {
    RunFlags {
        model: Some("haiku".into()),
        no_thinking: true,
        isolated,
        update_main_session: Some(UpdateMode::Freely),
        no_ping: true,
    }
}

#[test]
fn isolated_counts_only_in_the_background() {
    assert_eq!(flags(true).run_mode(false), RunMode::Foreground);
    assert_eq!(
        flags(true).run_mode(true),
        RunMode::Background(BgSession::Isolated)
    );
    assert_eq!(
        flags(false).run_mode(true),
        RunMode::Background(BgSession::Forked)
    );
}

#[test]
fn flags_set_their_options_and_leave_the_rest_at_default() {
    assert_eq!(
        flags(false).options(),
        RunOptions {
            model: Some("haiku".into()),
            thinking: false,
            update_mode: UpdateMode::Freely,
            allow_ping: false,
            ..RunOptions::default()
        }
    );
}

#[test]
fn the_schedule_line_shows_mode_model_and_thinking() {
    let mut routine = Routine::new("0 9 * * *", "x");
    assert_eq!(schedule(&routine), "cron '0 9 * * *'");
    routine.run = flags(true).run_mode(true);
    routine.options = flags(true).options();
    assert_eq!(
        schedule(&routine),
        "[bg,isolated] cron '0 9 * * *'  (model: haiku)  (no-thinking)"
    );
    routine.run = RunMode::Background(BgSession::Persistent);
    assert!(schedule(&routine).starts_with("[bg] cron"));
}
