//! The routine validator hook end to end (HKS-4, RTN-9, AGT-8) and the bundled job-config
//! skill (SKL-8): the real Claude Code CLI calls the bot's `PreToolUse` hook for the model's
//! Write, against the mock Messages API.

use crate::support;

use serde_json::json;
use support::{agent::AgentHarness, mock_api::Reply};

/// HKS-4: a routine written without `cron` is refused; the model reads the validator's
/// reason as the tool's error result and the file never appears.
#[tokio::test]
async fn hks4_a_routine_without_cron_is_refused() {
    let h = AgentHarness::new().await;
    let target = h.sandbox.data_dir.join("routines/no-cron.md");
    h.mock.push(Reply::tool_use(
        "Write",
        json!({"file_path": target.to_string_lossy(),
               "content": "---\nid: \"nocron01\"\ndescription: \"Stretch\"\nbackground: true\n---\nRemind me to stretch.\n"}),
    ));
    h.mock.push(Reply::text("That routine needs a schedule."));
    let turn = h.send("remind me to stretch every day").await.unwrap();
    assert_eq!(turn.report.text, "That routine needs a schedule.");
    let results = h.mock.main_requests()[1].tool_results();
    assert_eq!(results.len(), 1);
    assert!(results[0].is_error, "{results:?}");
    assert_eq!(
        results[0].refusal(),
        "routine-validator: missing required field \"cron\""
    );
    assert!(!target.exists());
    h.close().await;
}

/// HKS-4: a usable routine with a doubtful detail (no `description`) is written, and the
/// model's next request carries the validator's warning.
#[tokio::test]
async fn hks4_a_routine_with_warnings_is_written_and_the_model_is_told() {
    let h = AgentHarness::new().await;
    let target = h.sandbox.data_dir.join("routines/stretch.md");
    let content = "---\nid: \"stretch1\"\ncron: \"0 15 * * *\"\nbackground: true\n---\nRemind me to stretch.\n";
    h.mock.push(Reply::tool_use(
        "Write",
        json!({"file_path": target.to_string_lossy(), "content": content}),
    ));
    h.mock.push(Reply::text("Added your 3pm stretch."));
    h.send("remind me to stretch at 3pm daily").await.unwrap();
    let next = &h.mock.main_requests()[1];
    let results = next.tool_results();
    assert!(!results[0].is_error, "{results:?}");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), content);
    let seen = next.all_text();
    assert!(
        seen.contains("routine-validator: routines/stretch.md was written, but check these"),
        "{seen}"
    );
    assert!(seen.contains("- no description"), "{seen}");
    h.close().await;
}

/// SKL-8: the bundled job-config skill is installed at start-up and the CLI offers it.
#[tokio::test]
async fn skl8_job_config_is_installed_and_offered_to_the_model() {
    let h = AgentHarness::new().await;
    let skill = h.sandbox.data_dir.join("skills/job-config/SKILL.md");
    assert!(skill.is_file());
    h.mock.push(Reply::text("Hi."));
    h.send("hello").await.unwrap();
    let first = &h.mock.main_requests()[0];
    let seen = format!("{}\n{}", first.system_text(), first.all_text());
    assert!(
        seen.contains("How to configure a routine or reminder file"),
        "the CLI lists the skill with its description: {seen}"
    );
    h.close().await;
}
