//! BOOT-11 under a container engine: the image Podman built from the Containerfile
//! (`.ci/container-image.sh` builds it as `localhost/ollim-bot:test`; `OLLIM_TEST_IMAGE` names
//! another), run the way compose.yaml runs it — the four security options, every capability
//! dropped, the data dir and the CLI's config on volumes — with the host's network, so it
//! reaches the fake Discord and the mock model on the host's loopback. Not in CI: it needs
//! root, Podman and the image.

use crate::support;

use std::{os::unix::fs::chown, path::Path, process::Stdio, time::Duration};

use tokio::process::Command;

use support::{
    bot::spawn_collecting,
    fake_discord::{FakeConfig, FakeDiscord},
    mock_api::{MockApi, Reply},
    wait,
};

/// The `bot` user of the image.
const BOT_UID: u32 = 10001;

fn image() -> String {
    std::env::var("OLLIM_TEST_IMAGE").unwrap_or_else(|_| "localhost/ollim-bot:test".to_owned())
}

/// A folder for a volume, owned by the image's `bot` user.
fn volume(at: &Path) {
    std::fs::create_dir_all(at).unwrap();
    chown(at, Some(BOT_UID), Some(BOT_UID)).unwrap();
}

/// `podman run` with compose.yaml's options (Podman spells `systempaths=unconfined` as
/// `unmask=ALL`) and the variables a user's `.env` would hold.
fn podman_run(name: &str, volumes: &Path, discord: &FakeDiscord, mock: &MockApi) -> Command {
    let mut command = Command::new("podman");
    command
        .args(["run", "--rm", "--name", name, "--network", "host"])
        .args(["--security-opt", "seccomp=unconfined"])
        .args(["--security-opt", "apparmor=unconfined"])
        .args(["--security-opt", "unmask=ALL"])
        .args(["--security-opt", "no-new-privileges"])
        .args(["--cap-drop", "ALL", "--pids-limit", "4096"])
        .arg("-v")
        .arg(format!(
            "{}:/home/bot/.ollim-bot",
            volumes.join("data").display()
        ))
        .arg("-v")
        .arg(format!(
            "{}:/home/bot/.claude",
            volumes.join("cli").display()
        ));
    let vars = [
        ("DISCORD_TOKEN", discord.config().valid_token.clone()),
        ("OLLIM_DISCORD_API_URL", discord.base_url()),
        ("OLLIM_USER_NAME", "Julia".to_owned()),
        ("OLLIM_BOT_NAME", "Ollim".to_owned()),
        ("OLLIM_TIMEZONE", "UTC".to_owned()),
        ("ANTHROPIC_BASE_URL", mock.base_url()),
        ("ANTHROPIC_API_KEY", "sk-test".to_owned()),
        ("OLLIM_DOCS_MCP_URL", String::new()),
        ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".to_owned()),
        ("CLAUDE_CODE_MAX_RETRIES", "0".to_owned()),
        ("RUST_LOG", "ollim_bot=debug".to_owned()),
    ];
    for (key, value) in vars {
        command.arg("-e").arg(format!("{key}={value}"));
    }
    command
        .arg(image())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    command
}

async fn podman(args: &[&str]) -> std::process::Output {
    Command::new("podman").args(args).output().await.unwrap()
}

/// The image as a new user runs it: started with a fresh data volume, the bot greets the
/// owner; the owner's DM is answered by the pinned CLI inside the image, in its own bubblewrap
/// container (the log says so); the health check passes; `podman stop` ends it through tini
/// with the bot's stop line and exit 0; a second start resumes the same conversation.
#[tokio::test]
#[ignore = "needs root, Podman and the image .ci/container-image.sh builds; run with --ignored"]
async fn the_image_answers_the_owner_with_each_cli_in_its_container() {
    let discord = FakeDiscord::start(FakeConfig::default()).await;
    let mock = MockApi::start().await;
    let volumes = tempfile::tempdir().unwrap();
    volume(&volumes.path().join("data"));
    volume(&volumes.path().join("cli"));
    let name = format!("ollim-test-{}", std::process::id());
    let owner = discord.config().owner_id;
    let dm = discord.dm_channel_id(owner);
    let bot_says = |needle: &'static str| {
        let discord = &discord;
        move || {
            discord
                .channel_messages(dm)
                .into_iter()
                .find(|m| m.by_bot && !m.deleted && m.content.contains(needle))
        }
    };

    let bot = spawn_collecting(podman_run(&name, volumes.path(), &discord, &mock));
    let log = || bot.stderr.lock().unwrap().clone();
    assert!(
        discord.try_wait_for_ready(Duration::from_secs(120)).await,
        "the bot in the image never reached Discord\n{}",
        log()
    );
    wait::eventually(
        "the greeting",
        Duration::from_secs(60),
        bot_says("plate today"),
        log,
    )
    .await;

    let answer = "Yes — answering from inside the image.";
    mock.push(Reply::text(answer));
    discord
        .dm_from(owner, "are you running in a container?")
        .await;
    wait::eventually("the answer", Duration::from_secs(90), bot_says(answer), log).await;
    assert!(!mock.main_requests().is_empty(), "the CLI asked the model");
    assert!(
        log().contains("each CLI runs in a container of its own"),
        "{}",
        log()
    );
    assert!(
        volumes.path().join("data/state/sessions.json").is_file(),
        "the main session is saved on the data volume"
    );

    let health = podman(&["healthcheck", "run", &name]).await;
    assert!(health.status.success(), "health check: {health:?}");

    let stop = podman(&["stop", "--time", "60", &name]).await;
    assert!(stop.status.success(), "podman stop: {stop:?}");
    let mut child = bot.child;
    let status = tokio::time::timeout(Duration::from_secs(70), child.wait())
        .await
        .expect("the container ended")
        .unwrap();
    assert_eq!(status.code(), Some(0), "{}", log());
    wait::eventually(
        "the old gateway connection to go",
        Duration::from_secs(10),
        || (!discord.is_connected()).then_some(()),
        log,
    )
    .await;

    // A second start on the same volumes resumes the conversation it saved.
    let again = spawn_collecting(podman_run(&name, volumes.path(), &discord, &mock));
    let log = || again.stderr.lock().unwrap().clone();
    assert!(
        discord.try_wait_for_ready(Duration::from_secs(120)).await,
        "{}",
        log()
    );
    let answer = "Still the same conversation.";
    mock.push(Reply::text(answer));
    discord.dm_from(owner, "do you remember me?").await;
    wait::eventually(
        "the second answer",
        Duration::from_secs(90),
        bot_says(answer),
        log,
    )
    .await;
    let last = mock.main_requests().pop().unwrap().all_text();
    assert!(
        last.contains("are you running in a container?"),
        "the conversation before the stop is resumed: {last}"
    );
    let _ = podman(&["stop", "--time", "60", &name]).await;
}
