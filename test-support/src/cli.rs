//! Locating the pinned Claude Code CLI and giving it an isolated, offline
//! environment that talks to a [`MockApi`].

use std::{path::PathBuf, time::Duration};

use tempfile::TempDir;

use super::{
    mock_api::MockApi,
    procs::{assert_no_process_mentions, processes_mentioning},
};

/// The pinned CLI used by the end-to-end tests.
///
/// `OLLIM_TEST_CLAUDE_CLI` if set, else
/// `<repository>/.ci/claude-cli/node_modules/.bin/claude`.
/// Panics with a hint to run `.ci/test.sh` (which installs it) if it is missing.
pub fn claude_cli_path() -> PathBuf {
    let path = cli_location();
    assert!(
        path.exists(),
        "Claude Code CLI not found at {}: run `.ci/test.sh` (it installs the pinned CLI) \
         or set OLLIM_TEST_CLAUDE_CLI to a claude binary",
        path.display()
    );
    path
}

/// The pinned CLI if it is installed (the benches skip what needs it otherwise).
pub fn pinned_cli() -> Option<PathBuf> {
    let path = cli_location();
    path.exists().then_some(path)
}

/// `OLLIM_TEST_CLAUDE_CLI` if set, else `<repository>/.ci/claude-cli/node_modules/.bin/claude`.
fn cli_location() -> PathBuf {
    match std::env::var_os("OLLIM_TEST_CLAUDE_CLI") {
        Some(path) if !path.is_empty() => PathBuf::from(path),
        _ => super::paths::repo_root().join(".ci/claude-cli/node_modules/.bin/claude"),
    }
}

/// Reads the bot's test clock (see [`CliSandbox::advance_clock`]).
#[derive(Debug, Clone)]
pub struct BotClock {
    file: PathBuf,
}

impl BotClock {
    /// How far ahead of the system clock the bot's runs.
    pub fn ahead(&self) -> std::time::Duration {
        let ms: u64 = std::fs::read_to_string(&self.file)
            .ok()
            .and_then(|text| text.trim().parse().ok())
            .unwrap_or(0);
        std::time::Duration::from_millis(ms)
    }

    /// The bot's wall time now.
    pub fn now(&self) -> chrono::DateTime<chrono::Utc> {
        chrono::Utc::now() + self.ahead()
    }
}

/// A throw-away HOME for one CLI run, with the bot's data dir inside it.
pub struct CliSandbox {
    /// The temporary HOME (deleted on drop).
    pub home: TempDir,
    /// `<home>/ollim-data`, created; use it as the CLI's cwd.
    pub data_dir: PathBuf,
}

impl CliSandbox {
    /// The file the bot's test clock follows (`OLLIM_TEST_CLOCK`): how far ahead of the
    /// system clock it runs, in milliseconds.
    pub fn clock_file(&self) -> PathBuf {
        self.home.path().join("test-clock")
    }

    /// Moves the bot's clock `by` ahead (wall and monotonic time together); every wait the
    /// bot takes on its clock that this passes ends at once. Survives a restart of the bot.
    pub fn advance_clock(&self, by: std::time::Duration) {
        let file = self.clock_file();
        let ahead: u128 = std::fs::read_to_string(&file)
            .ok()
            .and_then(|text| text.trim().parse().ok())
            .unwrap_or(0);
        let staged = file.with_extension("staged");
        std::fs::write(&staged, (ahead + by.as_millis()).to_string()).expect("write the clock");
        std::fs::rename(&staged, &file).expect("move the clock");
    }

    /// How far [`Self::advance_clock`] moved the bot's clock so far.
    pub fn clock_ahead(&self) -> std::time::Duration {
        self.clock().ahead()
    }

    /// A reader of the bot's clock, for a mock rule that must speak the bot's time.
    pub fn clock(&self) -> BotClock {
        BotClock {
            file: self.clock_file(),
        }
    }

    /// Creates the temp HOME and `<home>/ollim-data`.
    pub fn new() -> CliSandbox {
        let home = tempfile::Builder::new()
            .prefix("ollim-cli-home-")
            .tempdir()
            .expect("create temp HOME");
        let data_dir = home.path().join("ollim-data");
        std::fs::create_dir_all(&data_dir).expect("create data dir");
        CliSandbox { home, data_dir }
    }

    /// `<home>/.claude`: the CLI's config dir (`projects/` holds the session transcripts).
    pub fn claude_dir(&self) -> PathBuf {
        self.home.path().join(".claude")
    }

    /// Replaces `path` (a file the running bot may read at any moment) whole, as the bot's own
    /// writes do: a plain `fs::write` truncates first, and a read in between sees an empty file.
    pub fn replace_file(&self, path: &std::path::Path, contents: &str) {
        let staged = self.home.path().join("replacement.staged");
        std::fs::write(&staged, contents).expect("stage the replacement");
        std::fs::rename(&staged, path).expect("move the replacement into place");
    }

    /// Puts `dollars` of background spend (a routine's) on the usage ledger twice: now and a
    /// minute on, so a test that runs across midnight still finds that much on the day it
    /// checks (USE-6).
    pub fn record_background_spend(&self, dollars: f64) {
        let now = chrono::Utc::now();
        for at in [now, now + chrono::Duration::minutes(1)] {
            self.record_background_spend_at(at, dollars);
        }
    }

    /// A background run's record of `dollars` at `at` in the usage ledger.
    pub fn record_background_spend_at(&self, at: chrono::DateTime<chrono::Utc>, dollars: f64) {
        let usage = self.data_dir.join("state/usage");
        std::fs::create_dir_all(&usage).expect("create the usage dir");
        let line = serde_json::json!({"at": at, "kind": "routine", "job": "routine:earlier",
                                      "cost_usd": dollars, "ended": "completed"});
        let file = usage.join(format!("{}.jsonl", at.format("%Y-%m")));
        let mut text = std::fs::read_to_string(&file).unwrap_or_default();
        text.push_str(&line.to_string());
        text.push('\n');
        std::fs::write(&file, text).expect("write the usage ledger");
    }

    /// The main session id the bot stored in `state/sessions.json` (trimmed), if any.
    pub fn stored_session(&self) -> Option<String> {
        std::fs::read_to_string(self.data_dir.join("state/sessions.json"))
            .ok()
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty())
    }

    /// Environment for a fast, offline CLI pointed at `mock`. Meant to be used
    /// with `env_clear()` plus `PATH`.
    pub fn env(&self, mock: &MockApi) -> Vec<(String, String)> {
        let home = self.home.path().to_string_lossy().into_owned();
        let base_url = mock.base_url();
        let config_dir = self.claude_dir().to_string_lossy().into_owned();
        let vars = [
            ("HOME", home.as_str()),
            ("ANTHROPIC_BASE_URL", base_url.as_str()),
            ("ANTHROPIC_API_KEY", "sk-test"),
            ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"),
            ("CLAUDE_CODE_MAX_RETRIES", "0"),
            ("DISABLE_AUTOUPDATER", "1"),
            // Pin the config dir too, in case the caller inherits CLAUDE_CONFIG_DIR.
            ("CLAUDE_CONFIG_DIR", config_dir.as_str()),
            // An inherited HTTP(S)_PROXY would otherwise swallow the loopback calls.
            ("NO_PROXY", "127.0.0.1,localhost"),
            ("no_proxy", "127.0.0.1,localhost"),
        ];
        vars.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    /// What every process of this sandbox mentions in its environment or command line: the
    /// temporary HOME.
    pub fn marker(&self) -> String {
        self.home.path().to_string_lossy().into_owned()
    }

    /// Processes other than the test that mention this sandbox's HOME (the bot, its CLI,
    /// git…).
    pub fn processes(&self) -> Vec<u32> {
        processes_mentioning(&self.marker())
    }

    /// Waits (bounded by `grace`) until no process other than the test mentions this
    /// sandbox's HOME; panics with the survivors.
    pub async fn assert_no_process_left(&self, grace: Duration) {
        assert_no_process_mentions(&self.marker(), grace).await;
    }
}

impl Default for CliSandbox {
    fn default() -> Self {
        Self::new()
    }
}
