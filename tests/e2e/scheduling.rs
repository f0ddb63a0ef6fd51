//! Scheduling through the real binary: the CLI writes files, the bot's scheduler fires them
//! against the fake Discord and the mock model (RTN-1…6, REM-1…9, SCH-2, SCH-7, CMD-2…5,
//! MCP-13, GIT-2). The sync interval is shortened to 1 s (`OLLIM_SCHEDULER_SYNC_SECS`). A
//! module per topic: reminders, routines, chains, and what a restart catches up on.

use crate::support;

use std::time::Duration;

use support::{
    bot::{BotHarness, ollim_command},
    cli::CliSandbox,
    wait,
};

mod after_restart;
mod chains;
mod reminders;
mod routines;

pub(super) async fn cli(h: &BotHarness, args: &[&str]) -> (i32, String, String) {
    let output = ollim_command(&h.sandbox, &h.mock)
        .args(args)
        .output()
        .await
        .expect("run ollim-bot");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

pub(super) async fn greeted(sandbox: CliSandbox) -> BotHarness {
    BotHarness::greeted_fast_sync(sandbox).await
}

pub(super) fn scheduled_id(stdout: &str) -> String {
    stdout
        .strip_prefix("scheduled ")
        .and_then(|rest| rest.split(':').next())
        .unwrap_or_else(|| panic!("unexpected output: {stdout}"))
        .to_owned()
}

pub(super) fn git_log(h: &BotHarness) -> String {
    let output = std::process::Command::new("git")
        .args(["log", "--format=%s"])
        .current_dir(&h.sandbox.data_dir)
        .output()
        .unwrap();
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Waits until `check` holds; after `within` panics saying `what` did not happen.
pub(super) async fn wait_until(what: &str, within: Duration, check: impl FnMut() -> bool) {
    wait::until_true(what, within, check, String::new).await;
}
