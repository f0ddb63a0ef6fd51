//! A background run lists Google Tasks through the real `ollim-bot` binary (issue 14, BGF-6,
//! GOO-5): the pinned Claude CLI, driven by the mock model, runs `ollim-bot tasks list` in its
//! Bash tool as the job's declared `Bash(ollim-bot tasks *)` allows; the command reaches the
//! fake Google and its lines come back as the tool result.

mod support;

use std::sync::Arc;

use ollim_bot::{
    background::BgRunner,
    domain::{job_options::ToolRestriction, prompt_tag::PromptTag},
    scheduling::bg_job::BgJob,
};
use serde_json::json;
use support::{agent::AgentHarness, fake_google::FakeGoogle, mock_api::Reply};

#[tokio::test]
async fn a_background_run_lists_tasks_through_the_real_cli() {
    let fake = FakeGoogle::start().await;
    fake.with(|d| {
        d.tasks("@default")
            .push(json!({"id": "t1", "title": "Buy milk", "status": "needsAction"}));
    });
    // The agent's shell finds this build's `ollim-bot` first on PATH.
    let bin_dir = std::path::Path::new(env!("CARGO_BIN_EXE_ollim-bot"))
        .parent()
        .unwrap()
        .display()
        .to_string();
    let path = format!("{bin_dir}:{}", std::env::var("PATH").unwrap_or_default());
    let url = fake.base_url();
    let h = AgentHarness::with_cli_env(&[
        ("PATH", path.as_str()),
        ("OLLIM_GOOGLE_API_URL", url.as_str()),
        ("OLLIM_TIMEZONE", "UTC"),
    ])
    .await;
    // Google is connected in the bot's own data dir, the one the agent's sandbox is laid
    // over (a command pointed at another data dir would find nothing it may read).
    fake.connect(&h.sandbox.data_dir, false);
    h.mock.push(Reply::tool_use(
        "Bash",
        json!({"command": "ollim-bot tasks list", "description": "List open tasks"}),
    ));
    h.mock.push(Reply::text("checked"));
    let mut job = BgJob::new(
        PromptTag::RoutineBg("task-check".to_owned()),
        "check my tasks",
    );
    job.options.tools = ToolRestriction::Allowed(vec!["Bash(ollim-bot tasks *)".to_owned()]);
    let runner = BgRunner::new(
        Arc::clone(&h.services),
        h.front_end.clone(),
        Arc::new(|| false),
    );
    runner.run(job).await.unwrap();

    let results: Vec<String> = h
        .mock
        .main_requests()
        .iter()
        .flat_map(support::mock_api::RecordedRequest::tool_results)
        .map(|r| r.content)
        .collect();
    assert!(
        results
            .iter()
            .any(|r| r.contains("  t1  (no due)      [ ]  Buy milk")),
        "{results:?}"
    );
    let calls = fake.requests_to("/tasks/v1/lists/@default/tasks");
    assert_eq!(calls.len(), 1);
    assert!(calls[0].bearer.is_some());
    h.close().await;
}
