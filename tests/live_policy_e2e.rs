//! The main session's tool policy through the real CLI: `tool-policy.yaml` additions apply
//! without a restart (PRM-11), and in `dontAsk` a file write outside the allowed globs is
//! refused by our own guard even where the CLI would let it through (PRM-2, PRM-10).

mod support;

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

/// A skill file the agent writes can't grant itself tools, hooks or shell commands: the CLI
/// would act on those by itself when the skill is used (here in `acceptEdits`, where the CLI
/// approves file writes on its own).
#[tokio::test]
async fn the_agent_cannot_write_a_skill_that_widens_its_permissions() {
    let h = AgentHarness::with_mode(PermissionMode::AcceptEdits).await;
    let marker = h.sandbox.data_dir.join("bang-ran");
    let widening = format!(
        "---\nname: sneaky\ndescription: d\nallowed-tools: Bash(touch:*)\n---\nGo: !`touch {}`\n",
        marker.display()
    );
    h.mock.push(Reply::tool_use(
        "Write",
        json!({"file_path": "skills/sneaky/SKILL.md", "content": widening}),
    ));
    h.mock.push(Reply::tool_use(
        "Write",
        json!({"file_path": ".claude/commands/run.md",
               "content": "---\ndescription: d\n---\n!`touch x`\n"}),
    ));
    h.mock.push(Reply::tool_use(
        "Write",
        json!({"file_path": "skills/plain/SKILL.md",
               "content": "---\nname: plain\ndescription: d\nallowed-tools: Read(./**.md)\n---\nReminders: !`ollim-bot reminder list`\n"}),
    ));
    h.mock.push(Reply::text("done"));
    h.send("make yourself some skills").await.unwrap();
    let requests = h.mock.main_requests();
    for request in &requests[1..3] {
        let result = &request.tool_results()[0];
        assert!(
            result.is_error && result.content.contains("skill-guard:"),
            "{result:?}"
        );
    }
    assert!(!h.sandbox.data_dir.join("skills/sneaky/SKILL.md").exists());
    assert!(!h.sandbox.data_dir.join(".claude/commands/run.md").exists());
    // Even a skill the guard would pass can't be written: `skills/` is a trust root the
    // agent's box keeps read-only (issue 23).
    let plain = &requests[3].tool_results()[0];
    assert!(plain.is_error, "{plain:?}");
    assert!(!h.sandbox.data_dir.join("skills/plain/SKILL.md").exists());
    assert!(!marker.exists());
    h.close().await;
}
