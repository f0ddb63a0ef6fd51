//! Approval from the owner's shell, and refused patterns never written.

use std::time::Duration;

use crate::support::{
    bot::{BotHarness, ollim_command},
    cli::CliSandbox,
};

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
