//! The CLI crashing at start, over and over (issue 16), through the real binary, the fake
//! Discord and the real CLI against the mock model: a `claude` wrapper dies at once while a
//! flag file exists. Three background reminders fall due meanwhile: the starts are spaced out
//! (no spawn storm), the owner hears of it exactly once, their own message gets a plain
//! answer, and once the flag is gone the runs all happen and the owner is told it works again.

use crate::support;

use std::{os::unix::fs::PermissionsExt, path::Path, time::Duration};

use support::{
    bot::BotHarness,
    cli::{CliSandbox, claude_cli_path},
    fake_discord::{FakeConfig, FakeDiscord},
    mock_api::{MockApi, Reply},
    wait,
};

const JOBS: usize = 3;
const FAILING: &str = "I can't start Claude Code, so scheduled work is waiting";
const RECOVERED: &str = "Claude Code starts again";
const WAITING: &str = "the CLI won't start; the run waits";

/// A `claude` that crashes at start while `flag` exists (counting each start in `count`) and
/// is the real CLI otherwise; `--version` always answers.
fn crashing_cli(dir: &Path, flag: &Path, count: &Path) -> std::path::PathBuf {
    let path = dir.join("claude-crashing");
    let script = format!(
        "#!/bin/sh\n\
         if [ -e '{flag}' ] && [ \"$1\" != --version ]; then\n\
           echo start >> '{count}'\n\
           echo 'fatal: the node runtime is broken' >&2\n\
           exit 1\n\
         fi\n\
         exec '{real}' \"$@\"\n",
        flag = flag.display(),
        count = count.display(),
        real = claude_cli_path().display(),
    );
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

fn starts(count: &Path) -> usize {
    std::fs::read_to_string(count).map_or(0, |text| text.lines().count())
}

fn bot_texts(h: &BotHarness, needle: &str) -> usize {
    h.bot_messages()
        .iter()
        .filter(|m| m.content.contains(needle))
        .count()
}

/// Waits until every job ran: a fired reminder's file is removed once its run is over.
async fn wait_for_runs(h: &BotHarness) {
    let folder = h.sandbox.data_dir.join("reminders");
    let left = || {
        std::fs::read_dir(&folder).map_or(0, |entries| {
            entries
                .flatten()
                .filter(|e| e.file_name().to_string_lossy().starts_with("crash-job"))
                .count()
        })
    };
    wait::until_true(
        &format!("all {JOBS} runs"),
        Duration::from_secs(90),
        || left() == 0,
        || format!("{} still waiting\n{}", left(), h.log()),
    )
    .await;
}

#[tokio::test]
async fn a_cli_that_dies_at_start_is_retried_with_backoff_and_the_owner_told_once() {
    let sandbox = CliSandbox::new();
    // The wrapper runs inside each CLI's container, which shows only what the box grants: it
    // reads the flag and counts starts in the agent's notes (there in every container), and
    // execs the real CLI from a folder the sandbox is told to allow.
    let scratch = sandbox.data_dir.join("notes");
    std::fs::create_dir_all(&scratch).unwrap();
    let flag = scratch.join("cli-broken");
    let count = scratch.join("cli-starts");
    let real_cli_dir = claude_cli_path()
        .ancestors()
        .nth(3)
        .unwrap()
        .to_string_lossy()
        .into_owned();
    std::fs::write(&flag, "").unwrap();
    let cli = crashing_cli(sandbox.home.path(), &flag, &count);
    let h = BotHarness::start_parts(
        FakeDiscord::start(FakeConfig::default()).await,
        MockApi::start().await,
        sandbox,
        &[
            ("OLLIM_SCHEDULER_SYNC_SECS", "1"),
            ("OLLIM_CLAUDE_CLI", cli.to_str().unwrap()),
            ("OLLIM_SANDBOX_READ", real_cli_dir.as_str()),
        ],
    )
    .await;
    h.greeted().await;
    h.mock.set_default(Reply::text("done"));
    for n in 0..JOBS {
        h.add_reminder_now(&format!("crash job {n}")).await;
    }
    let failing = h
        .wait_for_bot_message_within("the notice", Duration::from_secs(30), |m| {
            m.content.contains(FAILING)
        })
        .await;
    assert!(
        failing.content.contains("the node runtime is broken"),
        "{}",
        failing.content
    );
    // Three runs wait on one gate: over the next nine tries the starts stay few (the gate
    // spaces them 2 s, 4 s, 8 s apart and refuses the rest), where without it each try would
    // have started the CLI and failed. The clock moves them on, a second at a time.
    let at_notice = starts(&count);
    let tries = h.log().matches(WAITING).count();
    for more in 1..=9 {
        h.sandbox.advance_clock(Duration::from_secs(1));
        h.wait_for_log_count(WAITING, tries + more, Duration::from_secs(30))
            .await;
    }
    let during = starts(&count) - at_notice;
    assert!(during <= 4, "{during} starts in nine tries: no backoff");

    // The owner's own message: a plain answer naming the cause, not a generic error.
    h.discord.dm_from(h.owner(), "are you there?").await;
    let answer = h
        .wait_for_bot_message_within("the owner's answer", Duration::from_secs(30), |m| {
            m.content.contains("I can't start Claude Code right now")
        })
        .await;
    assert!(
        answer.content.contains("the node runtime is broken"),
        "{}",
        answer.content
    );
    assert_eq!(bot_texts(&h, "couldn't complete"), 0, "no run gave up");

    // The CLI is mended: the waiting runs start on the gate's next try (the clock moved past
    // the longest wait) and all happen.
    std::fs::remove_file(&flag).unwrap();
    h.sandbox.advance_clock(Duration::from_secs(6 * 60));
    h.wait_for_bot_message_within("the recovery", Duration::from_secs(60), |m| {
        m.content.contains(RECOVERED)
    })
    .await;
    wait_for_runs(&h).await;
    let prompts: String = h
        .mock
        .requests()
        .iter()
        .filter_map(|r| r.last_user_text().map(str::to_owned))
        .collect::<Vec<_>>()
        .join("\n");
    for n in 0..JOBS {
        assert!(
            prompts.contains(&format!("crash job {n}")),
            "job {n} never ran"
        );
    }
    // The notices came before the runs were done; a turn of the owner's after that shows
    // whether any came again.
    h.converse("and now?", "working again").await;
    assert_eq!(bot_texts(&h, FAILING), 1, "told exactly once");
    assert_eq!(bot_texts(&h, RECOVERED), 1, "recovery told once");
    assert_eq!(bot_texts(&h, "couldn't complete"), 0);
    let total = starts(&count);
    assert!(total < 12, "{total} failed starts");
}
