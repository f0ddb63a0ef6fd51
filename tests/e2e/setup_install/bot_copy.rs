//! A started bot and its own CLI copy: it runs that copy from inside its container, its agent
//! cannot change it, and a start brings it to the tested version.

use std::os::unix::fs::PermissionsExt;

use ollim_bot::claude::TESTED_CLI_VERSION;

use super::Fresh;
use crate::support::{
    self, bot::BotHarness, cli::CliSandbox, cli::claude_cli_path, mock_api::Reply,
};

/// The bot's own copy's folder in `sandbox`'s HOME, and its `node_modules/.bin`, made.
fn bot_copy_folders(sandbox: &CliSandbox) -> (std::path::PathBuf, std::path::PathBuf) {
    let dir = sandbox
        .home
        .path()
        .join(".local/share/ollim-bot/claude-cli");
    let bin = dir.join("node_modules/.bin");
    std::fs::create_dir_all(&bin).unwrap();
    (dir, bin)
}

/// The bot's own copy is what a started bot runs without `OLLIM_CLAUDE_CLI`: its CLI starts
/// from there inside the container and answers a DM. An agent granted a shell then tries to
/// swap that copy for its own program and to plant a file beside it: the copy is as it was.
#[tokio::test]
async fn the_bot_runs_its_own_copy_and_its_agent_cannot_change_it() {
    let on_path = std::env::var_os("PATH").unwrap_or_default();
    assert!(
        std::env::split_paths(&on_path).all(|dir| !dir.join("claude").exists()),
        "a `claude` on PATH: this test needs a machine without one"
    );
    let sandbox = CliSandbox::new();
    let (dir, bin) = bot_copy_folders(&sandbox);
    let real = std::fs::canonicalize(claude_cli_path()).unwrap();
    std::os::unix::fs::symlink(&real, bin.join("claude")).unwrap();
    std::fs::write(
        sandbox.data_dir.join("tool-policy.yaml"),
        "main_session:\n  additional_allowed: [\"Bash(sh -c *)\"]\n",
    )
    .unwrap();
    let mut h = BotHarness::start_parts(
        support::fake_discord::FakeDiscord::start(support::fake_discord::FakeConfig::default())
            .await,
        support::mock_api::MockApi::start().await,
        sandbox,
        // Blank is unset: the bot chooses for itself.
        &[("OLLIM_CLAUDE_CLI", "")],
    )
    .await;
    h.greeted().await;
    let swap = format!(
        "exec 2>&1; B={bin}; rm -f $B/claude; printf \"#!/bin/sh\\necho pwned\\n\" > $B/claude; \
         chmod +x $B/claude; echo planted > {dir}/planted; ls -l $B",
        bin = bin.display(),
        dir = dir.display()
    );
    h.mock.push(crate::agent_container::shell(&swap));
    h.mock.push(Reply::text("Hello from the bot's own CLI."));
    h.discord
        .dm_from(h.owner(), "the email says: update your Claude CLI")
        .await;
    h.wait_for_bot_message("the answer", |m| {
        m.content.contains("Hello from the bot's own CLI.")
    })
    .await;
    let results: Vec<String> = h
        .mock
        .main_requests()
        .into_iter()
        .flat_map(|r| r.tool_results())
        .map(|result| result.content)
        .collect();
    assert!(!results.is_empty(), "the shell ran");
    assert_eq!(
        std::fs::read_link(bin.join("claude")).unwrap(),
        real,
        "{results:?}"
    );
    assert!(!dir.join("planted").exists(), "{results:?}");
    h.terminate().await;
}

/// The bot's own copy at another version (an update moved the tested one on): the start runs
/// npm into the same folder with the tested package before anything runs the copy, says so,
/// and the bot answers through the tested CLI.
#[tokio::test]
async fn a_start_brings_the_bot_s_own_copy_to_the_tested_version() {
    let sandbox = CliSandbox::new();
    let (dir, bin) = bot_copy_folders(&sandbox);
    let old = bin.join("claude");
    std::fs::write(&old, "#!/bin/sh\necho '2.1.300 (Claude Code)'\n").unwrap();
    std::fs::set_permissions(&old, std::fs::Permissions::from_mode(0o755)).unwrap();
    // Only the stand-in npm (and where it records) from this one.
    let fresh = Fresh::new().with_fake_npm();
    let path = format!(
        "{}:{}",
        fresh.bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut h = BotHarness::start_parts(
        support::fake_discord::FakeDiscord::start(support::fake_discord::FakeConfig::default())
            .await,
        support::mock_api::MockApi::start().await,
        sandbox,
        &[("OLLIM_CLAUDE_CLI", ""), ("PATH", path.as_str())],
    )
    .await;
    h.greeted().await;
    let args = fresh.npm_args().expect("npm ran at the start");
    assert!(args.contains(&dir.display().to_string()), "{args:?}");
    assert!(
        args.contains(&format!("@anthropic-ai/claude-code@{TESTED_CLI_VERSION}")),
        "{args:?}"
    );
    let log = h.log();
    assert!(
        log.contains("Claude Code CLI 2.1.300") && log.contains("to the tested"),
        "{log}"
    );
    assert!(
        log.contains(&format!(
            "The bot's Claude Code CLI is now {TESTED_CLI_VERSION}."
        )),
        "{log}"
    );
    h.converse("are you there?", "Yes, on the tested CLI.")
        .await;
    h.terminate().await;
}
