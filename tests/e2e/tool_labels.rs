//! Tool labels (STR-7) as the real session reports them, through the pinned CLI and the mock
//! model: a call the owner allowed through its approval question isn't labelled again, and a
//! call cut short by an interrupt isn't reported as a failure.

use crate::support;

use std::time::Duration;

use ollim_bot::{
    claude::PermissionMode,
    front_end::{Approval, TurnEvent},
};
use serde_json::json;
use support::{agent::AgentHarness, mock_api::Reply};

/// STR-7: the owner allowed the call in its question (which shows the label): the session
/// says so, and the streamer leaves the label out of the reply.
#[tokio::test]
async fn an_approved_call_is_marked_so_its_label_is_not_shown_again() {
    let h = AgentHarness::with_mode(PermissionMode::Default).await;
    h.script_approvals(&[Approval::AllowOnce]);
    let call = Reply::tool_use(
        "Bash",
        json!({"command": "touch notes/asked.txt && echo ASKED-RUN"}),
    );
    let id = call.tool_use_ids()[0].clone();
    h.mock.push(call);
    h.mock.push(Reply::text("Ran it."));
    let turn = h.send("run it").await.unwrap();
    assert!(
        turn.events
            .contains(&TurnEvent::ToolApproved { id: id.clone() })
    );
    assert!(!turn.events.contains(&TurnEvent::ToolFailed { id }));
    h.close().await;
}

/// STR-7: a call running when the owner interrupts comes back as an error result from the
/// CLI; it is not reported as a failed call (its label isn't struck through as an error).
#[tokio::test]
async fn an_interrupted_call_is_not_reported_as_failed() {
    let h = AgentHarness::with_mode(PermissionMode::Default).await;
    h.script_approvals(&[Approval::AllowOnce]);
    let call = Reply::tool_use(
        "Bash",
        json!({"command": "sleep 30 && touch notes/late.txt"}),
    );
    let id = call.tool_use_ids()[0].clone();
    h.mock.push(call);
    h.mock.push(Reply::text("Stopped."));
    let session = &h.session;
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let running = session.send(ollim_bot::agent::Prompt::text("wait a while"), tx);
    let interrupter = async {
        let mut events = Vec::new();
        loop {
            let event = rx.recv().await.expect("events until the turn ends");
            let approved = matches!(event, TurnEvent::ToolApproved { .. });
            events.push(event);
            if approved {
                break;
            }
        }
        // The command is running now.
        tokio::time::sleep(Duration::from_millis(800)).await;
        assert!(session.interrupt());
        while let Some(event) = rx.recv().await {
            events.push(event);
        }
        events
    };
    let (report, events) = tokio::join!(running, interrupter);
    let report = report.unwrap();
    assert!(report.result.was_interrupted(), "{:?}", report.result);
    assert!(
        !events.contains(&TurnEvent::ToolFailed { id }),
        "{events:?}"
    );
    h.close().await;
}
