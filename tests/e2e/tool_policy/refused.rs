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
    // The next read of the files changes nothing. Written again as they are, they are read
    // again at the next sync, and the scheduler's look at the schedule that follows it would
    // take a due job (both are due now) if either had been let in: every look so far found
    // nothing due, no run reached the model, nothing was reported twice (below) and the files
    // stay.
    let from = h.log().len();
    for id in ["wide", "chained"] {
        let path = h.sandbox.data_dir.join(format!("reminders/{id}.md"));
        std::fs::write(&path, std::fs::read(&path).unwrap()).unwrap();
    }
    wait::until_true(
        "a sync after the files were written again, and a look at the schedule after it",
        Duration::from_secs(30),
        || {
            let log = h.log();
            log[from..]
                .split_once("schedule read")
                .is_some_and(|(_, after)| after.contains("looked at the schedule"))
        },
        || h.log(),
    )
    .await;
    let log = h.log();
    let looks: Vec<&str> = log
        .lines()
        .filter(|line| line.contains("looked at the schedule"))
        .collect();
    assert!(
        looks.iter().all(|line| line.contains(" due=0 ")),
        "a refused job fell due: {looks:#?}"
    );
    assert!(
        !h.mock
            .model_requests()
            .iter()
            .any(|r| r.user_prompts().iter().any(|p| p.contains("[reminder-bg:"))),
        "a refused job reached the model"
    );
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
