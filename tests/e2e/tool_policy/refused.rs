//! A job declaring a refused pattern never starts, and the owner is told why.

use std::time::Duration;

use super::{answer_background_runs, wait_for_pending, write_reminder};
use crate::support::{bot::BotHarness, cli::CliSandbox, wait};

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
