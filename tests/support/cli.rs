//! Locating the pinned Claude Code CLI and giving it an isolated, offline
//! environment that talks to a [`MockApi`].

use std::path::PathBuf;

use tempfile::TempDir;

use super::mock_api::MockApi;

/// The pinned CLI used by the end-to-end tests.
///
/// `OLLIM_TEST_CLAUDE_CLI` if set, else
/// `<CARGO_MANIFEST_DIR>/.ci/claude-cli/node_modules/.bin/claude`.
/// Panics with a hint to run `.ci/test.sh` (which installs it) if it is missing.
pub fn claude_cli_path() -> PathBuf {
    let path = match std::env::var_os("OLLIM_TEST_CLAUDE_CLI") {
        Some(path) if !path.is_empty() => PathBuf::from(path),
        _ => PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join(".ci/claude-cli/node_modules/.bin/claude"),
    };
    assert!(
        path.exists(),
        "Claude Code CLI not found at {}: run `.ci/test.sh` (it installs the pinned CLI) \
         or set OLLIM_TEST_CLAUDE_CLI to a claude binary",
        path.display()
    );
    path
}

/// A throw-away HOME for one CLI run, with the bot's data dir inside it.
pub struct CliSandbox {
    /// The temporary HOME (deleted on drop).
    pub home: TempDir,
    /// `<home>/ollim-data`, created; use it as the CLI's cwd.
    pub data_dir: PathBuf,
}

impl CliSandbox {
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
}

impl Default for CliSandbox {
    fn default() -> Self {
        Self::new()
    }
}
