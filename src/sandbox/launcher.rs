//! The last step before the CLI runs (issue 39 §1): inside the container, the bot's own binary
//! (`ollim-bot __sandbox-exec SPEC -- PROGRAM ARGS…`) enforces the Landlock domain of the
//! session's grants on itself — the second wall, which a container's mounts can't replace:
//! Landlock refuses mounts, so it can only be entered after bubblewrap made them — and then
//! becomes the CLI. Without containers it is the whole box, as before issue 39.

use std::{ffi::OsString, os::unix::process::CommandExt};

use serde::{Deserialize, Serialize};

use super::grants::Grant;

/// The hidden subcommand that runs [`exec`].
pub const SUBCOMMAND: &str = "__sandbox-exec";

/// What the launcher enforces before it becomes the program.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LaunchSpec {
    /// The Landlock grants; `None`: this kernel has no Landlock, nothing to enforce.
    pub grants: Option<Vec<Grant>>,
    /// The proxy's socket inside the container, when the container has no network of its
    /// own but that proxy (issue 39 §3): the launcher leaves a relay to it on a loopback port
    /// and points the program's proxy variables there.
    #[serde(default)]
    pub proxy: Option<std::path::PathBuf>,
    /// The process limits everything in the container inherits (issue 39 §1).
    #[serde(default)]
    pub limits: Option<super::limits::ProcessLimits>,
}

/// The proxy variables a program honours, pointed at the relay; the exclusions are removed,
/// since inside the container nothing but the relay is reachable directly.
const PROXY_VARIABLES: [&str; 4] = ["HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"];
const PROXY_EXCLUSIONS: [&str; 4] = ["NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy"];

/// The launcher's arguments after the binary: the subcommand, the spec, `--`, the program
/// and its arguments.
pub fn launcher_args(spec: &LaunchSpec, program: OsString, args: Vec<OsString>) -> Vec<OsString> {
    let spec = serde_json::to_string(spec).unwrap_or_else(|_| "{}".to_owned());
    let mut out = vec![SUBCOMMAND.into(), spec.into(), "--".into(), program];
    out.extend(args);
    out
}

/// Why the launcher could not start the program.
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    /// The arguments are not `SPEC -- PROGRAM …`.
    #[error("usage: ollim-bot {SUBCOMMAND} SPEC -- PROGRAM [ARGS…] (the bot runs this itself)")]
    Usage,
    /// The spec is not the bot's.
    #[error("the sandbox spec is unreadable: {0}")]
    Spec(#[from] serde_json::Error),
    /// The Landlock domain could not be entered.
    #[error("could not enter the sandbox: {0}")]
    Landlock(String),
    /// The limits could not be set.
    #[error("could not set the session's limits: {0}")]
    Limits(std::io::Error),
    /// The relay to the proxy could not start.
    #[error("could not reach the network proxy: {0}")]
    Relay(std::io::Error),
    /// `exec` failed.
    #[error("could not start {program}: {source}")]
    Exec {
        /// The program.
        program: String,
        /// The error.
        source: std::io::Error,
    },
}

/// Enforces the spec in `args` (everything after the subcommand) on this process and becomes
/// the program. Returns only on failure: the program never runs outside its box.
pub fn exec(args: &[OsString]) -> LaunchError {
    let [spec, separator, program, rest @ ..] = args else {
        return LaunchError::Usage;
    };
    if separator != "--" {
        return LaunchError::Usage;
    }
    let spec: LaunchSpec = match serde_json::from_slice(spec.as_encoded_bytes()) {
        Ok(spec) => spec,
        Err(error) => return error.into(),
    };
    if let Some(grants) = &spec.grants
        && let Err(error) = super::kernel::restrict_self(grants)
    {
        return LaunchError::Landlock(error.to_string());
    }
    if let Some(limits) = spec.limits
        && let Err(error) = limits.apply()
    {
        return LaunchError::Limits(error);
    }
    let mut command = std::process::Command::new(program);
    command.args(rest);
    if let Some(socket) = &spec.proxy {
        // After the domain is entered, so the relay stays inside it too.
        let port = match super::egress::start_bridge(socket) {
            Ok(port) => port,
            Err(error) => return LaunchError::Relay(error),
        };
        let url = format!("http://127.0.0.1:{port}");
        for name in PROXY_VARIABLES {
            command.env(name, &url);
        }
        for name in PROXY_EXCLUSIONS {
            command.env_remove(name);
        }
    }
    let error = command.exec();
    LaunchError::Exec {
        program: program.to_string_lossy().into_owned(),
        source: error,
    }
}
