//! The tool policy through the real binary, the real CLI, the fake Discord and the mock model
//! (PRM-8, BGF-6, BGF-23, issue 11 §1): a job declaring a refused pattern never starts and the
//! owner hears why; a job declaring a narrow new pattern runs without it until the owner
//! clicks Approve on the embed the bot posted, and a Deny keeps it withheld. A module per
//! topic; the helpers that write jobs, script the model and wait are here.

use crate::support;

use std::time::Duration;

use serde_json::json;
use support::{
    bot::BotHarness,
    fake_discord::FakeMessage,
    mock_api::{MockApi, Reply},
    wait,
};

mod approval;
mod approval_scope;
mod missing_parts;
mod refused;
mod shell_approval;

/// A background reminder due now, declaring `tools`.
pub(super) fn write_reminder(h: &BotHarness, id: &str, tools: &[&str]) {
    let tools = serde_json::to_string(tools).unwrap();
    write_reminder_with(h, id, &format!("allowed-tools: {tools}\n"));
}

/// A background reminder due now with extra frontmatter lines.
pub(super) fn write_reminder_with(h: &BotHarness, id: &str, extra: &str) {
    write_reminder_due(h, id, &now(), extra, "Run the check.");
}

/// Now, as a `run-at`: a job written again with the same `run-at` has the same schedule, so
/// the owner's approval of it holds (issue 39 §4).
pub(super) fn now() -> String {
    chrono::Utc::now().to_rfc3339()
}

/// A reminder due at `run_at` with extra frontmatter lines and `body`.
pub(super) fn write_reminder_due(h: &BotHarness, id: &str, run_at: &str, extra: &str, body: &str) {
    let dir = h.sandbox.data_dir.join("reminders");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join(format!("{id}.md")),
        reminder_text(id, run_at, extra, body),
    )
    .unwrap();
}

/// A reminder file's text.
pub(super) fn reminder_text(id: &str, run_at: &str, extra: &str, body: &str) -> String {
    format!("---\nid: \"{id}\"\nrun-at: \"{run_at}\"\n{extra}---\n{body}\n")
}

/// Waits until the pending updates mention every one of `needles`; returns their text.
pub(super) async fn wait_for_pending(h: &BotHarness, needles: &[&str]) -> String {
    let pending = h.sandbox.data_dir.join("state/pending_updates.json");
    let read = || std::fs::read_to_string(&pending).unwrap_or_default();
    wait::eventually(
        &format!("an update naming {needles:?}"),
        Duration::from_secs(60),
        || Some(read()).filter(|text| needles.iter().all(|n| text.contains(n))),
        || format!("{}\n{}", read(), h.log()),
    )
    .await
}

/// The mock model answers every background run with `text`.
pub(super) fn answer_background_runs(mock: &MockApi, text: &'static str) {
    mock.add_rule(move |request| {
        request
            .user_prompts()
            .iter()
            .any(|p| p.contains("[reminder-bg:"))
            .then(|| Reply::text(text))
    });
}

/// The mock model: a `[reminder-bg:<id>]` run asks for `command` through Bash, then finishes.
pub(super) fn run_bash_in_reminders(mock: &MockApi, command: &'static str) {
    mock.add_rule(move |request| {
        let prompt = request.user_prompts().join("\n");
        if !prompt.contains("[reminder-bg:") {
            return None;
        }
        if request.tool_results().is_empty() {
            Some(Reply::tool_use("Bash", json!({"command": command})))
        } else {
            Some(Reply::text("done"))
        }
    });
}

/// The Bash results the model got in the runs of reminder `id`, oldest first.
pub(super) fn bash_results_of(h: &BotHarness, id: &str) -> Vec<(String, bool)> {
    let tag = format!("[reminder-bg:{id}]");
    h.mock
        .model_requests()
        .into_iter()
        .filter_map(|request| {
            let ours = request.user_prompts().iter().any(|p| p.contains(&tag));
            let result = request.tool_results().into_iter().next()?;
            ours.then_some((result.content, result.is_error))
        })
        .collect()
}

/// The Bash result of run number `nth` (from 1) of reminder `id`, once it happened.
pub(super) async fn bash_result_of(h: &BotHarness, id: &str, nth: usize) -> (String, bool) {
    wait::eventually(
        &format!("Bash result {nth} for {id}"),
        Duration::from_secs(60),
        || bash_results_of(h, id).into_iter().nth(nth - 1),
        || h.log(),
    )
    .await
}

pub(super) fn approval_embed_for(message: &FakeMessage, id: &str) -> bool {
    approval_text(message, id).is_some()
}

/// The description of the approval embed for reminder `id` that `message` carries.
pub(super) fn approval_text(message: &FakeMessage, id: &str) -> Option<String> {
    message.embeds.iter().find_map(|embed| {
        let description = embed["description"].as_str()?;
        (embed["title"] == "New tools need your approval"
            && description.contains(&format!("reminder:{id}")))
        .then(|| description.to_owned())
    })
}

/// The approval embed the bot posted for reminder `id`.
pub(super) async fn approval_embed(h: &BotHarness, id: &str) -> FakeMessage {
    h.wait_for_bot_message_within("the approval embed", Duration::from_secs(30), |m| {
        approval_embed_for(m, id)
    })
    .await
}

/// The owner clicks `custom_id` on message `message`; returns the bot's answer.
pub(super) async fn click(h: &BotHarness, message: u64, custom_id: &str) -> serde_json::Value {
    let interaction = h
        .discord
        .click_button(h.owner(), h.dm(), message, custom_id)
        .await;
    h.discord.wait_for_callback(interaction).await
}

/// Waits until reminder `id` fired, its file is gone and the scheduler has forgotten it, so a
/// new file with the same id is a new reminder.
pub(super) async fn wait_gone(h: &BotHarness, id: &str) {
    let path = h.sandbox.data_dir.join(format!("reminders/{id}.md"));
    wait::until_true(
        &format!("{id} to fire"),
        Duration::from_secs(60),
        || !path.exists(),
        || h.log(),
    )
    .await;
    // The scheduler forgets a fired id at its next sync after the file is gone: once for
    // each removal of its file.
    let removed = format!("job file removed path=reminders/{id}.md");
    let forgotten = format!("reminder forgotten: its file is gone id=\"{id}\"");
    wait::until_true(
        &format!("{id} forgotten"),
        Duration::from_secs(30),
        || {
            let log = h.log();
            let removals = log.matches(&removed).count();
            removals > 0 && log.matches(&forgotten).count() >= removals
        },
        || h.log(),
    )
    .await;
}
