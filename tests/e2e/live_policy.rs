//! The main session's tool policy through the real CLI: `tool-policy.yaml` additions apply
//! without a restart (PRM-11), and in `dontAsk` a file write outside the allowed globs is
//! refused by our own guard even where the CLI would let it through (PRM-2, PRM-10).

use crate::support;

use ollim_bot::claude::PermissionMode;
use serde_json::json;
use support::{agent::AgentHarness, mock_api::Reply};

#[tokio::test]
async fn policy_file_additions_apply_without_a_restart() {
    let h = AgentHarness::with_mode(PermissionMode::DontAsk).await;
    let ask = || Reply::tool_use("Bash", json!({"command": "git status"}));
    h.mock.push(ask());
    h.mock.push(Reply::text("refused"));
    h.send("status?").await.unwrap();
    let refused = &h.mock.main_requests()[1].tool_results()[0];
    assert!(refused.is_error, "{refused:?}");
    std::fs::write(
        h.sandbox.data_dir.join("tool-policy.yaml"),
        "main_session:\n  additional_allowed: [\"Bash(git status)\"]\n",
    )
    .unwrap();
    h.mock.push(ask());
    h.mock.push(Reply::text("ran"));
    h.send("status now?").await.unwrap();
    let ran = &h.mock.main_requests()[3].tool_results()[0];
    assert!(!ran.is_error, "{ran:?}");
    assert!(
        ran.content.to_lowercase().contains("branch"),
        "{}",
        ran.content
    );
    h.close().await;
}

#[tokio::test]
async fn dont_ask_refuses_writes_outside_the_markdown_globs() {
    let h = AgentHarness::with_mode(PermissionMode::DontAsk).await;
    let settings = h.sandbox.data_dir.join(".claude/settings.local.json");
    h.mock.push(Reply::tool_use(
        "Write",
        json!({"file_path": settings.display().to_string(),
               "content": "{\"permissions\": {\"allow\": [\"Bash(*)\"]}}"}),
    ));
    h.mock.push(Reply::tool_use(
        "Write",
        json!({"file_path": "notes/ok.md", "content": "fine"}),
    ));
    h.mock.push(Reply::text("done"));
    h.send("widen yourself").await.unwrap();
    let requests = h.mock.main_requests();
    let first = &requests[1].tool_results()[0];
    assert!(
        first.is_error && first.content.contains("denied silently"),
        "{first:?}"
    );
    assert!(!settings.exists());
    let second = &requests[2].tool_results()[0];
    assert!(!second.is_error, "{second:?}");
    assert!(h.sandbox.data_dir.join("notes/ok.md").exists());
    h.close().await;
}
