//! Errors of the CLI driver.

use std::path::PathBuf;

/// What can go wrong while driving the Claude Code CLI.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClaudeError {
    /// The `claude` executable does not exist.
    #[error("Claude Code CLI not found at {path:?}: {}", super::missing_cli_fix())]
    CliNotFound {
        /// The path or command name that was tried.
        path: PathBuf,
    },
    /// The process could not be started for another reason.
    #[error("could not start the Claude Code CLI {path:?}: {source}")]
    Spawn {
        /// The executable.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The process ended while we still needed it.
    #[error("the Claude Code CLI exited unexpectedly ({}){}{}", exit_label(*.code), limit_suffix(.limit.as_deref()), stderr_suffix(.stderr_tail))]
    ProcessExited {
        /// Exit code, if the process exited normally.
        code: Option<i32>,
        /// The limit of its container that stopped it, if one did (issue 39 §1).
        limit: Option<String>,
        /// The last lines the CLI wrote to stderr.
        stderr_tail: String,
    },
    /// `--resume` named a session the CLI does not know (in this cwd).
    #[error("no conversation found for session {session_id}")]
    SessionNotFound {
        /// The id that was resumed.
        session_id: String,
    },
    /// The CLI answered one of our control requests with an error.
    #[error("control request `{subtype}` failed: {message}")]
    ControlRequest {
        /// The request subtype.
        subtype: String,
        /// The CLI's error text.
        message: String,
    },
    /// The CLI did not answer a control request in time.
    #[error("control request `{subtype}` timed out after {secs}s")]
    Timeout {
        /// The request subtype.
        subtype: String,
        /// The limit that passed.
        secs: u64,
    },
    /// The connection is already closed.
    #[error("the Claude Code CLI connection is closed")]
    Closed,
    /// Starting the CLI keeps failing; the next try waits (issue 16, [`super::StartGate`]).
    #[error("Claude Code won't start ({last_failure}); next try in {retry_in_secs}s")]
    NotStarting {
        /// Seconds until a start may be tried again.
        retry_in_secs: u64,
        /// Why the last start failed.
        last_failure: String,
    },
    /// A turn in progress got nothing from the CLI for too long (a hung CLI or request).
    #[error("the Claude Code CLI sent nothing for {secs}s")]
    Silent {
        /// The silence allowed.
        secs: u64,
    },
}

fn exit_label(code: Option<i32>) -> String {
    match code {
        Some(code) => format!("exit code {code}"),
        None => "killed by a signal".to_owned(),
    }
}

fn limit_suffix(limit: Option<&str>) -> String {
    limit.map(|limit| format!(": {limit}")).unwrap_or_default()
}

fn stderr_suffix(tail: &str) -> String {
    if tail.trim().is_empty() {
        String::new()
    } else {
        format!(": {}", tail.trim())
    }
}
