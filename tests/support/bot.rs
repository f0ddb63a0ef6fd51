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

use super::{
    cli::{CliSandbox, claude_cli_path},
    fake_discord::{FakeConfig, FakeDiscord, FakeMessage},
    mock_api::MockApi,
};

/// A running bot process with everything it talks to.
pub struct BotHarness {
    pub discord: FakeDiscord,
    pub mock: MockApi,
    pub sandbox: CliSandbox,
    pub child: Child,
    pub stderr: Arc<Mutex<String>>,
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
        let mut command = Command::new(env!("CARGO_BIN_EXE_ollim-bot"));
        command
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("DISCORD_TOKEN", &discord.config().valid_token)
            .env("OLLIM_DISCORD_API_URL", discord.base_url())
            .env("OLLIM_USER_NAME", "Julia")
            .env("OLLIM_BOT_NAME", "Ollim")
            .env("OLLIM_TIMEZONE", "UTC")
            .env("OLLIM_DATA_DIR", &sandbox.data_dir)
            .env("OLLIM_CLAUDE_CLI", claude_cli_path())
            .env("OLLIM_DOCS_MCP_URL", "")
            .env("RUST_LOG", "ollim_bot=debug")
            .envs(sandbox.env(&mock))
            .envs(extra_env.iter().map(|(k, v)| (*k, *v)))
            .current_dir(sandbox.home.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
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
        let harness = Self {
            discord,
            mock,
            sandbox,
            child,
            stderr,
        };
        if !harness
            .discord
            .try_wait_for_ready(Duration::from_secs(15))
            .await
        {
            panic!("the bot never became ready\n{}", harness.log());
        }
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

    /// Waits until a bot message in the DM satisfies `pred` (final content).
    pub async fn wait_for_bot_message(
        &self,
        what: &str,
        pred: impl Fn(&FakeMessage) -> bool,
    ) -> FakeMessage {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
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
        match tokio::time::timeout(Duration::from_secs(40), self.child.wait()).await {
            Ok(status) => status.expect("wait for the bot"),
            Err(_) => panic!("the bot did not exit after SIGTERM\n{}", self.log()),
        }
    }
}
