//! Tests of the button codec (BTN-1/2, F-28).

use super::*;

type NoErr = std::convert::Infallible;

fn encode_plain(action: &str) -> Result<String, ButtonError> {
    encode(action, |_| -> Result<String, NoErr> {
        panic!("no inquiry expected for {action:?}")
    })
}

#[test]
fn direct_actions_map_to_act_ids() {
    for (action, id) in [
        ("task_done:abc123", "act:task_done:abc123"),
        ("event_del:cal@x/ev1", "act:event_del:cal@x/ev1"),
        ("dismiss", "act:dismiss:_"),
        ("dismiss:", "act:dismiss:_"),
        (" dismiss ", "act:dismiss:_"),
        ("note:a:b", "act:note:a:b"),
    ] {
        assert_eq!(encode_plain(action).unwrap(), id, "{action:?}");
    }
}

#[test]
fn agent_actions_register_an_inquiry() {
    let mut seen = Vec::new();
    let id = encode("agent:Summarise my emails", |prompt: &str| {
        seen.push(prompt.to_owned());
        Ok::<_, NoErr>("a1b2c3d4".to_owned())
    })
    .unwrap();
    assert_eq!(id, "act:agent:a1b2c3d4");
    assert_eq!(seen, vec!["Summarise my emails".to_owned()]);
}

#[test]
fn long_agent_prompts_fit_because_only_the_id_is_encoded() {
    let prompt = format!("agent:{}", "x".repeat(5000));
    let id = encode(&prompt, |_| Ok::<_, NoErr>("0badf00d".into())).unwrap();
    assert_eq!(id, "act:agent:0badf00d");
}

#[test]
fn registration_failure_is_reported() {
    let err = encode("agent:hi", |_| Err::<String, _>("disk full")).unwrap_err();
    assert!(matches!(err, ButtonError::Inquiry(_)));
    assert!(err.to_string().contains("disk full"), "{err}");
}

#[test]
fn invalid_actions_are_refused() {
    for empty in ["agent:", "agent:  "] {
        let err = encode_plain(empty).unwrap_err();
        assert!(matches!(err, ButtonError::EmptyAgentPrompt), "{empty:?}");
    }
    for bad in ["", ":x", "Task_Done:1", "task-done:1", "tâche:1", "a b:1"] {
        let err = encode_plain(bad).unwrap_err();
        assert!(matches!(err, ButtonError::InvalidActionType(_)), "{bad:?}");
    }
}

#[test]
fn ids_over_100_chars_are_refused_not_cut() {
    // "act:task_done:" is 14 chars, so an 86-char payload is exactly 100.
    let ok = format!("task_done:{}", "t".repeat(86));
    assert_eq!(
        encode_plain(&ok).unwrap().chars().count(),
        MAX_CUSTOM_ID_CHARS
    );
    let too_long = format!("task_done:{}", "t".repeat(87));
    let err = encode_plain(&too_long).unwrap_err();
    assert!(matches!(err, ButtonError::TooLong { len: 101 }), "{err:?}");
    assert!(err.to_string().contains("at most 100"), "{err}");
    // Characters, not bytes: 86 two-byte chars still fit.
    assert!(encode_plain(&format!("task_done:{}", "é".repeat(86))).is_ok());
}

fn done(task: &str, list: Option<&str>) -> ButtonAction {
    ButtonAction::TaskDone {
        task_id: task.into(),
        list_id: list.map(Into::into),
    }
}

fn del(task: &str, list: Option<&str>) -> ButtonAction {
    ButtonAction::TaskDelete {
        task_id: task.into(),
        list_id: list.map(Into::into),
    }
}

fn event(calendar: &str, event: &str) -> ButtonAction {
    ButtonAction::EventDelete {
        calendar_id: calendar.into(),
        event_id: event.into(),
    }
}

fn agent(id: &str) -> ButtonAction {
    ButtonAction::AgentInquiry {
        inquiry_id: id.into(),
    }
}

fn unknown(action: &str, data: &str) -> ButtonAction {
    ButtonAction::Unknown {
        action: action.into(),
        data: data.into(),
    }
}

#[test]
fn parses_every_known_action() {
    let cases = [
        ("act:dismiss:_", ButtonAction::Dismiss),
        ("act:dismiss:", ButtonAction::Dismiss),
        ("act:setup:quick", ButtonAction::GetStarted),
        ("act:fork_save:_", ButtonAction::ForkSave),
        ("act:fork_report:_", ButtonAction::ForkReport),
        ("act:fork_exit:_", ButtonAction::ForkExit),
        ("act:agent:a1b2c3d4", agent("a1b2c3d4")),
        ("act:task_done:t1", done("t1", None)),
        ("act:task_done:list9/t1", done("t1", Some("list9"))),
        ("act:task_del:t2", del("t2", None)),
        ("act:event_del:ev1", event("primary", "ev1")),
        ("act:event_del:team@group.calendar.google.com/ev2", {
            event("team@group.calendar.google.com", "ev2")
        }),
    ];
    for (id, expected) in cases {
        assert_eq!(parse_custom_id(id), Some(expected), "{id}");
    }
}

#[test]
fn unusable_or_unknown_actions_decode_as_unknown() {
    for (id, action, data) in [
        ("act:welcome:_", "welcome", "_"),
        ("act:task_done:_", "task_done", "_"),
        ("act:task_del:list/", "task_del", "list/"),
        ("act:event_del:/ev", "event_del", "/ev"),
        ("act:agent:_", "agent", "_"),
        ("act:nope:", "nope", "_"),
    ] {
        assert_eq!(parse_custom_id(id), Some(unknown(action, data)), "{id}");
    }
}

#[test]
fn non_act_ids_are_not_ours() {
    for id in [
        "",
        "dismiss",
        "act:",
        "act:dismiss",
        "act:Dismiss:_",
        "act::x",
        "x:act:a:b",
    ] {
        assert_eq!(parse_custom_id(id), None, "{id:?}");
    }
}

#[test]
fn custom_id_round_trips() {
    let actions = [
        ButtonAction::Dismiss,
        ButtonAction::ForkSave,
        ButtonAction::ForkReport,
        ButtonAction::ForkExit,
        ButtonAction::GetStarted,
        agent("deadbeef"),
        done("t", Some("l")),
        del("t", None),
        event("primary", "e"),
        event("c@x", "e"),
        unknown("welcome", "_"),
    ];
    for action in actions {
        let id = action.custom_id().unwrap();
        assert_eq!(parse_custom_id(&id), Some(action.clone()), "{id}");
    }
    assert_eq!(
        event("primary", "e").custom_id().unwrap(),
        "act:event_del:e"
    );
    assert!(matches!(
        unknown("Bad", "_").custom_id(),
        Err(ButtonError::InvalidActionType(_))
    ));
    assert!(matches!(
        done(&"t".repeat(90), None).custom_id(),
        Err(ButtonError::TooLong { len: 104 })
    ));
}

/// NAG-7: every answer to an open reminder round-trips; a bad snooze choice is unknown.
#[test]
fn nag_answers_round_trip() {
    for answer in [
        NagAnswer::Done,
        NagAnswer::NotToday,
        NagAnswer::Drop,
        NagAnswer::SnoozeChoices,
        NagAnswer::Snooze(Snooze::ThisEvening),
        NagAnswer::Snooze(Snooze::TenMinutes),
    ] {
        let action = ButtonAction::Nag {
            id: "a1b2c3d4".into(),
            answer,
        };
        let id = action.custom_id().unwrap();
        assert_eq!(parse_custom_id(&id), Some(action), "{id}");
    }
    assert_eq!(
        parse_custom_id("act:nag_done:a1b2c3d4"),
        Some(ButtonAction::Nag {
            id: "a1b2c3d4".into(),
            answer: NagAnswer::Done
        })
    );
    for bad in [
        "act:nag_until:soon/a1",
        "act:nag_until:10m/",
        "act:nag_done:_",
    ] {
        assert!(
            matches!(parse_custom_id(bad), Some(ButtonAction::Unknown { .. })),
            "{bad}"
        );
    }
}
