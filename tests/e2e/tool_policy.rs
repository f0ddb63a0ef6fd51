//! The tool policy through the real binary, the real CLI, the fake Discord and the mock model
//! (PRM-8, BGF-6, BGF-23, issue 11 §1): a job declaring a refused pattern never starts and the
//! owner hears why; a job declaring a narrow new pattern runs without it until the owner
//! clicks Approve on the embed the bot posted, and a Deny keeps it withheld.

use crate::support;

use std::time::Duration;

use serde_json::json;
use support::{
    bot::{BotHarness, ollim_command},
    cli::CliSandbox,
    fake_discord::FakeMessage,
    mock_api::{MockApi, Reply},
    wait,
};

/// A background reminder due now, declaring `tools`.
fn write_reminder(h: &BotHarness, id: &str, tools: &[&str]) {
    let tools = serde_json::to_string(tools).unwrap();
    write_reminder_with(h, id, &format!("allowed-tools: {tools}\n"));
}

/// A background reminder due now with extra frontmatter lines.
fn write_reminder_with(h: &BotHarness, id: &str, extra: &str) {
    write_reminder_saying(h, id, extra, "Run the check.");
}

/// A background reminder due now with extra frontmatter lines and `body`.
fn write_reminder_saying(h: &BotHarness, id: &str, extra: &str, body: &str) {
    let dir = h.sandbox.data_dir.join("reminders");
    std::fs::create_dir_all(&dir).unwrap();
    let run_at = chrono::Utc::now().to_rfc3339();
    std::fs::write(
        dir.join(format!("{id}.md")),
        format!("---\nid: \"{id}\"\nrun-at: \"{run_at}\"\n{extra}---\n{body}\n"),
    )
    .unwrap();
}

/// Waits until the pending updates mention every one of `needles`; returns their text.
async fn wait_for_pending(h: &BotHarness, needles: &[&str]) -> String {
    let pending = h.sandbox.data_dir.join("state/pending_updates.json");
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let text = std::fs::read_to_string(&pending).unwrap_or_default();
        if needles.iter().all(|n| text.contains(n)) {
            return text;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no update naming {needles:?}: {text}\n{}",
            h.log()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The mock model answers every background run with `text`.
fn answer_background_runs(mock: &MockApi, text: &'static str) {
    mock.add_rule(move |request| {
        request
            .user_prompts()
            .iter()
            .any(|p| p.contains("[reminder-bg:"))
            .then(|| Reply::text(text))
    });
}

/// The mock model: a `[reminder-bg:<id>]` run asks for `command` through Bash, then finishes.
fn run_bash_in_reminders(mock: &MockApi, command: &'static str) {
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
fn bash_results_of(h: &BotHarness, id: &str) -> Vec<(String, bool)> {
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
async fn bash_result_of(h: &BotHarness, id: &str, nth: usize) -> (String, bool) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(found) = bash_results_of(h, id).into_iter().nth(nth - 1) {
            return found;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no Bash result for {id}\n{}",
            h.log()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn approval_embed_for(message: &FakeMessage, id: &str) -> bool {
    message.embeds.iter().any(|embed| {
        embed["title"] == "New tools need your approval"
            && embed["description"]
                .as_str()
                .is_some_and(|d| d.contains(&format!("reminder:{id}")))
    })
}

#[tokio::test]
async fn refused_patterns_never_run_and_the_owner_is_told() {
    let h = BotHarness::greeted_fast_sync(CliSandbox::new()).await;
    answer_background_runs(&h.mock, "this run should not exist");
    write_reminder(&h, "wide", &["Bash(*)"]);
    write_reminder(&h, "chained", &["Bash(ls; rm -rf notes)"]);
    let text = wait_for_pending(&h, &["reminders/wide.md", "reminders/chained.md"]).await;
    assert!(text.contains("Bash(*)"), "{text}");
    assert!(text.contains("chaining"), "{text}");
    // A few more syncs (one a second here): still nothing runs, nothing is reported twice,
    // the files stay. Three seconds take in two or three of them.
    wait::assert_quiet_for(
        "a refused job reaching the model",
        Duration::from_secs(3),
        || {
            h.mock
                .model_requests()
                .iter()
                .any(|r| r.user_prompts().iter().any(|p| p.contains("[reminder-bg:")))
        },
        || h.log(),
    )
    .await;
    assert!(h.sandbox.data_dir.join("reminders/wide.md").exists());
    let log = h.log();
    assert!(
        log.contains("Couldn't load reminders/wide.md: refused tool pattern"),
        "{log}"
    );
    // The owner hears it at the next message.
    h.discord.dm_from(h.owner(), "anything new?").await;
    let requests = h
        .mock
        .wait_for("the owner's message", Duration::from_secs(60), |all| {
            all.iter()
                .any(|r| r.is_main() && r.all_text().contains("anything new?"))
        })
        .await;
    let prompt = requests
        .iter()
        .rev()
        .find(|r| r.is_main() && r.all_text().contains("anything new?"))
        .map(|r| r.user_prompts().join("\n"))
        .unwrap();
    assert!(prompt.contains("reminders/wide.md"), "{prompt}");
    assert_eq!(prompt.matches("reminders/wide.md").count(), 1, "{prompt}");
}

#[tokio::test]
async fn a_new_pattern_waits_for_approval_and_a_denial_keeps_it_withheld() {
    let h = BotHarness::greeted_fast_sync(CliSandbox::new()).await;
    run_bash_in_reminders(&h.mock, "echo held-marker one");
    write_reminder(&h, "approve-me", &["Bash(echo held-marker *)"]);
    let embed = approval_embed(&h, "approve-me").await;
    // The first run goes ahead with the safe set: the command is refused.
    let (result, is_error) = bash_result_of(&h, "approve-me", 1).await;
    assert!(is_error, "ran before approval: {result}");
    let first_prompt = h
        .mock
        .model_requests()
        .into_iter()
        .map(|r| r.user_prompts().join("\n"))
        .find(|p| p.contains("[reminder-bg:approve-me]"))
        .unwrap();
    assert!(
        first_prompt.contains("HELD BACK") && first_prompt.contains("- Bash(echo held-marker *)"),
        "the run is told what is withheld: {first_prompt}"
    );
    click(&h, embed.id, &embed.button_id("act:tools_approve:")).await;
    // Once approved, the same job id gets the pattern.
    wait_gone(&h, "approve-me").await;
    write_reminder(&h, "approve-me", &["Bash(echo held-marker *)"]);
    let (result, is_error) = bash_result_of(&h, "approve-me", 2).await;
    assert!(!is_error && result.contains("held-marker one"), "{result}");

    write_reminder(&h, "deny-me", &["Bash(echo held-marker *)"]);
    let embed = approval_embed(&h, "deny-me").await;
    // An Approve button id clicked on another message (as an agent-made embed could carry)
    // approves nothing.
    let forged = embed
        .button_id("act:tools_deny:")
        .replace("tools_deny", "tools_approve");
    let answer = click(&h, h.bot_messages()[0].id, &forged).await;
    assert!(answer.to_string().contains("unknown action"), "{answer}");
    click(&h, embed.id, &embed.button_id("act:tools_deny:")).await;
    wait_gone(&h, "deny-me").await;
    write_reminder(&h, "deny-me", &["Bash(echo held-marker *)"]);
    let (result, is_error) = bash_result_of(&h, "deny-me", 2).await;
    assert!(is_error, "ran after Deny: {result}");
    let embeds = h
        .bot_messages()
        .iter()
        .filter(|m| approval_embed_for(m, "deny-me"))
        .count();
    assert_eq!(embeds, 1, "a denied pattern is not asked about again");
}

/// An approval holds for the job as it was approved: the same id with other instructions
/// (and the same tools) runs without them until the owner approves again (issue 23 §2).
#[tokio::test]
async fn an_edit_of_an_approved_job_asks_again() {
    let h = BotHarness::greeted_fast_sync(CliSandbox::new()).await;
    run_bash_in_reminders(&h.mock, "echo held-marker one");
    write_reminder(&h, "edit-me", &["Bash(echo held-marker *)"]);
    let embed = approval_embed(&h, "edit-me").await;
    click(&h, embed.id, &embed.button_id("act:tools_approve:")).await;
    wait_gone(&h, "edit-me").await;
    write_reminder_saying(
        &h,
        "edit-me",
        "allowed-tools: [\"Bash(echo held-marker *)\"]\n",
        "Run the check, then send the notes to whoever asks.",
    );
    let (result, is_error) = bash_result_of(&h, "edit-me", 2).await;
    assert!(is_error, "an edited job kept its approval: {result}");
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while h
        .bot_messages()
        .iter()
        .filter(|m| approval_embed_for(m, "edit-me"))
        .count()
        < 2
    {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the owner was not asked about the edited job"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The approval embed the bot posted for reminder `id`.
async fn approval_embed(h: &BotHarness, id: &str) -> FakeMessage {
    h.wait_for_bot_message_within("the approval embed", Duration::from_secs(30), |m| {
        approval_embed_for(m, id)
    })
    .await
}

/// The owner clicks `custom_id` on message `message`; returns the bot's answer.
async fn click(h: &BotHarness, message: u64, custom_id: &str) -> serde_json::Value {
    let interaction = h
        .discord
        .click_button(h.owner(), h.dm(), message, custom_id)
        .await;
    h.discord.wait_for_callback(interaction).await
}

/// Waits until reminder `id` fired and its file is gone, then two more syncs, so the
/// scheduler has forgotten it and a new file with the same id is a new reminder.
async fn wait_gone(h: &BotHarness, id: &str) {
    let path = h.sandbox.data_dir.join(format!("reminders/{id}.md"));
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    while path.exists() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "{id} never fired\n{}",
            h.log()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // The scheduler forgets a fired id at a later sync, which logs nothing: two syncs (one a
    // second here) and a half are the settle this needs; no event marks it.
    tokio::time::sleep(Duration::from_millis(2500)).await;
}

#[tokio::test]
async fn the_owners_shell_approves_and_refused_patterns_are_not_written() {
    let h = BotHarness::greeted_fast_sync(CliSandbox::new()).await;
    let run = |args: &'static [&'static str]| {
        let mut command = ollim_command(&h.sandbox, &h.mock);
        command.args(args);
        command
    };
    let output = run(&[
        "reminder",
        "add",
        "-m",
        "x",
        "--delay",
        "60",
        "--allowed-tools",
        "Bash(*)",
    ])
    .output()
    .await
    .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("refused tool pattern"));
    let output = run(&[
        "reminder",
        "add",
        "-m",
        "x",
        "--delay",
        "60",
        "--allowed-tools",
        "Bash(echo owner-approved *)",
    ])
    .output()
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("approved for reminder:"), "{stdout}");
    let output = run(&[
        "reminder",
        "add",
        "-m",
        "y",
        "--delay",
        "60",
        "--allowed-tools",
        "Bash(echo agent-made *)",
    ])
    .env("OLLIM_BOT_AGENT_CHILD", "1")
    .output()
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("wait for the owner's approval"), "{stdout}");
    // The bot asks about the agent's reminder only.
    h.wait_for_bot_message_within("the approval embed", Duration::from_secs(30), |m| {
        m.embeds.iter().any(|e| {
            e["description"]
                .as_str()
                .is_some_and(|d| d.contains("agent-made"))
        })
    })
    .await;
    assert!(!h.bot_messages().iter().any(|m| {
        serde_json::to_string(&m.embeds)
            .unwrap()
            .contains("owner-approved")
    }));
}

#[tokio::test]
async fn a_missing_skill_or_subagent_skips_the_job_and_the_owner_is_told() {
    let h = BotHarness::greeted_fast_sync(CliSandbox::new()).await;
    answer_background_runs(&h.mock, "ran");
    write_reminder_with(&h, "ghost-skill", "skills: [\"ghost\"]\n");
    write_reminder_with(&h, "ghost-agent", "subagent: \"nobody\"\n");
    write_reminder_with(&h, "real-agent", "subagent: \"gmail-reader\"\n");
    let text = wait_for_pending(&h, &["reminder:ghost-skill", "reminder:ghost-agent"]).await;
    assert!(text.contains("not found (skills/ghost/SKILL.md)"), "{text}");
    assert!(text.contains("The reminder was removed"), "{text}");
    assert!(text.contains("unknown subagent 'nobody'"), "{text}");
    let prompts: Vec<String> = h
        .mock
        .wait_for(
            "the bundled subagent's job",
            Duration::from_secs(60),
            |all| {
                all.iter().any(|r| {
                    r.user_prompts()
                        .iter()
                        .any(|p| p.contains("[reminder-bg:real-agent]"))
                })
            },
        )
        .await
        .iter()
        .flat_map(|r| r.user_prompts().into_iter().map(str::to_owned))
        .collect();
    assert!(
        !prompts
            .iter()
            .any(|p| p.contains("[reminder-bg:ghost-skill]")
                || p.contains("[reminder-bg:ghost-agent]")),
        "a job with a missing skill or subagent ran"
    );
    let bound = prompts
        .iter()
        .find(|p| p.contains("[reminder-bg:real-agent]"))
        .unwrap();
    assert!(bound.contains("gmail-reader"), "{bound}");
}
