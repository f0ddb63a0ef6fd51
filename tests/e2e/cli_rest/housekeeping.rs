//! The CLI's rest is the bot's own housekeeping: a background run that starts while the
//! conversation's CLI is being put to sleep (its stop holding main's lock) doesn't take the
//! owner for mid-conversation (BGF-2), so its ping comes as any other.

use std::{process::Command, time::Duration};

use serde_json::json;

use crate::support::{bot::ollim_command, procs::tree};

/// Sends `signal` (`STOP`, `CONT`) to every process in `pids`.
fn signal_all(pids: &[u32], signal: &str) {
    for pid in pids {
        let _ = Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(pid.to_string())
            .status();
    }
}

/// BGF-2 with REST-1: the CLI is frozen, so its stop holds main's lock for the whole grace;
/// a background reminder fired then pings the owner, and nothing refused it as "mid-conversation".
#[tokio::test]
async fn a_run_while_the_cli_is_put_to_sleep_still_pings() {
    let mut h = super::start_idle(1, &[("OLLIM_SCHEDULER_SYNC_SECS", "1")]).await;
    h.converse("hello", "Hi!").await;
    let cli: Vec<u32> = tree(h.pid())
        .into_iter()
        .filter(|p| *p != h.pid())
        .collect();
    assert!(!cli.is_empty(), "no CLI after the reply");
    signal_all(&cli, "STOP");
    h.mock.answer_reminder_runs(
        "mcp__discord__ping_user",
        json!({"message": "Stretch now."}),
        "Reminded.",
    );
    h.sandbox.advance_clock(Duration::from_secs(61));
    h.wait_for_log(
        "putting the conversation's CLI to sleep",
        Duration::from_secs(30),
    )
    .await;
    let added = ollim_command(&h.sandbox, &h.mock)
        .args(["reminder", "add", "-m", "Time to stretch.", "--delay", "0"])
        .output()
        .await
        .unwrap();
    assert!(added.status.success(), "{added:?}");
    h.wait_for_log("background run started", Duration::from_secs(30))
        .await;
    // The run began inside the stop's grace (5 s) unless the machine is very slow; either way
    // its ping must come.
    h.wait_for_bot_message_within("with the ping", Duration::from_secs(60), |m| {
        m.content.contains("Stretch now.")
    })
    .await;
    signal_all(&cli, "CONT");
    let results: Vec<String> = h
        .mock
        .model_requests()
        .into_iter()
        .flat_map(|r| r.tool_results())
        .map(|result| result.content)
        .collect();
    assert!(
        results.iter().all(|r| !r.contains("mid-conversation")),
        "{results:?}"
    );
    h.terminate().await;
}
