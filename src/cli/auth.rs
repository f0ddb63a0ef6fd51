//! Claude authentication: the start-up check and the `ollim-bot auth` passthrough (CMD-6).

use std::{collections::BTreeMap, path::Path, process::Stdio};

use serde_json::Value;

/// The environment variables that authenticate the CLI without a login.
pub const CREDENTIAL_VARS: [&str; 2] = ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"];

/// Whether Claude auth is available: an API key or auth token in the environment, or a
/// logged-in CLI (`claude auth status --json`).
/// `env` is added to the inherited environment (the CLI's config dir, issue 23).
pub async fn claude_is_authenticated(
    cli: &Path,
    env: &BTreeMap<String, String>,
) -> Result<bool, String> {
    let has_env_credentials = CREDENTIAL_VARS
        .iter()
        .any(|name| crate::config::environment::is_set(name));
    if has_env_credentials {
        return Ok(true);
    }
    let output = status_json(cli, env).await.map_err(|error| {
        if error.kind() == std::io::ErrorKind::NotFound {
            format!(
                "Claude Code CLI not found at {}: {}",
                cli.display(),
                crate::claude::missing_cli_fix()
            )
        } else {
            format!("could not run {} auth status: {error}", cli.display())
        }
    })?;
    let status: Value = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
    Ok(status
        .get("loggedIn")
        .and_then(Value::as_bool)
        .unwrap_or(false))
}

/// What `ollim-bot auth` alone (or `auth help`) prints.
pub const AUTH_HELP: &str = "usage: ollim-bot auth [login|status|logout]

Sign the Claude CLI the bot drives in or out of your Claude account (CMD-6).

  login    sign in: prints a link to open in a browser, then asks for the code it shows
  status   whether the CLI is signed in, and how
  logout   sign out

An ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN in .env is used instead of a login.
The running bot asks for a login itself, in your DMs, when it starts without one.";

/// Runs `claude auth <args>` with the terminal attached and returns its exit code.
pub async fn run_auth(
    cli: &Path,
    env: &BTreeMap<String, String>,
    args: &[String],
) -> Result<i32, String> {
    let Some(action) = args.first() else {
        println!("{AUTH_HELP}");
        return Ok(0);
    };
    match action.as_str() {
        "login" | "status" | "logout" => {}
        "help" | "-h" | "--help" => {
            println!("{AUTH_HELP}");
            return Ok(0);
        }
        other => {
            eprintln!("Unknown auth command: {other}\n\n{AUTH_HELP}");
            return Ok(1);
        }
    }
    if args.len() == 1 && action == "status" {
        return status(cli, env).await;
    }
    let status = tokio::process::Command::new(cli)
        .arg("auth")
        .args(args)
        .envs(env)
        .env("BROWSER", "echo")
        .env("DISABLE_AUTOUPDATER", "1")
        .status()
        .await
        .map_err(|error| format!("could not run {}: {error}", cli.display()))?;
    Ok(status.code().unwrap_or(1))
}

/// The CLI's `auth status --json`, run quietly with the bot's CLI environment.
async fn status_json(
    cli: &Path,
    env: &BTreeMap<String, String>,
) -> std::io::Result<std::process::Output> {
    tokio::process::Command::new(cli)
        .args(["auth", "status", "--json"])
        .envs(env)
        .env("DISABLE_AUTOUPDATER", "1")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .await
}

/// `auth status` in words: the CLI's JSON answer read (`auth status --json` still prints it
/// as is). Exit 0 when logged in, 1 when not.
async fn status(cli: &Path, env: &BTreeMap<String, String>) -> Result<i32, String> {
    let output = status_json(cli, env)
        .await
        .map_err(|error| format!("could not run {}: {error}", cli.display()))?;
    let answer: Value = serde_json::from_slice(&output.stdout).map_err(|_| {
        format!(
            "{} auth status gave no answer the bot can read (exit {})",
            cli.display(),
            output.status.code().unwrap_or(1)
        )
    })?;
    let (line, logged_in) = status_line(&answer);
    println!("{line}");
    Ok(i32::from(!logged_in))
}

/// One line for the CLI's `auth status --json` answer, and whether it is logged in.
fn status_line(answer: &Value) -> (String, bool) {
    let text = |key: &str| answer.get(key).and_then(Value::as_str);
    if answer.get("loggedIn").and_then(Value::as_bool) != Some(true) {
        return (
            "Claude: not logged in. Run `ollim-bot auth login`, or set ANTHROPIC_API_KEY or \
             ANTHROPIC_AUTH_TOKEN in .env."
                .to_owned(),
            false,
        );
    }
    let how = match (text("authMethod"), text("apiKeySource")) {
        (Some("api_key"), Some(source)) => format!("an API key from {source}"),
        (Some("api_key"), None) => "an API key".to_owned(),
        (_, _) if text("email").is_some() => {
            format!("the Claude account {}", text("email").unwrap_or_default())
        }
        (Some(method), _) => format!("{} login", method.replace('_', " ")),
        (None, _) => "a login".to_owned(),
    };
    let until = text("loginExpiresAt")
        .map(|expires| format!(" (the login runs until {expires})"))
        .unwrap_or_default();
    (format!("Claude: logged in with {how}{until}."), true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_status_reads_as_a_sentence() {
        let out = serde_json::json!({"loggedIn": false, "authMethod": "none"});
        assert_eq!(
            status_line(&out),
            (
                "Claude: not logged in. Run `ollim-bot auth login`, or set ANTHROPIC_API_KEY or \
                 ANTHROPIC_AUTH_TOKEN in .env."
                    .to_owned(),
                false
            )
        );
        let key = serde_json::json!({"loggedIn": true, "authMethod": "api_key",
                                     "apiKeySource": "ANTHROPIC_API_KEY"});
        assert_eq!(
            status_line(&key).0,
            "Claude: logged in with an API key from ANTHROPIC_API_KEY."
        );
        let account = serde_json::json!({"loggedIn": true, "authMethod": "claude.ai",
                                         "email": "julia@example.com"});
        assert_eq!(
            status_line(&account).0,
            "Claude: logged in with the Claude account julia@example.com."
        );
    }
}
