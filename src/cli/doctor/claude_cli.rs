//! CLAUDE CLI and CLAUDE AUTH (CMD-7): the executable, its version against the tested one, and
//! whether it can authenticate. Credentials are named by their variable, never shown.

use std::path::Path;

use super::{Check, Group};
use crate::{
    claude::{CliFit, CliVersion, CliVersionError, TESTED_CLI_VERSION, installed_cli_version},
    cli::auth::{CREDENTIAL_VARS, claude_is_authenticated},
    config::Launch,
};

/// The command that installs the tested CLI.
pub(super) use crate::claude::install_command as install_line;

pub(super) use crate::sandbox::locate_executable as locate_cli;

/// The CLAUDE CLI group: found, and which version.
pub(super) async fn cli_checks(cli: &Path) -> Vec<Check> {
    let path_var = crate::config::environment::search_path();
    let Some(found) = locate_cli(cli, path_var.as_deref()) else {
        return vec![missing_cli(cli)];
    };
    let version = installed_cli_version(&found).await;
    vec![
        Check::pass(Group::ClaudeCli, format!("found {}", found.display())),
        version_check(version),
    ]
}

/// The executable is not there.
pub(super) fn missing_cli(cli: &Path) -> Check {
    Check::fail(
        Group::ClaudeCli,
        format!(
            "Claude Code CLI not found ({}): install it with `{}`, or set OLLIM_CLAUDE_CLI to \
             the path of `claude`",
            cli.display(),
            install_line()
        ),
    )
}

/// The installed version against [`TESTED_CLI_VERSION`].
pub(super) fn version_check(version: Result<CliVersion, CliVersionError>) -> Check {
    let group = Group::ClaudeCli;
    match version.map(CliVersion::fit) {
        Ok(CliFit::Tested) => Check::pass(
            group,
            format!("version {TESTED_CLI_VERSION} (the tested version)"),
        ),
        Ok(fit @ (CliFit::Older(other) | CliFit::Newer(other))) => Check::warn(
            group,
            format!("version {other}: {}", fit.concern().unwrap_or_default()),
        ),
        Err(error) => Check::fail(
            group,
            format!("{error}: reinstall it with `{}`", install_line()),
        ),
    }
}

/// The credential variable set in the environment, if any (by name).
pub(super) fn credential_var(lookup: impl Fn(&str) -> Option<String>) -> Option<&'static str> {
    CREDENTIAL_VARS
        .into_iter()
        .find(|name| lookup(name).is_some_and(|v| !v.trim().is_empty()))
}

/// The CLAUDE AUTH line: a credential variable, else the CLI's login (its answer injected).
pub(super) fn auth_status(credential: Option<&str>, logged_in: Result<bool, String>) -> Check {
    let group = Group::ClaudeAuth;
    if let Some(name) = credential {
        return Check::pass(group, format!("{name} is set (used instead of a login)"));
    }
    match logged_in {
        Ok(true) => Check::pass(group, "the Claude CLI is logged in"),
        Ok(false) => Check::fail(
            group,
            "Claude is not logged in: run `ollim-bot auth login`, or set ANTHROPIC_API_KEY in \
             .env",
        ),
        Err(message) => Check::fail(group, format!("can't check the login: {message}")),
    }
}

/// The CLAUDE AUTH group: [`auth_status`] from the environment and `claude auth status`.
pub(super) async fn auth_check(launch: &Launch, cli: &Path) -> Check {
    let credential = credential_var(|name| launch.var(name));
    let logged_in = if credential.is_some() {
        Ok(true)
    } else {
        let env = crate::config::cli_env_from(|name| launch.var(name));
        claude_is_authenticated(cli, &env).await
    };
    auth_status(credential, logged_in)
}
