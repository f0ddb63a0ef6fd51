//! The real `ollim-bot` binary against the fake Discord, the pinned CLI and the mock model.

use std::{
    process::Stdio,
    sync::{Arc, Mutex},
    time::Duration,
};

use tokio::{
    io::{AsyncBufReadExt, BufReader},
    process::{Child, Command},
};

mod events;
mod subcommands;

pub use events::{WEBHOOK_STARTED, webhook_port_in};

use super::{
    cli::{CliSandbox, claude_cli_path},
    fake_discord::{FakeConfig, FakeDiscord, FakeMessage},
    mock_api::{MockApi, Reply},
};

/// A running bot process with everything it talks to.
pub struct BotHarness {
    pub discord: FakeDiscord,
    pub mock: MockApi,
    pub sandbox: CliSandbox,
    pub child: Child,
    pub stderr: Arc<Mutex<String>>,
    /// From spawning the process to the fake Discord seeing its gateway READY.
    pub spawn_to_ready: Duration,
}

impl BotHarness {
    /// Starts the fake Discord, the mock model and the bot; waits for the gateway READY.
    pub async fn start() -> Self {
        Self::start_with(FakeConfig::default(), &[]).await
    }

    /// Like [`Self::start`] with a fake configuration and extra environment for the bot.
    pub async fn start_with(config: FakeConfig, extra_env: &[(&str, &str)]) -> Self {
        let discord = FakeDiscord::start(config).await;
        let mock = MockApi::start().await;
        let sandbox = CliSandbox::new();
        Self::launch(discord, mock, sandbox, extra_env).await
    }

    async fn launch(
        discord: FakeDiscord,
        mock: MockApi,
        sandbox: CliSandbox,
        extra_env: &[(&str, &str)],
    ) -> Self {
        let spawned = std::time::Instant::now();
        let BotProcess { child, stderr } =
            spawn_collecting(bot_command(&discord, &mock, &sandbox, extra_env, &[]));
        let mut harness = Self {
            discord,
            mock,
            sandbox,
            child,
            stderr,
            spawn_to_ready: Duration::ZERO,
        };
        if !harness
            .discord
            .try_wait_for_ready(Duration::from_secs(15))
            .await
        {
            panic!("the bot never became ready\n{}", harness.log());
        }
        harness.spawn_to_ready = spawned.elapsed();
        harness
    }

    /// The owner's id.
    pub fn owner(&self) -> u64 {
        self.discord.config().owner_id
    }

    /// The owner's DM channel.
    pub fn dm(&self) -> u64 {
        self.discord.dm_channel_id(self.owner())
    }

    /// The bot's stderr so far.
    pub fn log(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// Messages the bot has in the owner's DM now (not deleted).
    pub fn bot_messages(&self) -> Vec<FakeMessage> {
        self.discord
            .channel_messages(self.dm())
            .into_iter()
            .filter(|m| m.by_bot && !m.deleted)
            .collect()
    }

    /// Sends a DM and waits until the bot's reply with exactly `answer` is in the DM and the
    /// 👀 on the DM was removed again (the turn is over). Returns the DM's id.
    pub async fn converse(&self, prompt: &str, answer: &str) -> u64 {
        self.mock.push(Reply::text(answer));
        let sent = self.discord.dm_from(self.owner(), prompt).await;
        self.wait_for_bot_message("with the reply", |m| m.content.trim() == answer)
            .await;
        self.wait_turn_over(sent).await;
        sent
    }

    /// Waits until a bot message in the DM satisfies `pred` (final content).
    pub async fn wait_for_bot_message(
        &self,
        what: &str,
        pred: impl Fn(&FakeMessage) -> bool,
    ) -> FakeMessage {
        self.wait_for_bot_message_within(what, Duration::from_secs(20), pred)
            .await
    }

    /// [`Self::wait_for_bot_message`] with its own time limit (scheduled fires).
    pub async fn wait_for_bot_message_within(
        &self,
        what: &str,
        within: Duration,
        pred: impl Fn(&FakeMessage) -> bool,
    ) -> FakeMessage {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            if let Some(found) = self.bot_messages().into_iter().find(|m| pred(m)) {
                return found;
            }
            if tokio::time::Instant::now() > deadline {
                let shown: Vec<String> = self
                    .bot_messages()
                    .iter()
                    .map(|m| m.content.clone())
                    .collect();
                panic!(
                    "no bot message {what}; DM now: {shown:#?}\n--- log ---\n{}",
                    self.log()
                );
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Sends SIGTERM and waits for the exit status.
    pub async fn terminate(&mut self) -> std::process::ExitStatus {
        let pid = self.child.id().expect("bot pid");
        std::process::Command::new("kill")
            .args(["-TERM", &pid.to_string()])
            .status()
            .expect("send SIGTERM");
        let Ok(status) = tokio::time::timeout(Duration::from_secs(40), self.child.wait()).await
        else {
            panic!("the bot did not exit after SIGTERM\n{}", self.log());
        };
        status.expect("wait for the bot")
    }
}

/// A bot process started without waiting for anything (start-up failures, a second
/// instance).
pub struct BotProcess {
    pub child: Child,
    pub stderr: Arc<Mutex<String>>,
}

impl BotProcess {
    /// The bot's stderr so far.
    pub fn log(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// Sends `signal` (`TERM`, `INT`, …) to the process.
    pub fn signal(&self, signal: &str) {
        send_signal(self.child.id().expect("the bot still runs"), signal);
    }

    /// Waits for the exit status (and the end of stderr); panics after `within`.
    pub async fn wait_exit(&mut self, within: Duration) -> std::process::ExitStatus {
        wait_exit(&mut self.child, &self.stderr, within).await
    }
}

/// Waits for `child` to exit and for its stderr pipe to be drained, so `stderr` is complete.
async fn wait_exit(
    child: &mut Child,
    stderr: &Arc<Mutex<String>>,
    within: Duration,
) -> std::process::ExitStatus {
    let Ok(status) = tokio::time::timeout(within, child.wait()).await else {
        panic!(
            "the bot did not exit within {within:?}\n{}",
            stderr.lock().unwrap()
        );
    };
    let status = status.expect("wait for the bot");
    // The reader task may still be copying the last lines; give it a moment.
    let settle = tokio::time::Instant::now() + Duration::from_millis(300);
    let mut last = stderr.lock().unwrap().len();
    while tokio::time::Instant::now() < settle {
        tokio::time::sleep(Duration::from_millis(30)).await;
        let now = stderr.lock().unwrap().len();
        if now == last {
            break;
        }
        last = now;
    }
    status
}

/// `ollim-bot` with a clean environment: PATH, the bot's variables (Julia, Ollim, UTC, the
/// sandbox's data dir, the pinned CLI, no docs MCP) and the sandbox's CLI environment (the
/// binary hands its own environment to the CLI child); run in the sandbox's HOME so no
/// `.env` of the developer's leaks in; killed on drop. Standard streams are left to the caller.
pub fn ollim_command(sandbox: &CliSandbox, mock: &MockApi) -> Command {
    let mut command = Command::new(super::paths::ollim_bot_exe());
    command
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("OLLIM_USER_NAME", "Julia")
        .env("OLLIM_BOT_NAME", "Ollim")
        .env("OLLIM_TIMEZONE", "UTC")
        .env("OLLIM_DATA_DIR", &sandbox.data_dir)
        .env("OLLIM_CLAUDE_CLI", claude_cli_path())
        .env("OLLIM_DOCS_MCP_URL", "")
        // No checkout: versions are the package version whatever the repository's tags.
        .env("OLLIM_SOURCE_DIR", sandbox.home.path())
        .env("OLLIM_TEST_CLOCK", sandbox.clock_file())
        .envs(sandbox.env(mock))
        .current_dir(sandbox.home.path())
        .kill_on_drop(true);
    command
}

/// The `ollim-bot` command as [`BotHarness`] runs it, minus the variables in `unset`.
pub fn bot_command(
    discord: &FakeDiscord,
    mock: &MockApi,
    sandbox: &CliSandbox,
    extra_env: &[(&str, &str)],
    unset: &[&str],
) -> Command {
    let mut command = ollim_command(sandbox, mock);
    command
        .env("DISCORD_TOKEN", &discord.config().valid_token)
        .env("OLLIM_DISCORD_API_URL", discord.base_url())
        .env("RUST_LOG", "ollim_bot=debug")
        .envs(extra_env.iter().map(|(k, v)| (*k, *v)))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    for name in unset {
        command.env_remove(name);
    }
    command
}

/// Spawns `command` and collects its stderr in the background.
pub fn spawn_collecting(mut command: Command) -> BotProcess {
    let mut child = command.spawn().expect("start ollim-bot");
    let stderr = Arc::new(Mutex::new(String::new()));
    let sink = Arc::clone(&stderr);
    let pipe = child.stderr.take().expect("stderr pipe");
    tokio::spawn(async move {
        let mut lines = BufReader::new(pipe).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let mut text = sink.lock().unwrap();
            text.push_str(&line);
            text.push('\n');
        }
    });
    BotProcess { child, stderr }
}

impl BotHarness {
    /// Runs the bot against the given fakes and sandbox (e.g. ones kept from an earlier run);
    /// waits for the gateway READY.
    pub async fn start_parts(
        discord: FakeDiscord,
        mock: MockApi,
        sandbox: CliSandbox,
        extra_env: &[(&str, &str)],
    ) -> Self {
        Self::launch(discord, mock, sandbox, extra_env).await
    }

    /// Starts the bot with a fresh fake Discord and mock model on `sandbox`, with the
    /// scheduler reading its folders every second (`OLLIM_SCHEDULER_SYNC_SECS=1`); waits for
    /// the greeting.
    pub async fn greeted_fast_sync(sandbox: CliSandbox) -> Self {
        let h = Self::start_parts(
            FakeDiscord::start(FakeConfig::default()).await,
            MockApi::start().await,
            sandbox,
            &[("OLLIM_SCHEDULER_SYNC_SECS", "1")],
        )
        .await;
        h.greeted().await;
        h
    }

    /// Starts the bot again with the same fake Discord, mock and sandbox (same data dir and
    /// CLI home) once the previous process has exited; waits for the new READY.
    pub async fn restart(mut self, extra_env: &[(&str, &str)]) -> Self {
        let exited = tokio::time::timeout(Duration::from_secs(20), self.child.wait()).await;
        assert!(
            exited.is_ok(),
            "restart: the previous bot is still running\n{}",
            self.log()
        );
        // The fake notices the closed socket a moment later; until then it still reports the
        // old session as connected.
        let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
        while self.discord.is_connected() {
            assert!(
                tokio::time::Instant::now() < deadline,
                "restart: the old gateway connection never went away"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let Self {
            discord,
            mock,
            sandbox,
            ..
        } = self;
        Self::launch(discord, mock, sandbox, extra_env).await
    }

    /// The bot's process id.
    pub fn pid(&self) -> u32 {
        self.child.id().expect("bot pid")
    }

    /// Sends `signal` (`"TERM"`, `"INT"`, …) to the bot.
    pub fn signal(&self, signal: &str) {
        send_signal(self.pid(), signal);
    }

    /// Waits for the exit status (and the end of stderr); panics after `within`.
    pub async fn wait_exit(&mut self, within: Duration) -> std::process::ExitStatus {
        wait_exit(&mut self.child, &self.stderr, within).await
    }

    /// Another `ollim-bot` process with this harness's environment (same data dir, fakes and
    /// CLI home), not waited for.
    pub fn spawn_another(&self, extra_env: &[(&str, &str)]) -> BotProcess {
        spawn_collecting(bot_command(
            &self.discord,
            &self.mock,
            &self.sandbox,
            extra_env,
            &[],
        ))
    }

    /// Processes other than the test that mention this sandbox's HOME (the bot, its CLI,
    /// git…).
    pub fn sandbox_processes(&self) -> Vec<u32> {
        self.sandbox.processes()
    }
}

/// Sends `signal` (`TERM`, `INT`, …) to process `pid`.
fn send_signal(pid: u32, signal: &str) {
    let sent = std::process::Command::new("kill")
        .args([format!("-{signal}"), pid.to_string()])
        .status()
        .expect("run kill");
    assert!(sent.success(), "kill -{signal} failed");
}
