//! The CLI's own permission modes as the bot runs them (PRM-12), through the pinned CLI in its
//! box and the mock model: `acceptEdits` lets file edits and filesystem commands through
//! without asking and still asks for anything else; `bypassPermissions` asks for nothing.

use crate::support;

use ollim_bot::{claude::PermissionMode, front_end::Approval};
use serde_json::json;
use support::{agent::AgentHarness, mock_api::Reply};

/// PRM-12: in `acceptEdits` a Write and ``touch`/`cp`/`mv`/`rm` run unasked; a
/// command that isn't a file operation is still asked about (and refused here).
#[tokio::test]
async fn accept_edits_lets_file_work_through_and_asks_for_the_rest() {
    let h = AgentHarness::with_mode(PermissionMode::AcceptEdits).await;
    h.script_approvals(&[Approval::Deny]);
    h.mock.push(Reply::tool_use(
        "Write",
        json!({"file_path": "notes/plan.md", "content": "# Plan\n"}),
    ));
    h.mock.push(Reply::tool_use(
        "Bash",
        json!({"command": "touch notes/a.txt && cp notes/a.txt notes/b.txt && mv notes/b.txt notes/c.txt && rm notes/a.txt"}),
    ));
    h.mock.push(Reply::tool_use(
        "Bash",
        json!({"command": "sh -c 'echo x > notes/sh.txt'"}),
    ));
    h.mock.push(Reply::text("Done what I could."));
    h.send("tidy my notes").await.unwrap();
    let data = &h.sandbox.data_dir;
    assert!(data.join("notes/plan.md").is_file());
    assert!(data.join("notes/c.txt").is_file());
    assert!(!data.join("notes/a.txt").exists());
    assert!(
        !data.join("notes/sh.txt").exists(),
        "not a file operation: asked, refused"
    );
    assert_eq!(
        h.approvals_asked(),
        1,
        "{:?}",
        h.front_end.approvals_asked.lock().unwrap()
    );
    h.close().await;
}

/// PRM-12: `bypassPermissions` runs what the main session's model asks without a question.
#[tokio::test]
async fn bypass_permissions_asks_for_nothing() {
    let h = AgentHarness::with_mode(PermissionMode::BypassPermissions).await;
    h.mock.push(Reply::tool_use(
        "Bash",
        json!({"command": "sh -c 'echo x > notes/sh.txt' && echo WROTE"}),
    ));
    h.mock.push(Reply::text("Done."));
    let turn = h.send("write it").await.unwrap();
    let results = h.mock.main_requests()[1].tool_results();
    assert!(
        !results[0].is_error && results[0].content.contains("WROTE"),
        "{results:?}"
    );
    assert_eq!(turn.report.text, "Done.");
    assert!(h.sandbox.data_dir.join("notes/sh.txt").is_file());
    assert_eq!(h.approvals_asked(), 0);
    h.close().await;
}
