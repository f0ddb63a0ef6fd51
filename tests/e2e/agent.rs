//! The main session end to end: the real Claude Code CLI against the mock Messages API.
//! (SES-1/3/4/6/13/18, CTX-1/2, AGT-14/16, MCP-1/2, PRM-2)

use crate::support;

use std::time::Duration;

use ollim_bot::state::history::SessionEventKind;
use serde_json::json;
use support::{agent::AgentHarness, mock_api::Reply, wait};

#[tokio::test]
async fn a_text_turn_streams_and_saves_the_session_id() {
    let h = AgentHarness::new().await;
    h.mock
        .push(Reply::text("Hello Julia, how can I help today?"));
    let turn = h.send("hi there").await.unwrap();
    assert_eq!(turn.report.text, "Hello Julia, how can I help today?");
    assert!(
        turn.deltas().len() > 3,
        "expected streamed deltas, got {:?}",
        turn.deltas()
    );
    let request = &h.mock.main_requests()[0];
    let prompt = request.last_user_text().unwrap();
    assert!(
        prompt.starts_with('[') && prompt.ends_with("] hi there"),
        "{prompt}"
    );
    assert!(
        prompt.contains(" PST]") || prompt.contains(" PDT]"),
        "{prompt}"
    );
    let id = h.stored_session().expect("session id saved");
    let history = h.history();
    assert_eq!(history.len(), 1);
    assert_eq!(history[0].event, SessionEventKind::Created);
    assert_eq!(history[0].session_id, id);
    h.send("again").await.unwrap();
    assert_eq!(h.history().len(), 1, "an unchanged id logs nothing");
    h.flush_git().await;
    let log = std::process::Command::new("git")
        .args(["log", "--format=%s"])
        .current_dir(&h.sandbox.data_dir)
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&log.stdout);
    assert!(
        log.contains(&format!("session created: {}", &id[..8])),
        "{log}"
    );
    h.close().await;
}

#[tokio::test]
async fn a_restarted_process_resumes_the_same_session() {
    let h = AgentHarness::new().await;
    h.mock.push(Reply::text("Noted: PAPAYA."));
    h.send("remember the word PAPAYA").await.unwrap();
    let id = h.stored_session().unwrap();
    let h = h.restart().await;
    h.mock.push(Reply::text("You said PAPAYA."));
    h.send("what was the word?").await.unwrap();
    let last = h.mock.main_requests().pop().unwrap();
    assert!(
        last.all_text().contains("remember the word PAPAYA"),
        "history not resumed"
    );
    assert_eq!(h.stored_session().as_deref(), Some(id.as_str()));
    assert_eq!(h.history().len(), 1);
    h.close().await;
}

#[tokio::test]
async fn an_embed_tool_call_round_trips_through_the_mcp_server() {
    let h = AgentHarness::new().await;
    h.mock.push(Reply::tool_use(
        "mcp__discord__discord_embed",
        json!({"title": "✅ Today", "description": "one\\ntwo", "color": "green",
               "fields": [{"name": "Due", "value": "5pm"}],
               "buttons": [{"label": "Done", "action": "task_done:abc", "style": "success"}]}),
    ));
    h.mock.push(Reply::text("Sent you the plan."));
    let turn = h.send("plan my day").await.unwrap();
    let embeds = h.front_end.embeds.lock().unwrap().clone();
    assert_eq!(embeds.len(), 1);
    assert_eq!(embeds[0].title, "Today");
    assert_eq!(embeds[0].description.as_deref(), Some("one\ntwo"));
    let results = h.mock.main_requests()[1].tool_results();
    assert_eq!(results[0].content, "Embed sent.");
    assert!(!results[0].is_error);
    assert!(turn.events.iter().any(|e| matches!(e,
        ollim_bot::front_end::TurnEvent::ToolUse { label, .. } if label == "discord_embed")));
    h.close().await;
}

#[tokio::test]
async fn interrupt_mid_stream_leaves_the_session_usable() {
    let h = AgentHarness::new().await;
    let chunks: Vec<String> = (0..40).map(|i| format!("word{i} ")).collect();
    h.mock
        .push(Reply::text_chunks(chunks, Duration::from_millis(100)));
    h.mock.push(Reply::text("Still here."));
    let session = &h.session;
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let running = session.send(ollim_bot::agent::Prompt::text("tell me a long story"), tx);
    let interrupter = async {
        while !matches!(
            rx.recv().await,
            Some(ollim_bot::front_end::TurnEvent::TextDelta(_))
        ) {}
        assert!(session.interrupt());
    };
    let (report, ()) = tokio::join!(running, interrupter);
    let report = report.unwrap();
    assert!(report.result.was_interrupted(), "{:?}", report.result);
    assert!(!report.text.contains("word39"));
    let next = h.send("are you there?").await.unwrap();
    assert_eq!(next.report.text, "Still here.");
    h.close().await;
}

#[tokio::test]
async fn a_killed_cli_gives_a_clear_error_and_the_next_message_resumes() {
    let h = AgentHarness::new().await;
    h.mock.push(Reply::text("First answer."));
    h.send("first").await.unwrap();
    let id = h.stored_session().unwrap();
    // The CLI writes its transcript a moment after the turn; a CLI killed before that has
    // nothing to resume, so wait for it as any real gap between two messages would.
    wait_for_transcript(h.sandbox.home.path(), &id).await;
    let chunks: Vec<String> = (0..50).map(|i| format!("w{i} ")).collect();
    h.mock
        .push(Reply::text_chunks(chunks, Duration::from_millis(100)));
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let running = h.session.send(ollim_bot::agent::Prompt::text("second"), tx);
    let killer = async {
        while !matches!(
            rx.recv().await,
            Some(ollim_bot::front_end::TurnEvent::TextDelta(_))
        ) {}
        let pid = h.session.cli_pid().expect("a running CLI");
        std::process::Command::new("kill")
            .args(["-9", &pid.to_string()])
            .status()
            .unwrap();
    };
    let (result, ()) = tokio::join!(running, killer);
    let error = result.expect_err("the turn must fail").to_string();
    assert!(error.contains("exited unexpectedly"), "{error}");
    h.mock.push(Reply::text("Back again."));
    let turn = h.send("third").await.unwrap();
    assert_eq!(turn.report.text, "Back again.");
    assert_eq!(h.stored_session().as_deref(), Some(id.as_str()));
    let last = h.mock.main_requests().pop().unwrap();
    assert!(last.all_text().contains("first"));
    h.close().await;
}

#[tokio::test]
async fn set_model_applies_live() {
    let h = AgentHarness::new().await;
    h.send("hello").await.unwrap();
    let pid = h.session.cli_pid();
    h.session
        .set_model(Some("claude-haiku-4-5".into()))
        .await
        .unwrap();
    h.send("and now?").await.unwrap();
    assert_eq!(
        h.mock.main_requests().pop().unwrap().model(),
        Some("claude-haiku-4-5")
    );
    assert_eq!(h.session.cli_pid(), pid, "no reconnect for a model switch");
    h.close().await;
}

#[tokio::test]
async fn images_are_sent_as_image_blocks_before_the_text() {
    let h = AgentHarness::new().await;
    h.mock.push(Reply::text("A tiny red square."));
    // A valid 1x1 PNG.
    let png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
    let prompt = ollim_bot::agent::Prompt {
        text: "what is this?".into(),
        images: vec![ollim_bot::claude::ImageAttachment {
            media_type: "image/png".into(),
            base64_data: png.into(),
        }],
        ..Default::default()
    };
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    let report = h.session.send(prompt, tx).await.unwrap();
    assert_eq!(report.text, "A tiny red square.");
    let request = h.mock.main_requests().pop().unwrap();
    let last_user = request
        .messages()
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .unwrap()
        .clone();
    let blocks = last_user["content"].as_array().unwrap();
    let image_at = blocks
        .iter()
        .position(|b| b["type"] == "image")
        .expect("an image block");
    let text_at = blocks
        .iter()
        .position(|b| {
            b["text"]
                .as_str()
                .is_some_and(|t| t.trim_end().ends_with("what is this?"))
        })
        .expect("the prompt text");
    assert!(image_at < text_at, "images come before the text (AGT-17)");
    assert_eq!(blocks[image_at]["source"]["media_type"], "image/png");
    h.close().await;
}

/// Waits until the CLI has written `<id>.jsonl` somewhere under `home` (its CLI home is in
/// the data dir's `state/cli_homes/`, issue 39).
async fn wait_for_transcript(home: &std::path::Path, id: &str) {
    fn contains(dir: &std::path::Path, name: &str) -> bool {
        std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .any(|entry| {
                let path = entry.path();
                if path.is_dir() {
                    contains(&path, name)
                } else {
                    path.file_name().is_some_and(|n| n == name)
                }
            })
    }
    let name = format!("{id}.jsonl");
    wait::until_true(
        &format!("the CLI to write the transcript of {id}"),
        Duration::from_secs(5),
        || contains(home, &name),
        String::new,
    )
    .await;
}

/// The CLI reports cost per process; each turn is charged what the total rose by (USE-1),
/// through the real CLI pricing the mock's token counts.
#[tokio::test]
async fn each_turn_carries_its_own_cost() {
    let h = AgentHarness::new().await;
    h.mock.push(Reply::text("one"));
    h.mock.push(Reply::text("two"));
    let first = h.send("first").await.unwrap().report.result;
    let second = h.send("second").await.unwrap().report.result;
    let (Some(total_1), Some(total_2)) = (first.total_cost_usd, second.total_cost_usd) else {
        panic!("the CLI reported no cost: {first:?}");
    };
    assert!(total_1 > 0.0, "{first:?}");
    assert_eq!(first.turn_cost_usd, Some(total_1));
    let turn_2 = second.turn_cost_usd.unwrap();
    assert!((turn_2 - (total_2 - total_1)).abs() < 1e-12, "{second:?}");
    assert!(!second.models.is_empty(), "{second:?}");
}
