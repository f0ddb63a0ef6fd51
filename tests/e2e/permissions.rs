//! Tool permissions end to end: the real Claude Code CLI asks `can_use_tool`, the bot's policy
//! and hooks answer (PRM-2, PRM-3, PRM-4, PRM-5, HKS-2, HKS-3, STR-7).

use crate::support;

use ollim_bot::{
    claude::PermissionMode,
    front_end::{Approval, TurnEvent},
};
use serde_json::json;
use support::{agent::AgentHarness, mock_api::Reply};

/// The refusal the model reads for a write into `state/` (PRM-2 wording).
const STATE_REFUSAL: &str = "Write to state/ is blocked — state/ is write-protected";

/// PRM-2 (step 3), STR-7: in `dontAsk` a tool outside the allowed list is refused without
/// asking, the model reads why, and the turn reports the denial for the label.
#[tokio::test]
async fn dont_ask_denies_unlisted_tools_silently() {
    let h = AgentHarness::with_mode(PermissionMode::DontAsk).await;
    // Not a read-only command: CLI 2.1.197 runs those without asking (see below).
    let call = Reply::tool_use("Bash", json!({"command": "touch hello.txt"}));
    let tool_id = call.tool_use_ids()[0].clone();
    h.mock.push(call);
    h.mock.push(Reply::text("I can't run that here."));
    let turn = h.send("create a file").await.unwrap();
    assert_eq!(turn.report.text, "I can't run that here.");
    let results = h.mock.main_requests()[1].tool_results();
    assert_eq!(results.len(), 1);
    assert_eq!(results[0].tool_use_id, tool_id);
    assert!(results[0].is_error, "{results:?}");
    assert!(
        results[0]
            .content
            .contains("Bash requires permission — denied silently in current mode"),
        "{}",
        results[0].content
    );
    assert!(
        turn.events.contains(&TurnEvent::ToolDenied {
            id: tool_id.clone()
        }),
        "{:?}",
        turn.events
    );
    assert!(turn.events.iter().any(|e| matches!(e,
        TurnEvent::ToolUse { id, label } if *id == tool_id && label == "Bash(touch hello.txt)")));
    assert_eq!(h.approvals_asked(), 0, "nothing is asked in dontAsk");
    assert!(!h.sandbox.data_dir.join("hello.txt").exists());
    h.close().await;
}

/// PRM-2's own acceptance check: in `dontAsk`, `Bash(ls)` is refused with a struck-through
/// label and no prompt.
#[tokio::test]
async fn dont_ask_refuses_read_only_bash_too() {
    let h = AgentHarness::with_mode(PermissionMode::DontAsk).await;
    let call = Reply::tool_use("Bash", json!({"command": "ls"}));
    let tool_id = call.tool_use_ids()[0].clone();
    h.mock.push(call);
    h.mock.push(Reply::text("No."));
    let turn = h.send("list my files").await.unwrap();
    let results = h.mock.main_requests()[1].tool_results();
    assert!(results[0].is_error, "ls ran: {results:?}");
    assert!(
        results[0]
            .content
            .contains("denied silently in current mode")
    );
    assert!(turn.events.contains(&TurnEvent::ToolDenied { id: tool_id }));
    h.close().await;
}

/// PRM-4, PRM-5: in `default` mode the owner is asked; a refusal reaches the model as
/// `denied via Discord`; "always" runs the tool and allows it for the rest of the session.
#[tokio::test]
async fn default_mode_asks_and_always_allow_sticks() {
    let h = AgentHarness::with_mode(PermissionMode::Default).await;
    h.script_approvals(&[Approval::Deny, Approval::AllowAlways]);

    let denied = Reply::tool_use("Bash", json!({"command": "echo DENIED-RUN > denied.txt"}));
    let denied_id = denied.tool_use_ids()[0].clone();
    h.mock.push(denied);
    h.mock.push(Reply::text("Okay, I won't."));
    let turn = h.send("write a file").await.unwrap();
    let results = h.mock.main_requests()[1].tool_results();
    assert_eq!(results[0].tool_use_id, denied_id);
    assert!(results[0].is_error);
    assert!(
        results[0].content.contains("denied via Discord"),
        "{results:?}"
    );
    assert!(
        turn.events
            .contains(&TurnEvent::ToolDenied { id: denied_id })
    );
    assert!(!h.sandbox.data_dir.join("denied.txt").exists());
    assert_eq!(h.approvals_asked(), 1);
    assert_eq!(
        h.front_end.approvals_asked.lock().unwrap()[0],
        "Bash(echo DENIED-RUN > denied.txt)"
    );

    h.mock.push(Reply::tool_use(
        "Bash",
        json!({"command": "touch notes/second.txt && echo SECOND-RUN"}),
    ));
    h.mock.push(Reply::text("Ran it."));
    h.send("try again").await.unwrap();
    let results = h.mock.main_requests()[3].tool_results();
    assert!(!results[0].is_error, "{results:?}");
    assert!(results[0].content.contains("SECOND-RUN"), "{results:?}");
    assert_eq!(h.approvals_asked(), 2);

    h.mock.push(Reply::tool_use(
        "Bash",
        json!({"command": "touch notes/third.txt && echo THIRD-RUN"}),
    ));
    h.mock.push(Reply::text("Ran it again."));
    h.send("once more").await.unwrap();
    let results = h.mock.main_requests()[5].tool_results();
    assert!(!results[0].is_error, "{results:?}");
    assert!(results[0].content.contains("THIRD-RUN"), "{results:?}");
    assert_eq!(
        h.approvals_asked(),
        2,
        "allowed for the session without asking"
    );
    h.close().await;
}

/// PRM-2 (step 1), PRM-3: writes into `state/` are refused, relative or absolute, even for a
/// pattern that is otherwise auto-approved (`Write(./**.md)`).
#[tokio::test]
async fn writes_into_state_are_refused_in_dont_ask() {
    let h = AgentHarness::with_mode(PermissionMode::DontAsk).await;
    let state = h.sandbox.data_dir.join("state");
    let relative = Reply::tool_use(
        "Write",
        json!({"file_path": "state/config.json", "content": "{\"permission_mode\":\"bypassPermissions\"}"}),
    );
    let absolute_md = state.join("notes.md");
    let absolute = Reply::tool_use(
        "Write",
        json!({"file_path": absolute_md.to_string_lossy(), "content": "sneaky"}),
    );
    h.mock.push(relative);
    h.mock.push(absolute);
    h.mock.push(Reply::text("Those are protected."));
    let turn = h.send("change my config").await.unwrap();
    assert_eq!(turn.report.text, "Those are protected.");
    let requests = h.mock.main_requests();
    for request in &requests[1..3] {
        let results = request.tool_results();
        assert_eq!(results.len(), 1);
        assert!(results[0].is_error, "{results:?}");
        assert_eq!(results[0].refusal(), STATE_REFUSAL);
    }
    assert!(!state.join("config.json").exists());
    assert!(!absolute_md.exists());
    h.close().await;
}

/// HKS-3, PRM-3: in `acceptEdits` the CLI would approve the write by itself; the `PreToolUse`
/// hook still refuses it.
#[tokio::test]
async fn the_state_guard_hook_blocks_even_in_accept_edits() {
    let h = AgentHarness::with_mode(PermissionMode::AcceptEdits).await;
    let target = h.sandbox.data_dir.join("state/config.json");
    h.mock.push(Reply::tool_use(
        "Write",
        json!({"file_path": target.to_string_lossy(), "content": "{}"}),
    ));
    h.mock.push(Reply::tool_use(
        "Write",
        json!({"file_path": h.sandbox.data_dir.join("notes/scratch.txt").to_string_lossy(),
               "content": "allowed by acceptEdits"}),
    ));
    h.mock.push(Reply::text("Done what I could."));
    h.send("edit things").await.unwrap();
    let requests = h.mock.main_requests();
    let blocked = requests[1].tool_results();
    assert!(blocked[0].is_error, "{blocked:?}");
    assert_eq!(blocked[0].refusal(), STATE_REFUSAL);
    assert!(!target.exists());
    let allowed = requests[2].tool_results();
    assert!(
        !allowed[0].is_error,
        "acceptEdits writes elsewhere: {allowed:?}"
    );
    assert_eq!(
        std::fs::read_to_string(h.sandbox.data_dir.join("notes/scratch.txt")).unwrap(),
        "allowed by acceptEdits"
    );
    assert_eq!(h.approvals_asked(), 0);
    h.close().await;
}

/// HKS-2: a markdown file the agent writes in the data dir is committed as
/// `auto: write <path>`.
#[tokio::test]
async fn markdown_writes_are_auto_committed() {
    let h = AgentHarness::new().await;
    let notes = h.sandbox.data_dir.join("notes/notes.md");
    h.mock.push(Reply::tool_use(
        "Write",
        json!({"file_path": notes.to_string_lossy(), "content": "# Notes\n- buy milk\n"}),
    ));
    h.mock.push(Reply::text("Saved your note."));
    h.send("note: buy milk").await.unwrap();
    let results = h.mock.main_requests()[1].tool_results();
    assert!(!results[0].is_error, "{results:?}");
    assert_eq!(
        std::fs::read_to_string(&notes).unwrap(),
        "# Notes\n- buy milk\n"
    );
    let log = h.git_log().await;
    assert!(
        log.lines().any(|l| l == "auto: write notes/notes.md"),
        "{log}"
    );
    h.close().await;
}
