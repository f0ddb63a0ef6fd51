use super::*;

fn at(text: &str) -> DateTime<FixedOffset> {
    DateTime::parse_from_rfc3339(text).unwrap()
}

#[test]
fn requests_are_taken_once() {
    let control = ForkControl::default();
    control.request_enter(EnterRequest {
        topic: Some("meal prep".into()),
        idle_timeout_minutes: 10,
    });
    assert!(control.enter_requested());
    assert_eq!(
        control.take_enter().unwrap().topic.as_deref(),
        Some("meal prep")
    );
    assert!(control.take_enter().is_none());
    control.set_exit(ExitAction::Report);
    assert_eq!(control.take_exit(), Some(ExitAction::Report));
    assert_eq!(control.take_exit(), None);
}

#[test]
fn save_is_blocked_when_main_moved_updates_arrived_or_the_fork_was_resumed() {
    let control = ForkControl::default();
    let start = at("2026-11-21T10:00:00+00:00");
    control.fork_opened(ForkFacts {
        main_session_at_start: Some("main-1".into()),
        newest_update_at_start: Some(start),
        ..ForkFacts::default()
    });
    assert_eq!(control.save_blocker(Some("main-1"), Some(start)), None);
    assert_eq!(control.save_blocker(Some("main-1"), None), None);
    assert_eq!(
        control.save_blocker(Some("main-2"), Some(start)),
        Some(SaveBlocker::MainChanged)
    );
    assert_eq!(
        control.save_blocker(Some("main-1"), Some(at("2026-11-21T10:05:00+00:00"))),
        Some(SaveBlocker::NewUpdates)
    );
    for begin in [ForkBegin::ResumedOwn, ForkBegin::ResumedRun] {
        control.fork_opened(ForkFacts {
            begin,
            ..ForkFacts::default()
        });
        assert_eq!(control.save_blocker(None, None), Some(SaveBlocker::Resumed));
        assert_eq!(control.in_resumed_run(), begin == ForkBegin::ResumedRun);
    }
}

#[test]
fn messages_and_turns_belong_to_the_open_fork() {
    let control = ForkControl::default();
    control.note_message(1);
    control.owner_spoke();
    assert!(control.facts().is_none());
    control.fork_opened(ForkFacts::default());
    control.note_message(2);
    control.owner_spoke();
    assert_eq!(control.facts().unwrap().owner_turns, 1);
    assert_eq!(control.take_messages(), vec![2]);
    control.note_message(3);
    assert_eq!(control.fork_closed().unwrap().unrecorded_messages, vec![3]);
    assert!(!control.in_fork());
    assert!(control.fork_closed().is_none());
}

#[test]
fn the_start_of_main_is_known_only_while_the_fork_is_open() {
    // IFK-19, SES-16: one copy of the main session id at the fork's start.
    let control = ForkControl::default();
    assert_eq!(control.main_session_at_start(), None);
    control.fork_opened(ForkFacts {
        main_session_at_start: Some("main-1".into()),
        ..ForkFacts::default()
    });
    assert_eq!(control.main_session_at_start().as_deref(), Some("main-1"));
    control.set_exit(ExitAction::Save);
    let closed = control.fork_closed().unwrap();
    assert_eq!(closed.main_session_at_start.as_deref(), Some("main-1"));
    assert_eq!(control.main_session_at_start(), None);
    assert_eq!(control.take_exit(), None, "closing drops a pending exit");
}
