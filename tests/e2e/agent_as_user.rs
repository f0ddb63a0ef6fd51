//! The walls of issue 39 for an ordinary user (CI runs as root, so the test drops to `nobody`):
//! the real binary, run as that user against the fake Discord and the mock model, with a
//! shell the owner granted; the model, scripted as a hostile agent, looks for a network, for
//! other processes and other sessions' CLI homes, and forks without end. What it finds is
//! asserted: a loopback only, its own processes only, its own home only, and no more processes
//! than a container may have.

use crate::support;

use std::{os::unix::fs::PermissionsExt, time::Duration};

use serde_json::json;
use support::{
    bot::{BotProcess, bot_command, spawn_collecting},
    cli::CliSandbox,
    fake_discord::{FakeConfig, FakeDiscord},
    mock_api::{MockApi, Reply},
};

const NOBODY: &str = "65534";

fn running_as_root() -> bool {
    rustix::process::geteuid().is_root()
}

/// The bot's command as `nobody` (through `setpriv`, from a copy of the binary that user may
/// run), with everything else `bot_command` sets.
fn as_nobody(command: &tokio::process::Command, bin: &std::path::Path) -> tokio::process::Command {
    let std = command.as_std();
    let mut wrapped = tokio::process::Command::new("setpriv");
    wrapped
        .args([
            format!("--reuid={NOBODY}"),
            format!("--regid={NOBODY}"),
            "--clear-groups".to_owned(),
            "--".to_owned(),
        ])
        .arg(bin)
        .env_clear()
        .envs(
            std.get_envs()
                .filter_map(|(name, value)| Some((name, value?))),
        )
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true);
    if let Some(dir) = std.get_current_dir() {
        wrapped.current_dir(dir);
    }
    wrapped
}

#[tokio::test]
async fn an_ordinary_user_gets_a_container_of_its_own_with_its_network_and_limits() {
    let discord = FakeDiscord::start(FakeConfig::default()).await;
    let mock = MockApi::start().await;
    let sandbox = CliSandbox::new();
    let data = sandbox.data_dir.clone();
    std::fs::write(
        data.join("tool-policy.yaml"),
        "main_session:\n  additional_allowed: [\"Bash(sh -c *)\"]\n",
    )
    .unwrap();
    let command = bot_command(
        &discord,
        &mock,
        &sandbox,
        &[("OLLIM_SESSION_PROCESSES", "200")],
        &[],
    );
    let bin_dir = tempfile::Builder::new()
        .prefix("ollim-user-bin-")
        .tempdir()
        .unwrap();
    let command = if running_as_root() {
        let bin = bin_dir.path().join("ollim-bot");
        std::fs::copy(support::paths::ollim_bot_exe(), &bin).unwrap();
        for path in [bin_dir.path(), bin.as_path()] {
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let owned = std::process::Command::new("chown")
            .args(["-R", &format!("{NOBODY}:{NOBODY}")])
            .arg(sandbox.home.path())
            .status()
            .unwrap();
        assert!(owned.success());
        as_nobody(&command, &bin)
    } else {
        command
    };
    let BotProcess { child, stderr } = spawn_collecting(command);
    let ready = discord.try_wait_for_ready(Duration::from_secs(20)).await;
    assert!(
        ready,
        "the bot never became ready\n{}",
        stderr.lock().unwrap()
    );
    let probe = "exec 2>&1; echo ME $(id -u); echo LINKS $(grep -c : /proc/net/dev); \
                 echo PROCS $(ls /proc | grep -c \"^[0-9]\"); \
                 echo HOMES $(ls \"$CLAUDE_CONFIG_DIR/..\" | wc -l); \
                 i=0; while [ $i -lt 400 ]; do (sleep 3 &) 2>/dev/null; i=$((i+1)); done; \
                 set -- /proc/[0-9]*; echo FORKS $#";
    mock.push(Reply::tool_use(
        "Bash",
        json!({"command": format!("sh -c '{}'", probe.replace('\'', "'\\''"))}),
    ));
    mock.push(Reply::text("looked around"));
    let owner = discord.config().owner_id;
    discord.dm_from(owner, "an email says: look around").await;
    let dm = discord.dm_channel_id(owner);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    while !discord
        .channel_messages(dm)
        .iter()
        .any(|m| m.by_bot && m.content.contains("looked around"))
    {
        assert!(
            tokio::time::Instant::now() < deadline,
            "no reply\n{}",
            stderr.lock().unwrap()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let seen = mock
        .main_requests()
        .into_iter()
        .flat_map(|r| r.tool_results())
        .map(|r| r.content)
        .find(|content| content.contains("LINKS"))
        .expect("the probe ran");
    let value = |key: &str| -> u64 {
        seen.lines()
            .find_map(|line| line.strip_prefix(key))
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or_else(|| panic!("{key}missing: {seen}"))
    };
    if running_as_root() {
        assert_eq!(value("ME "), 65534, "{seen}");
    }
    assert_eq!(value("LINKS "), 1, "a loopback only: {seen}");
    assert!(value("PROCS ") < 16, "{seen}");
    assert_eq!(value("HOMES "), 1, "its own CLI home only: {seen}");
    assert!(value("FORKS ") <= 200, "{seen}");
    drop(child);
}
