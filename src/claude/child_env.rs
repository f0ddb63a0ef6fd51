//! The environment of a CLI child (issue 11 §2): an allow-list, not the bot's whole
//! environment, because every shell the agent runs inherits it. Pure, so the policy is tested
//! without spawning anything.

use std::{collections::BTreeMap, path::Path};

use super::process::AGENT_CHILD_ENV;

/// Never handed to the CLI, not even through
/// [`ClientOptions::env`](super::ClientOptions::env): the bot's own secrets, which every shell
/// the agent runs would otherwise inherit, and the marker that would make the CLI think it
/// runs nested inside Claude Code.
const NEVER_PASSED: [&str; 3] = ["CLAUDECODE", "DISCORD_TOKEN", "WEBHOOK_SECRET"];

/// Set in every CLI child whatever the environment says:
/// - no self-update: the bot runs the CLI version it was tested with, and a CLI updating
///   itself in the middle of a session would change that;
/// - no background tasks of the CLI's own (2.1.332 runs subagents in the background by
///   default and starts a turn by itself when one ends): a session's work happens inside the
///   turn the bot started, where its output, approvals and locks belong; background work is
///   the bot's (routines, reminders, background forks);
/// - no `@path` mentions: the CLI reads a file named `@like/this` in a prompt into the
///   model's context with no tool call and no permission check, and prompts carry untrusted
///   text (webhook payloads, mail, files the agent wrote) that could name the CLI's own
///   credentials.
const FORCED: [(&str, &str); 3] = [
    ("DISABLE_AUTOUPDATER", "1"),
    ("CLAUDE_CODE_DISABLE_BACKGROUND_TASKS", "1"),
    ("CLAUDE_CODE_DISABLE_FILE_MENTIONS", "1"),
];

/// Inherited variables the CLI (a node program running shells) may need, by exact name.
const PASSED_NAMES: [&str; 32] = [
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "TERM",
    "TMPDIR",
    "LANG",
    "TZ",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "all_proxy",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    // CLI switches without a common prefix.
    "API_TIMEOUT_MS",
    "BASH_DEFAULT_TIMEOUT_MS",
    "BASH_MAX_TIMEOUT_MS",
    "BASH_MAX_OUTPUT_LENGTH",
    "MAX_THINKING_TOKENS",
    "MAX_MCP_OUTPUT_TOKENS",
    "USE_BUILTIN_RIPGREP",
    "DO_NOT_TRACK",
    "NO_COLOR",
    "FORCE_COLOR",
    "COLORTERM",
    "TRACEPARENT",
    "TRACESTATE",
];

/// Inherited variables passed by prefix: auth and model switches (`ANTHROPIC_*`), the CLI's
/// own switches (`CLAUDE_*`, `CLAUDE_CODE_*`, `DISABLE_*`, `MCP_*`), locale, XDG dirs, node
/// settings (`NODE_EXTRA_CA_CERTS`, `NODE_OPTIONS`, …), and the bot's own settings
/// (`OLLIM_*`: names, timezone, data dir; no secret among them), which `ollim-bot reminder …`
/// run from the agent's Bash needs to find the same data dir.
const PASSED_PREFIXES: [&str; 8] = [
    "ANTHROPIC_",
    "OLLIM_",
    "CLAUDE_",
    "DISABLE_",
    "MCP_",
    "LC_",
    "XDG_",
    "NODE_",
];

/// Cloud providers the CLI can use instead of the Anthropic API: their credentials pass only
/// when the provider's `CLAUDE_CODE_USE_*` switch is on, so an unrelated AWS or Google login
/// of the owner never reaches the agent's shells.
const PROVIDERS: [(&str, &[&str]); 3] = [
    ("CLAUDE_CODE_USE_BEDROCK", &["AWS_"]),
    (
        "CLAUDE_CODE_USE_VERTEX",
        &[
            "CLOUD_ML_REGION",
            "VERTEX_REGION_",
            "GOOGLE_APPLICATION_CREDENTIALS",
            "GOOGLE_CLOUD_PROJECT",
            "GCLOUD_PROJECT",
            "CLOUDSDK_CONFIG",
        ],
    ),
    ("CLAUDE_CODE_USE_FOUNDRY", &["AZURE_"]),
];

/// The whole environment of a CLI child (BOOT-3's provider variables pass; issue 11): the
/// allow-listed part of `parent`, then `PWD`, then `extra` (the configured environment), then
/// [`FORCED`] and [`AGENT_CHILD_ENV`]. Nothing in [`NEVER_PASSED`] survives, whoever sets it.
pub(crate) fn child_env(
    parent: impl IntoIterator<Item = (String, String)>,
    extra: &BTreeMap<String, String>,
    cwd: &Path,
) -> BTreeMap<String, String> {
    let parent: Vec<(String, String)> = parent.into_iter().collect();
    let switched_on = |switch: &str| {
        let value = extra.get(switch).map(String::as_str).or_else(|| {
            parent
                .iter()
                .find(|(name, _)| name == switch)
                .map(|(_, value)| value.as_str())
        });
        value.is_some_and(|v| !matches!(v.trim(), "" | "0" | "false"))
    };
    let providers: Vec<&str> = PROVIDERS
        .iter()
        .filter(|(switch, _)| switched_on(switch))
        .flat_map(|(_, names)| names.iter().copied())
        .collect();
    let passes = |name: &str| {
        PASSED_NAMES.contains(&name)
            || PASSED_PREFIXES
                .iter()
                .any(|prefix| name.starts_with(prefix))
            || providers.iter().any(|prefix| name.starts_with(prefix))
    };
    let mut env: BTreeMap<String, String> = parent
        .into_iter()
        .filter(|(name, _)| passes(name))
        .collect();
    env.insert("PWD".to_owned(), cwd.display().to_string());
    env.extend(extra.iter().map(|(k, v)| (k.clone(), v.clone())));
    for name in NEVER_PASSED {
        env.remove(name);
    }
    for (name, value) in FORCED {
        env.insert(name.to_owned(), value.to_owned());
    }
    env.insert(AGENT_CHILD_ENV.to_owned(), "1".to_owned());
    env
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parent(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    fn extra(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        parent(pairs).into_iter().collect()
    }

    const CWD: &str = "/srv/ollim-data";

    #[test]
    fn only_what_the_cli_needs_is_inherited() {
        let env = child_env(
            parent(&[
                ("PATH", "/usr/bin"),
                ("HOME", "/home/julia"),
                ("LANG", "C.UTF-8"),
                ("LC_ALL", "C.UTF-8"),
                ("XDG_CONFIG_HOME", "/home/julia/.config"),
                ("ANTHROPIC_API_KEY", "sk-ant"),
                ("ANTHROPIC_BASE_URL", "http://127.0.0.1:9"),
                ("CLAUDE_CODE_OAUTH_TOKEN", "oauth"),
                ("CLAUDE_CONFIG_DIR", "/home/julia/.claude"),
                ("DISABLE_AUTOUPDATER", "1"),
                ("MCP_TIMEOUT", "5000"),
                ("NODE_EXTRA_CA_CERTS", "/etc/ca.pem"),
                ("https_proxy", "http://proxy:3128"),
                ("SSL_CERT_FILE", "/etc/ssl/cert.pem"),
                ("DISCORD_TOKEN", "discord-secret"),
                ("WEBHOOK_SECRET", "hook-secret"),
                ("CLAUDECODE", "1"),
                ("GOOGLE_CLIENT_SECRET", "google-secret"),
                ("AWS_SECRET_ACCESS_KEY", "aws-secret"),
                ("OLLIM_DATA_DIR", "/srv/ollim-data"),
                ("GITHUB_TOKEN", "ghp"),
                ("RUST_LOG", "debug"),
            ]),
            &BTreeMap::new(),
            Path::new(CWD),
        );
        let names: Vec<&str> = env.keys().map(String::as_str).collect();
        assert_eq!(
            names,
            [
                "ANTHROPIC_API_KEY",
                "ANTHROPIC_BASE_URL",
                "CLAUDE_CODE_DISABLE_BACKGROUND_TASKS",
                "CLAUDE_CODE_DISABLE_FILE_MENTIONS",
                "CLAUDE_CODE_OAUTH_TOKEN",
                "CLAUDE_CONFIG_DIR",
                "DISABLE_AUTOUPDATER",
                "HOME",
                "LANG",
                "LC_ALL",
                "MCP_TIMEOUT",
                "NODE_EXTRA_CA_CERTS",
                AGENT_CHILD_ENV,
                "OLLIM_DATA_DIR",
                "PATH",
                "PWD",
                "SSL_CERT_FILE",
                "XDG_CONFIG_HOME",
                "https_proxy",
            ]
        );
        assert_eq!(env["PWD"], CWD);
        assert_eq!(env[AGENT_CHILD_ENV], "1");
    }

    #[test]
    fn configured_env_is_added_but_never_the_secrets_the_cleaner_or_a_cleared_mark() {
        let env = child_env(
            parent(&[("PATH", "/usr/bin"), ("HOME", "/home/julia")]),
            &extra(&[
                ("HOME", "/tmp/sandbox"),
                ("CUSTOM_SWITCH", "on"),
                ("CLAUDECODE", "1"),
                ("DISCORD_TOKEN", "discord-secret"),
                ("WEBHOOK_SECRET", "hook-secret"),
                (AGENT_CHILD_ENV, "0"),
            ]),
            Path::new(CWD),
        );
        assert_eq!(env["HOME"], "/tmp/sandbox", "configured values win");
        assert_eq!(env["CUSTOM_SWITCH"], "on");
        for name in NEVER_PASSED {
            assert!(!env.contains_key(name), "{name}");
        }
        assert_eq!(env[AGENT_CHILD_ENV], "1");
    }

    #[test]
    fn provider_credentials_pass_only_when_the_provider_is_switched_on() {
        let inherited = [
            ("AWS_REGION", "eu-west-1"),
            ("AWS_SECRET_ACCESS_KEY", "aws-secret"),
            ("GOOGLE_APPLICATION_CREDENTIALS", "/k.json"),
            ("GOOGLE_CLIENT_SECRET", "google-secret"),
            ("CLOUD_ML_REGION", "us-east5"),
        ];
        let off = child_env(parent(&inherited), &BTreeMap::new(), Path::new(CWD));
        assert!(off.keys().all(|k| !k.starts_with("AWS_")));
        assert!(!off.contains_key("GOOGLE_APPLICATION_CREDENTIALS"));
        let mut with_bedrock = parent(&inherited);
        with_bedrock.push(("CLAUDE_CODE_USE_BEDROCK".into(), "1".into()));
        let bedrock = child_env(with_bedrock, &BTreeMap::new(), Path::new(CWD));
        assert_eq!(bedrock["AWS_SECRET_ACCESS_KEY"], "aws-secret");
        assert!(!bedrock.contains_key("GOOGLE_APPLICATION_CREDENTIALS"));
        let vertex = child_env(
            parent(&inherited),
            &extra(&[("CLAUDE_CODE_USE_VERTEX", "true")]),
            Path::new(CWD),
        );
        assert_eq!(vertex["GOOGLE_APPLICATION_CREDENTIALS"], "/k.json");
        assert_eq!(vertex["CLOUD_ML_REGION"], "us-east5");
        assert!(!vertex.contains_key("GOOGLE_CLIENT_SECRET"));
        assert!(!vertex.contains_key("AWS_REGION"));
        let mut switched_off = parent(&inherited);
        switched_off.push(("CLAUDE_CODE_USE_BEDROCK".into(), "0".into()));
        let off = child_env(switched_off, &BTreeMap::new(), Path::new(CWD));
        assert!(!off.contains_key("AWS_REGION"));
    }

    #[test]
    fn the_auto_updater_is_always_off() {
        let env = child_env(
            parent(&[("PATH", "/usr/bin"), ("DISABLE_AUTOUPDATER", "0")]),
            &extra(&[("DISABLE_AUTOUPDATER", "false")]),
            Path::new(CWD),
        );
        assert_eq!(env["DISABLE_AUTOUPDATER"], "1");
        let bare = child_env(parent(&[]), &BTreeMap::new(), Path::new(CWD));
        assert_eq!(bare["DISABLE_AUTOUPDATER"], "1");
    }
}
