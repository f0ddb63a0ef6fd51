//! CLAUDE CLI and CLAUDE AUTH (CMD-7): the executable, its version against the tested one, and
//! whether it can authenticate. Credentials are named by their variable, never shown.

use std::path::Path;

use super::{Check, Group};
use crate::{
    claude::{CliFit, CliVersion, CliVersionError, TESTED_CLI_VERSION, installed_cli_version},
    cli::auth::{CREDENTIAL_VARS, claude_is_authenticated},
    config::{ClaudeCli, CliOrigin, Launch},
};

pub(super) use crate::sandbox::locate_executable as locate_cli;

/// The CLAUDE CLI group: which CLI (and where that choice came from), found, which version.
pub(super) async fn cli_checks(cli: &ClaudeCli) -> Vec<Check> {
    let path_var = crate::config::environment::search_path();
    let Some(found) = locate_cli(&cli.path, path_var.as_deref()) else {
        return vec![missing_cli(cli)];
    };
    let version = installed_cli_version(&found).await;
    vec![
        Check::pass(
            Group::ClaudeCli,
            format!("found {} ({})", found.display(), cli.origin.describe()),
        ),
        version_check(version, cli.origin),
    ]
}

/// `--fix`: the CLI step of `setup`, asking on stdin, then a blank line before the report.
pub(super) async fn fix_cli(launch: &Launch) {
    let step =
        crate::cli::claude_install::cli_step(launch, "", crate::cli::claude_install::ask_on_stdin)
            .await;
    if let Err(error) = step {
        eprintln!("error: cannot read the answer: {error}");
    }
    println!();
}

/// The executable is not there.
pub(super) fn missing_cli(cli: &ClaudeCli) -> Check {
    Check::fail(Group::ClaudeCli, cli.not_found())
}

/// The installed version against [`TESTED_CLI_VERSION`], with the fix for a CLI from `origin`.
pub(super) fn version_check(
    version: Result<CliVersion, CliVersionError>,
    origin: CliOrigin,
) -> Check {
    let group = Group::ClaudeCli;
    match version.map(CliVersion::fit) {
        Ok(CliFit::Tested) => Check::pass(
            group,
            format!("version {TESTED_CLI_VERSION} (the tested version)"),
        ),
        Ok(fit @ (CliFit::Older(other) | CliFit::Newer(other))) => Check::warn(
            group,
            format!(
                "version {other}: {}: {}",
                fit.difference().unwrap_or_default(),
                origin.fix()
            ),
        ),
        Err(error) => Check::fail(group, format!("{error}: {}", origin.fix())),
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
