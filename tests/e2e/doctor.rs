//! `ollim-bot doctor` end to end (CMD-7): the real binary on a data dir, with the pinned
//! Claude CLI and the fake Discord. A healthy install passes every group; each kind of
//! breakage is a `FAIL` line naming the thing and exit 1; an unreachable Discord only warns.
//! No secret value (Discord token, API key, webhook secret) ever shows in the output.

use crate::support;

use std::{
    net::TcpListener,
    path::{Path, PathBuf},
    process::Stdio,
    time::Duration,
};

use ollim_bot::claude::TESTED_CLI_VERSION;
use support::{
    cli::{CliSandbox, claude_cli_path},
    fake_discord::{FakeConfig, FakeDiscord},
    mock_api::MockApi,
};
use tokio::process::Command;

const TOKEN: &str = "doctor-bot-token-5b4a3f2e1d";
const API_KEY: &str = "sk-ant-doctor-key-3141592653";
const WEBHOOK_SECRET: &str = "doctor-webhook-secret-2718281828";

const GROUPS: [&str; 12] = [
    "ENVIRONMENT",
    "DATA DIRECTORY",
    "TIMEZONE & SCHEDULING",
    "ROUTINES",
    "REMINDERS",
    "WEBHOOKS",
    "TOOL POLICY",
    "STATE FILES",
    "CLAUDE CLI",
    "CLAUDE AUTH",
    "DISCORD",
    "GOOGLE",
];

const ROUTINE: &str = "---\nid: \"plan\"\ncron: \"0 9 * * 1-5\"\n---\nPlan my day.\n";
pub(crate) const SPEC: &str = "---\nid: ci\nfields:\n  type: object\n  properties:\n    repo: {type: string}\n\
    allowed-tools: [\"mcp__discord__google_tasks\"]\n---\nCI finished for {repo}.\n";

/// A sandbox with a healthy data dir, and the fake Discord.
pub(crate) struct Install {
    sandbox: CliSandbox,
    pub(crate) discord: FakeDiscord,
    /// The model API the key check asks.
    mock: MockApi,
    webhook_port: u16,
}

impl Install {
    pub(crate) async fn healthy() -> Self {
        Self::with_discord(FakeConfig::default()).await
    }

    async fn with_discord(mut config: FakeConfig) -> Self {
        TOKEN.clone_into(&mut config.valid_token);
        let discord = FakeDiscord::start(config).await;
        let sandbox = CliSandbox::new();
        let data = &sandbox.data_dir;
        let in_two_days = chrono::Utc::now() + chrono::Duration::days(2);
        write(data, ".env", "OLLIM_SCHEDULER_SYNC_SECS=10\n");
        write(data, "routines/plan.md", ROUTINE);
        write(
            data,
            "reminders/stretch.md",
            &format!(
                "---\nid: \"m1\"\nrun-at: \"{}\"\n---\nStretch.\n",
                in_two_days.to_rfc3339()
            ),
        );
        write(data, "webhooks/ci.md", SPEC);
        // What the bot writes after one conversation: a bare session id, not JSON.
        write(
            data,
            "state/sessions.json",
            "2f1c7a8e-55b1-4d3c-9e0a-1b2c3d4e5f60\n",
        );
        write(data, "state/pending_updates.json", "[]");
        write(data, "state/config.json", "{\"bg_fork_timeout\": 45}");
        let _ = std::process::Command::new("git")
            .arg("init")
            .arg("-q")
            .arg(data)
            .status();
        let webhook_port = {
            let listener = TcpListener::bind(("127.0.0.1", 0)).unwrap();
            listener.local_addr().unwrap().port()
        };
        Self {
            sandbox,
            discord,
            mock: MockApi::start().await,
            webhook_port,
        }
    }

    pub(crate) fn data(&self) -> &Path {
        &self.sandbox.data_dir
    }

    /// `ollim-bot doctor` with a clean environment: everything it needs set, secrets included.
    fn command(&self) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_ollim-bot"));
        command
            .arg("doctor")
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.sandbox.home.path())
            .env("OLLIM_USER_NAME", "Julia")
            .env("OLLIM_BOT_NAME", "Ollim")
            .env("OLLIM_TIMEZONE", "UTC")
            .env("OLLIM_DATA_DIR", self.data())
            .env("OLLIM_CLAUDE_CLI", claude_cli_path())
            .env("ANTHROPIC_API_KEY", API_KEY)
            .env("ANTHROPIC_BASE_URL", self.mock.base_url())
            .env("DISCORD_TOKEN", TOKEN)
            .env("OLLIM_DISCORD_API_URL", self.discord.base_url())
            .env("WEBHOOK_PORT", self.webhook_port.to_string())
            .env("WEBHOOK_SECRET", WEBHOOK_SECRET)
            .current_dir(self.sandbox.home.path())
            .stdin(Stdio::null())
            .kill_on_drop(true);
        command
    }

    pub(crate) async fn doctor(&self) -> Report {
        self.run(self.command()).await
    }

    async fn run(&self, mut command: Command) -> Report {
        let output = tokio::time::timeout(Duration::from_secs(60), command.output())
            .await
            .expect("doctor finishes")
            .expect("run ollim-bot doctor");
        let report = Report {
            code: output.status.code(),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        };
        report.assert_no_secret();
        report
    }
}

pub(crate) fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// What one run printed.
pub(crate) struct Report {
    code: Option<i32>,
    pub(crate) stdout: String,
    stderr: String,
}

impl Report {
    fn assert_no_secret(&self) {
        for secret in [TOKEN, API_KEY, WEBHOOK_SECRET] {
            // Not even a prefix.
            let prefix = &secret[..12];
            assert!(
                !self.stdout.contains(prefix) && !self.stderr.contains(prefix),
                "a secret leaked ({prefix}…)\n{self}"
            );
        }
    }

    pub(crate) fn lines(&self, status: &str) -> Vec<&str> {
        self.stdout
            .lines()
            .filter(|line| line.starts_with(&format!("{status} ")))
            .collect()
    }

    /// The one FAIL line, which must mention every word of `naming`; exit 1.
    pub(crate) fn assert_fails_on(&self, naming: &[&str]) -> String {
        assert_eq!(self.code, Some(1), "{self}");
        let failures = self.lines("FAIL");
        assert_eq!(failures.len(), 1, "one failure expected\n{self}");
        for word in naming {
            assert!(failures[0].contains(word), "{word:?} not named\n{self}");
        }
        assert!(self.stdout.contains(", 1 failure\n"), "{self}");
        failures[0].to_owned()
    }
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "exit {:?}\n--- stdout\n{}--- stderr\n{}",
            self.code, self.stdout, self.stderr
        )
    }
}

/// CMD-7: a healthy install passes every group, with routines' next fire shown.
#[tokio::test]
async fn a_healthy_install_passes_every_group() {
    let install = Install::healthy().await;
    let report = install.doctor().await;
    assert_eq!(report.code, Some(0), "{report}");
    let mut at = 0;
    for group in GROUPS {
        let found = report.stdout[at..]
            .find(&format!("{group}\n"))
            .unwrap_or_else(|| panic!("{group} missing or out of order\n{report}"));
        at += found + group.len();
    }
    assert!(report.lines("FAIL").is_empty(), "{report}");
    let summary = report.stdout.lines().last().unwrap();
    assert!(
        summary.starts_with("SUMMARY: ") && summary.ends_with(" 0 failures"),
        "{report}"
    );
    for expected in [
        "PASS .env: ",
        "(data dir)",
        "PASS DISCORD_TOKEN is set",
        "PASS routines/plan.md: next fire ",
        "(cron 0 9 * * 1-5)",
        "PASS reminders/stretch.md: fires ",
        "PASS webhooks/ci.md: POST /hook/ci",
        &format!("PASS port {} is free on 127.0.0.1", install.webhook_port),
        "PASS state/pending_updates.json reads fine",
        // A bare session id is what the bot writes (issue 24 §1).
        "PASS state/sessions.json reads fine",
        "PASS state/config.json reads fine",
        &format!("PASS version {TESTED_CLI_VERSION} (the tested version)"),
        "PASS ANTHROPIC_API_KEY is set",
        // One real request with the key (issue 24 §2), to the mock API here.
        "PASS the Claude API accepts ANTHROPIC_API_KEY",
        "PASS token accepted (bot ollim)",
        "PASS Message Content Intent is on",
        "PASS not set up (optional)",
    ] {
        assert!(report.stdout.contains(expected), "{expected:?}\n{report}");
    }
}

/// CMD-7: a routine file that does not parse is a failure naming the file.
#[tokio::test]
async fn a_broken_routine_fails() {
    let install = Install::healthy().await;
    write(
        install.data(),
        "routines/broken.md",
        "---\nid: \"b\"\n---\nNo cron here.\n",
    );
    let line = install
        .doctor()
        .await
        .assert_fails_on(&["routines/broken.md"]);
    assert!(line.contains("cron"), "{line}");
}

/// CMD-7, PRM-8: a refused tool pattern in a routine names the file and the pattern.
#[tokio::test]
async fn a_bad_tool_pattern_fails() {
    let install = Install::healthy().await;
    write(
        install.data(),
        "routines/tools.md",
        "---\nid: \"t\"\ncron: \"0 8 * * *\"\nbackground: true\nallowed-tools: [\"Bash(*)\"]\n---\nGo.\n",
    );
    install
        .doctor()
        .await
        .assert_fails_on(&["routines/tools.md", "\"Bash(*)\""]);
}

/// CMD-7: a missing CLI fails saying where the choice came from and what makes the tested
/// version the one in use (the owner's `OLLIM_CLAUDE_CLI` is theirs to change).
#[tokio::test]
async fn a_missing_cli_fails_with_the_fix() {
    let install = Install::healthy().await;
    let mut command = install.command();
    command.env("OLLIM_CLAUDE_CLI", "/nonexistent");
    install.run(command).await.assert_fails_on(&[
        "/nonexistent (named by OLLIM_CLAUDE_CLI)",
        &format!(
            "point OLLIM_CLAUDE_CLI at {TESTED_CLI_VERSION}, or remove it and run `ollim-bot \
             setup`"
        ),
    ]);
}

/// CMD-7: a data dir that can't be created fails. (Under a regular file rather than chmod
/// 0555, which root — as tests often run — writes through.)
#[tokio::test]
async fn a_data_dir_that_cannot_be_created_fails() {
    let install = Install::healthy().await;
    let blocker = install.sandbox.home.path().join("plain-file");
    std::fs::write(&blocker, "not a directory").unwrap();
    let data: PathBuf = blocker.join("data");
    let mut command = install.command();
    command.env("OLLIM_DATA_DIR", &data);
    let line = install
        .run(command)
        .await
        .assert_fails_on(&[&data.display().to_string(), "can't be created"]);
    assert!(line.contains("is not a directory"), "{line}");
}

/// CMD-7's acceptance: a corrupt `pending_updates.json` → FAIL, exit 1.
#[tokio::test]
async fn a_corrupt_state_file_fails() {
    let install = Install::healthy().await;
    write(
        install.data(),
        "state/pending_updates.json",
        "[{\"message\": \"half",
    );
    install
        .doctor()
        .await
        .assert_fails_on(&["state/pending_updates.json", "is damaged"]);
}

/// CMD-7: a token Discord refuses fails without showing it.
#[tokio::test]
async fn a_rejected_token_fails() {
    let install = Install::healthy().await;
    let mut command = install.command();
    command.env("DISCORD_TOKEN", "wrong-token-0987654321");
    let report = install.run(command).await;
    report.assert_fails_on(&["token rejected"]);
    assert!(!report.stdout.contains("wrong-token"), "{report}");
}

/// CMD-7: the Message Content Intent off in the application's flags fails with where to turn
/// it on.
#[tokio::test]
async fn the_intent_off_fails() {
    let install = Install::with_discord(FakeConfig {
        app_flags: 0,
        ..FakeConfig::default()
    })
    .await;
    install.doctor().await.assert_fails_on(&[
        "turn on Message Content Intent in the Developer Portal (Bot → Privileged Gateway Intents)",
    ]);
}

/// CMD-7: Discord out of reach is a warning, not a failure.
#[tokio::test]
async fn an_unreachable_discord_only_warns() {
    let install = Install::healthy().await;
    let closed = {
        let listener = TcpListener::bind(("127.0.0.1", 0)).unwrap();
        listener.local_addr().unwrap().port()
    };
    let mut command = install.command();
    command.env(
        "OLLIM_DISCORD_API_URL",
        format!("http://127.0.0.1:{closed}"),
    );
    let report = install.run(command).await;
    assert_eq!(report.code, Some(0), "{report}");
    assert!(
        report
            .lines("WARN")
            .iter()
            .any(|line| line.starts_with("WARN skipped: offline (")),
        "{report}"
    );
}
