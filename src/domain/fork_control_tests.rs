use super::*;

fn at(text: &str) -> DateTime<FixedOffset> {
    DateTime::parse_from_rfc3339(text).unwrap()
}

const A: ForkId = ForkId(1);
const B: ForkId = ForkId(2);

fn beside() -> ForkFacts {
    ForkFacts {
        own_place: true,
        ..ForkFacts::default()
    }
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
    control.set_exit(A, ExitAction::Report);
    control.set_exit(B, ExitAction::Exit);
    control.set_exit(A, ExitAction::Save);
    assert_eq!(control.take_exit_of(A), Some(ExitAction::Save));
    assert_eq!(control.take_exit(), Some((B, ExitAction::Exit)));
    assert_eq!(control.take_exit(), None);
}

/// BTN-4: during a button's turn in main an `enter_fork` call is dropped; after it, taken.
#[test]
fn a_button_turn_drops_enter_requests() {
    let control = ForkControl::default();
    let request = || EnterRequest {
        topic: None,
        idle_timeout_minutes: 10,
    };
    control.set_button_turn(true);
    assert!(!control.request_enter(request()));
    assert!(!control.enter_requested());
    control.set_button_turn(false);
    assert!(control.request_enter(request()));
    assert!(control.enter_requested());
}

#[test]
fn save_is_blocked_when_main_moved_updates_arrived_or_the_fork_was_resumed() {
    let control = ForkControl::default();
    let start = at("2026-11-21T10:00:00+00:00");
    control.fork_opened(
        A,
        ForkFacts {
            main_session_at_start: Some("main-1".into()),
            newest_update_at_start: Some(start),
            ..ForkFacts::default()
        },
    );
    assert_eq!(control.save_blocker(A, Some("main-1"), Some(start)), None);
    assert_eq!(control.save_blocker(A, Some("main-1"), None), None);
    assert_eq!(
        control.save_blocker(A, Some("main-2"), Some(start)),
        Some(SaveBlocker::MainChanged)
    );
    assert_eq!(
        control.save_blocker(A, Some("main-1"), Some(at("2026-11-21T10:05:00+00:00"))),
        Some(SaveBlocker::NewUpdates)
    );
    for (fork, begin) in [
        (ForkId(7), ForkBegin::ResumedOwn),
        (ForkId(8), ForkBegin::ResumedRun),
    ] {
        control.fork_opened(
            fork,
            ForkFacts {
                begin,
                ..ForkFacts::default()
            },
        );
        assert_eq!(
            control.save_blocker(fork, None, None),
            Some(SaveBlocker::Resumed)
        );
        assert_eq!(control.in_resumed_run(fork), begin == ForkBegin::ResumedRun);
    }
    assert!(!control.in_resumed_run(A));
}

#[test]
fn messages_and_turns_belong_to_their_own_fork() {
    let control = ForkControl::default();
    control.note_message(A, 1);
    control.owner_spoke(A);
    assert!(control.facts(A).is_none());
    control.fork_opened(A, beside());
    control.fork_opened(B, beside());
    control.note_message(A, 2);
    control.note_message(B, 20);
    control.owner_spoke(A);
    assert_eq!(control.facts(A).unwrap().owner_turns, 1);
    assert_eq!(control.facts(B).unwrap().owner_turns, 0);
    assert_eq!(control.take_messages(A), vec![2]);
    control.note_message(A, 3);
    assert_eq!(control.fork_closed(A).unwrap().unrecorded_messages, vec![3]);
    assert!(control.in_fork(), "B is still open");
    assert_eq!(control.open_forks(), vec![B]);
    assert_eq!(
        control.fork_closed(B).unwrap().unrecorded_messages,
        vec![20]
    );
    assert!(!control.in_fork());
    assert!(control.fork_closed(A).is_none());
}

#[test]
fn the_start_of_main_is_known_only_while_the_fork_is_open() {
    // IFK-19, SES-16: one copy of the main session id at the fork's start.
    let control = ForkControl::default();
    assert_eq!(control.main_session_at_start(A), None);
    control.fork_opened(
        A,
        ForkFacts {
            main_session_at_start: Some("main-1".into()),
            ..ForkFacts::default()
        },
    );
    assert_eq!(control.main_session_at_start(A).as_deref(), Some("main-1"));
    control.set_exit(A, ExitAction::Save);
    let closed = control.fork_closed(A).unwrap();
    assert_eq!(closed.main_session_at_start.as_deref(), Some("main-1"));
    assert_eq!(control.main_session_at_start(A), None);
    assert_eq!(control.take_exit(), None, "closing drops a pending exit");
}

#[test]
fn forks_beside_main_go_up_to_the_cap_and_one_in_place_stands_alone() {
    // Issue 41 §1: several forks, each in a thread; one in the DM is the only one.
    let control = ForkControl::default();
    assert_eq!(control.room(), Ok(()));
    control.fork_opened(A, ForkFacts::default());
    assert_eq!(control.in_place(), Some(A));
    assert_eq!(control.room(), Err(NoRoom::InPlaceOpen));
    control.fork_closed(A);
    for id in 0..MAX_FORKS as u64 {
        assert_eq!(control.room(), Ok(()));
        control.fork_opened(ForkId(10 + id), beside());
    }
    assert_eq!(control.in_place(), None);
    assert_eq!(control.room(), Err(NoRoom::Full));
    control.fork_closed(ForkId(10));
    assert_eq!(control.room(), Ok(()));
}
