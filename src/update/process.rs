//! Running `git` and `cargo` for an update (UPD-3, UPD-5): one process at a time with a time
//! limit, stdin closed, output captured, killed if the limit passes or the caller gives up,
//! and the error texts the owner reads (`` `<cmd>` returned <code> ``, `` `<cmd>` timed out
//! after <n>s ``).

use std::{os::unix::process::ExitStatusExt, path::Path, process::Stdio, time::Duration};

use tokio::process::Command;

/// How a command failed; its `Display` is what the owner reads after `update failed: `,
/// `git fetch failed: ` or `auto-update failed: `.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CommandError {
    /// It exited with a non-zero code; the last line it wrote to stderr, if any, follows.
    #[error("`{command}` returned {code}{}", last_line_suffix(last_line.as_deref()))]
    Failed {
        /// The command line as shown.
        command: String,
        /// Its exit code.
        code: i32,
        /// The last non-empty line of its stderr.
        last_line: Option<String>,
    },
    /// A signal ended it.
    #[error("`{command}` was killed by signal {signal}")]
    Killed {
        /// The command line as shown.
        command: String,
        /// The signal number.
        signal: i32,
    },
    /// It ran past its time limit and was killed.
    #[error("`{command}` timed out after {secs}s")]
    TimedOut {
        /// The command line as shown.
        command: String,
        /// The limit, in seconds.
        secs: u64,
    },
    /// It could not be started (not installed, not on `PATH`, a missing directory).
    #[error("`{command}` could not start: {reason}")]
    NotStarted {
        /// The command line as shown.
        command: String,
        /// What the OS said.
        reason: String,
    },
}

impl CommandError {
    /// The exit code, when the command ran to an exit.
    pub fn exit_code(&self) -> Option<i32> {
        match self {
            Self::Failed { code, .. } => Some(*code),
            _ => None,
        }
    }
}

fn last_line_suffix(line: Option<&str>) -> String {
    line.map(|line| format!(": {line}")).unwrap_or_default()
}

/// The command line as the owner reads it: the program and its arguments joined by spaces.
pub fn display_command(program: &str, args: &[&str]) -> String {
    std::iter::once(program)
        .chain(args.iter().copied())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The last non-empty line of `stderr`, trimmed.
pub fn last_stderr_line(stderr: &[u8]) -> Option<String> {
    String::from_utf8_lossy(stderr)
        .lines()
        .map(str::trim)
        .rfind(|line| !line.is_empty())
        .map(str::to_owned)
}

/// Kills a command's whole process group when dropped, unless [`Self::disarm`]ed: `git fetch`
/// runs `git-remote-*` helpers and `cargo install` runs `rustc`, which must not outlive a
/// timeout or a shutdown.
struct GroupKill(Option<rustix::process::Pid>);

impl GroupKill {
    fn disarm(&mut self) {
        self.0 = None;
    }
}

impl Drop for GroupKill {
    fn drop(&mut self) {
        if let Some(group) = self.0 {
            let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
        }
    }
}

/// Runs `program args…` in `dir` within `limit`; returns its stdout (lossy UTF-8).
///
/// Stdin is closed and git may never prompt (`GIT_TERMINAL_PROMPT=0`); the bot's own
/// `GIT_DIR`/`GIT_WORK_TREE`, if any, never leak in. The command runs in its own process
/// group; if the limit passes, or the returned future is dropped (shutdown), the group is
/// killed.
pub async fn run(
    program: &str,
    args: &[&str],
    dir: &Path,
    limit: Duration,
) -> Result<String, CommandError> {
    let command = display_command(program, args);
    let child = Command::new(program)
        .args(args)
        .current_dir(dir)
        .env("GIT_TERMINAL_PROMPT", "0")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .process_group(0)
        .spawn()
        .map_err(|error| CommandError::NotStarted {
            command: command.clone(),
            reason: error.to_string(),
        })?;
    let mut group = GroupKill(
        child
            .id()
            .and_then(|id| i32::try_from(id).ok())
            .and_then(rustix::process::Pid::from_raw),
    );
    let waited = tokio::time::timeout(limit, child.wait_with_output()).await;
    if matches!(waited, Ok(Ok(_))) {
        group.disarm();
    }
    let output = match waited {
        Err(_) => {
            return Err(CommandError::TimedOut {
                command,
                secs: limit.as_secs(),
            });
        }
        Ok(Err(error)) => {
            return Err(CommandError::NotStarted {
                command,
                reason: error.to_string(),
            });
        }
        Ok(Ok(output)) => output,
    };
    if output.status.success() {
        return Ok(String::from_utf8_lossy(&output.stdout).into_owned());
    }
    if let Some(code) = output.status.code() {
        return Err(CommandError::Failed {
            command,
            code,
            last_line: last_stderr_line(&output.stderr),
        });
    }
    Err(CommandError::Killed {
        command,
        signal: output.status.signal().unwrap_or_default(),
    })
}

#[cfg(test)]
#[path = "process_tests.rs"]
mod tests;
