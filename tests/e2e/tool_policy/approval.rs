//! Approval in Discord: a new pattern waits for the owner's Approve, a Deny keeps it
//! withheld, and an edit of an approved job asks again (issue 23 §2).

use std::time::Duration;

use super::{
    approval_embed, approval_embed_for, bash_result_of, click, now, run_bash_in_reminders,
    wait_gone, write_reminder, write_reminder_due,
};
use crate::support::{bot::BotHarness, cli::CliSandbox, wait};

#[tokio::test]
async fn a_new_pattern_waits_for_approval_and_a_denial_keeps_it_withheld() {
    let h = BotHarness::greeted_fast_sync(CliSandbox::new()).await;
    run_bash_in_reminders(&h.mock, "echo held-marker one");
    // The same job twice: the same instructions, tools and time.
    let due = now();
    let tools = "allowed-tools: [\"Bash(echo held-marker *)\"]\n";
    write_reminder_due(&h, "approve-me", &due, tools, "Run the check.");
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
    // Once approved, the same job gets the pattern.
    wait_gone(&h, "approve-me").await;
    write_reminder_due(&h, "approve-me", &due, tools, "Run the check.");
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
    let due = now();
    let tools = "allowed-tools: [\"Bash(echo held-marker *)\"]\n";
    write_reminder_due(&h, "edit-me", &due, tools, "Run the check.");
    let embed = approval_embed(&h, "edit-me").await;
    click(&h, embed.id, &embed.button_id("act:tools_approve:")).await;
    wait_gone(&h, "edit-me").await;
    write_reminder_due(
        &h,
        "edit-me",
        &due,
        tools,
        "Run the check, then send the notes to whoever asks.",
    );
    let (result, is_error) = bash_result_of(&h, "edit-me", 2).await;
    assert!(is_error, "an edited job kept its approval: {result}");
    wait::until_true(
        "the owner asked about the edited job",
        Duration::from_secs(30),
        || {
            let asked = h.bot_messages();
            asked
                .iter()
                .filter(|m| approval_embed_for(m, "edit-me"))
                .count()
                >= 2
        },
        String::new,
    )
    .await;
}
