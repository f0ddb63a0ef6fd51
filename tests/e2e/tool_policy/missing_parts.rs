//! A job naming a skill or subagent that does not exist is skipped, and the owner is told.

use std::time::Duration;

use super::{answer_background_runs, wait_for_pending, write_reminder_with};
use crate::support::{bot::BotHarness, cli::CliSandbox};

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
