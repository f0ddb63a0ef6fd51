//! An approval covers the whole job (issue 39 §4, BOX-7): the owner approves a background
//! reminder's tool, the agent rewrites the job — into the main conversation, or to another
//! time — with the same instructions and tools, and the tool is withheld from the rewritten
//! job until the owner approves it again, on an embed that names how and when it now runs.

use std::time::Duration;

use serde_json::json;

use super::{
    approval_text, bash_result_of, click, now, reminder_text, run_bash_in_reminders, wait_gone,
    write_reminder_due,
};
use crate::support::{
    bot::BotHarness,
    cli::CliSandbox,
    fake_discord::FakeMessage,
    mock_api::{MockApi, Reply},
    wait,
};

const TOOLS: &str = "allowed-tools: [\"Bash(echo held-marker *)\"]\n";
const BODY: &str = "Run the check.";

/// The mock model, in the main session: a turn whose prompt contains `trigger` calls `tool`
/// with `input`, then answers `done`.
fn in_main_turn(
    mock: &MockApi,
    trigger: &'static str,
    tool: &'static str,
    input: serde_json::Value,
) {
    mock.add_rule(move |request| {
        let prompt = request.user_prompts().last()?.to_string();
        if !request.is_main() || !prompt.contains(trigger) {
            return None;
        }
        Some(if request.tool_results().is_empty() {
            Reply::tool_use(tool, input.clone())
        } else {
            Reply::text("done")
        })
    });
}

/// The results of every tool call the model made in main-session turns whose prompt contains
/// `trigger`, oldest first.
fn results_in_turns(h: &BotHarness, trigger: &str) -> Vec<(String, bool)> {
    h.mock
        .model_requests()
        .into_iter()
        .filter_map(|request| {
            let ours = request
                .user_prompts()
                .last()
                .is_some_and(|p| p.contains(trigger));
            let result = request.tool_results().into_iter().next()?;
            ours.then_some((result.content, result.is_error))
        })
        .collect()
}

/// Result number `nth` (from 1) of the turns whose prompt contains `trigger`.
async fn result_in_turn(h: &BotHarness, trigger: &str, nth: usize) -> (String, bool) {
    wait::eventually(
        &format!("tool result {nth} in a turn of {trigger:?}"),
        Duration::from_secs(60),
        || results_in_turns(h, trigger).into_iter().nth(nth - 1),
        || h.log(),
    )
    .await
}

/// The approval embed for reminder `id` whose text contains `needle`.
async fn approval_saying(h: &BotHarness, id: &str, needle: &str) -> (FakeMessage, String) {
    let message = h
        .wait_for_bot_message_within(
            &format!("an approval embed for {id} saying {needle:?}"),
            Duration::from_secs(60),
            |m| approval_text(m, id).is_some_and(|text| text.contains(needle)),
        )
        .await;
    let text = approval_text(&message, id).unwrap_or_default();
    (message, text)
}

/// The agent moves an approved background job into the main conversation with its own Write
/// tool, same instructions, tools and time: the foreground turn runs without the tool, and
/// the owner is asked again, told it is a foreground job now. Once they approve that, the same
/// foreground job has it.
#[tokio::test]
async fn an_approval_does_not_follow_its_job_into_the_foreground() {
    let h = BotHarness::greeted_fast_sync(CliSandbox::new()).await;
    run_bash_in_reminders(&h.mock, "echo held-marker background");
    in_main_turn(
        &h.mock,
        "[reminder:flip]",
        "Bash",
        json!({"command": "echo held-marker foreground"}),
    );
    let due = now();
    let foreground = reminder_text("flip", &due, &format!("{TOOLS}background: false\n"), BODY);
    in_main_turn(
        &h.mock,
        "move the check",
        "Write",
        json!({"file_path": "reminders/flip.md", "content": foreground}),
    );

    // A later reminder beside it, as an owner would have.
    write_reminder_due(&h, "later", "2099-01-01T09:00:00Z", "", "A later check.");
    write_reminder_due(&h, "flip", &due, TOOLS, BODY);
    let (embed, text) = approval_saying(&h, "flip", "run: background, forked").await;
    assert!(
        text.contains("run-at: "),
        "the embed names the time: {text}"
    );
    let _ = bash_result_of(&h, "flip", 1).await;
    click(&h, embed.id, &embed.button_id("act:tools_approve:")).await;
    wait_gone(&h, "flip").await;
    // The job as approved keeps its tool.
    write_reminder_due(&h, "flip", &due, TOOLS, BODY);
    let (result, is_error) = bash_result_of(&h, "flip", 2).await;
    assert!(
        !is_error && result.contains("held-marker background"),
        "{result}"
    );
    wait_gone(&h, "flip").await;

    // The agent rewrites it as a foreground job.
    h.discord
        .dm_from(h.owner(), "move the check into our chat")
        .await;
    let (result, is_error) = result_in_turn(&h, "move the check", 1).await;
    assert!(!is_error, "the agent's write failed: {result}");
    let (result, is_error) = result_in_turn(&h, "[reminder:flip]", 1).await;
    assert!(
        is_error && !result.contains("held-marker foreground"),
        "the approval of the background job reached its foreground rewrite: {result}"
    );
    let (embed, text) =
        approval_saying(&h, "flip", "run: foreground (in the main conversation)").await;
    assert!(text.contains("Changed since you approved it"), "{text}");

    // Approved again, as a foreground job: now its turn has the tool.
    click(&h, embed.id, &embed.button_id("act:tools_approve:")).await;
    wait_gone(&h, "flip").await;
    h.discord.dm_from(h.owner(), "move the check again").await;
    let (result, is_error) = result_in_turn(&h, "[reminder:flip]", 2).await;
    assert!(
        !is_error && result.contains("held-marker foreground"),
        "{result}"
    );
}

/// The same job moved to another time, or allowed to ping no longer… any setting: the
/// rewritten job runs without its tool until the owner approves it as it is now.
#[tokio::test]
async fn an_approval_does_not_follow_its_job_to_another_time() {
    let h = BotHarness::greeted_fast_sync(CliSandbox::new()).await;
    run_bash_in_reminders(&h.mock, "echo held-marker one");
    let due = now();
    write_reminder_due(&h, "move-me", &due, TOOLS, BODY);
    let (embed, _) = approval_saying(&h, "move-me", "allow-ping: true").await;
    click(&h, embed.id, &embed.button_id("act:tools_approve:")).await;
    wait_gone(&h, "move-me").await;

    let later = now();
    assert_ne!(later, due);
    write_reminder_due(&h, "move-me", &later, TOOLS, BODY);
    let (result, is_error) = bash_result_of(&h, "move-me", 2).await;
    assert!(
        is_error,
        "a job moved to another time kept its approval: {result}"
    );
    let (_, text) = approval_saying(&h, "move-me", "Changed since you approved it").await;
    assert!(text.contains("run: background, forked"), "{text}");
}
