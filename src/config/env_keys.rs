//! The `.env` keys the bot reads, and the misspelt ones a file holds: `DISCORD_TOKN=…` is
//! otherwise silently ignored and the bot says only that `DISCORD_TOKEN` is missing. A key is
//! named only when it is close to one the bot reads, since the file may rightly hold others
//! (the Claude CLI's `ANTHROPIC_MODEL`, a proxy's).

use std::path::Path;

use crate::domain::spelling::nearest;

/// Every variable the bot (or its container entrypoint) reads, as documented in
/// `docs/configuration.md`.
pub const KNOWN_KEYS: &[&str] = &[
    "DISCORD_TOKEN",
    "OLLIM_USER_NAME",
    "OLLIM_BOT_NAME",
    "OLLIM_TIMEZONE",
    "OLLIM_DATA_DIR",
    "OLLIM_CLAUDE_CLI",
    "OLLIM_DOCS_MCP_URL",
    "OLLIM_ENV_FILE",
    "OLLIM_TURN_IDLE_SECS",
    "OLLIM_SCHEDULER_SYNC_SECS",
    "OLLIM_SANDBOX_READ",
    "OLLIM_NETWORK_ALLOW",
    "OLLIM_SESSION_MEMORY_MB",
    "OLLIM_SESSION_PROCESSES",
    "OLLIM_SESSION_FILE_MB",
    "OLLIM_DISK_FLOOR_MB",
    "OLLIM_HOME_CHANNEL",
    "OLLIM_FS_EVENTS",
    "OLLIM_UPDATE_POLL_SECS",
    "OLLIM_SOURCE_DIR",
    "OLLIM_GOOGLE_API_URL",
    "OLLIM_DISCORD_API_URL",
    "OLLIM_TEST_CLOCK",
    "OLLIM_WAIT_FOR",
    "OLLIM_WAIT_SECS",
    "OLLIM_WAIT_POLL",
    "OLLIM_PULL_SECS",
    "WEBHOOK_PORT",
    "WEBHOOK_BIND",
    "WEBHOOK_SECRET",
    "HTTPS_PROXY",
    "HTTP_PROXY",
    "NO_PROXY",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_BASE_URL",
    "CLAUDE_CONFIG_DIR",
    "RUST_LOG",
];

/// One note per key of the `.env` at `path` that looks like a misspelling of a known one:
/// `DISCORD_TOKN (line 1) is not a setting (did you mean DISCORD_TOKEN?)`. Nothing when the
/// file can't be read (loading it says why).
pub fn misspelt_keys(path: &Path) -> Vec<String> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    misspelt_in(&text)
}

fn misspelt_in(text: &str) -> Vec<String> {
    let known: Vec<String> = KNOWN_KEYS.iter().map(|k| k.to_ascii_lowercase()).collect();
    text.lines()
        .enumerate()
        .filter_map(|(index, line)| {
            let line = line.trim_start();
            let line = line.strip_prefix("export ").unwrap_or(line);
            let (key, _) = line.split_once('=')?;
            let key = key.trim();
            if key.starts_with('#') || key.is_empty() || KNOWN_KEYS.contains(&key) {
                return None;
            }
            let near = nearest(key, known.iter().map(String::as_str))?;
            Some(format!(
                "{key} (line {}) is not a setting (did you mean {}?)",
                index + 1,
                near.to_ascii_uppercase()
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_documented_setting_is_known() {
        let page = include_str!("../../docs/configuration.md");
        let documented = page
            .lines()
            .filter_map(|line| line.strip_prefix("| `"))
            .flat_map(|cell| cell.split('|').next().unwrap_or_default().split(','))
            .map(|key| key.trim().trim_matches('`').trim_end_matches('…').trim())
            .filter(|key| {
                !key.is_empty() && key.chars().all(|c| c.is_ascii_uppercase() || c == '_')
            });
        for key in documented {
            assert!(
                KNOWN_KEYS.contains(&key),
                "{key} is documented but not known"
            );
        }
    }

    #[test]
    fn the_example_env_file_is_current() {
        let example = include_str!("../../.env.example");
        assert!(misspelt_in(example).is_empty());
        for line in example.lines() {
            let line = line.trim_start_matches(['#', ' ']);
            if let Some((key, _)) = line.split_once('=')
                && key.chars().all(|c| c.is_ascii_uppercase() || c == '_')
            {
                assert!(
                    KNOWN_KEYS.contains(&key),
                    "{key} in .env.example is not read"
                );
            }
        }
        let pin = format!(
            "@anthropic-ai/claude-code@{}",
            crate::claude::TESTED_CLI_VERSION
        );
        assert!(example.contains(&pin), ".env.example must pin {pin}");
    }

    #[test]
    fn a_misspelt_key_is_named_with_its_line_and_others_pass() {
        let text = "# comment\nDISCORD_TOKN=abc\nOLLIM_USER_NAME=Julia\nANTHROPIC_MODEL=x\n\
                    export OLIM_TIMEZONE=UTC\nMY_OWN=1\n";
        assert_eq!(
            misspelt_in(text),
            [
                "DISCORD_TOKN (line 2) is not a setting (did you mean DISCORD_TOKEN?)",
                "OLIM_TIMEZONE (line 5) is not a setting (did you mean OLLIM_TIMEZONE?)",
            ]
        );
    }
}
