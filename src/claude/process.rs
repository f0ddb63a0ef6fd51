//! The CLI child process: spawning with an allow-listed environment, stderr forwarding, and
//! shutdown without zombies.

use std::{
    process::{ExitStatus, Stdio},
    sync::Arc,
    time::Duration,
};

use tokio::{
    process::{Child, ChildStdin, ChildStdout, Command},
    task::JoinHandle,
};
use tracing::Instrument;

use super::{ClaudeError, ClientOptions, Invocation, child_env::child_env, stderr_tail};

/// Set to `1` on every CLI child, so a program the agent runs (its Bash inherits the CLI's
/// environment) can tell it was started by the agent rather than by the owner's shell.
pub const AGENT_CHILD_ENV: &str = "OLLIM_BOT_AGENT_CHILD";

/// A running CLI process.
pub(crate) struct CliProcess {
    child: Child,
    /// The config dir the confinement gave it, if any.
    config_dir: Option<std::path::PathBuf>,
    /// What its confinement needs while it runs (its network proxy).
    attachment: Option<super::options::Attachment>,
    stderr_tail: stderr_tail::Tail,
    stderr_task: JoinHandle<()>,
    status: Option<ExitStatus>,
}

/// Starts the CLI with piped stdio in its own process group.
pub(crate) fn spawn(
    options: &ClientOptions,
    has_permission_handler: bool,
) -> Result<(CliProcess, ChildStdin, ChildStdout), ClaudeError> {
    // Variables whose name or value is not UTF-8 are dropped (none of the allowed ones is
    // expected to be).
    let parent = std::env::vars_os()
        .filter_map(|(name, value)| Some((name.into_string().ok()?, value.into_string().ok()?)));
    let mut env = child_env(parent, &options.env, &options.cwd);
    env.extend(
        options
            .start_up
            .env()
            .map(|(name, value)| (name.to_owned(), value.to_owned())),
    );
    let mut invocation = Invocation {
        program: options.cli_path.clone(),
        args: options
            .to_args(has_permission_handler)
            .into_iter()
            .map(Into::into)
            .collect(),
        cwd: options.cwd.clone(),
        env,
        resume: options.resume.as_ref().map(|id| id.as_str().to_owned()),
        fork_session: options.fork_session,
        config_dir: None,
        cgroups: Vec::new(),
    };
    let attachment = match &options.confine {
        Some(confine) => confine(&mut invocation).map_err(|source| ClaudeError::Spawn {
            path: options.cli_path.clone(),
            source,
        })?,
        None => None,
    };
    let mut command = Command::new(&invocation.program);
    command
        .args(&invocation.args)
        .current_dir(&invocation.cwd)
        .env_clear()
        .envs(&invocation.env)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        // Keep terminal signals (Ctrl-C) away from the child: we end it ourselves, cleanly.
        .process_group(0);
    let cgroups =
        join_cgroups(&mut command, &invocation.cgroups).map_err(|source| ClaudeError::Spawn {
            path: options.cli_path.clone(),
            source,
        })?;
    let spawned = command.spawn();
    drop(cgroups);
    let mut child = spawned.map_err(|source| {
        if source.kind() == std::io::ErrorKind::NotFound {
            ClaudeError::CliNotFound {
                path: options.cli_path.clone(),
            }
        } else {
            ClaudeError::Spawn {
                path: options.cli_path.clone(),
                source,
            }
        }
    })?;
    if let (Some(attachment), Some(pid)) = (&attachment, child.id()) {
        attachment.started(pid);
    }
    let (Some(stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err(ClaudeError::Spawn {
            path: options.cli_path.clone(),
            source: std::io::Error::other("stdio pipes were not created"),
        });
    };
    let stderr_tail = stderr_tail::new_tail();
    let stderr_task = tokio::spawn(
        stderr_tail::drain(stderr, Arc::clone(&stderr_tail)).instrument(tracing::Span::current()),
    );
    tracing::debug!(pid = child.id(), cwd = %options.cwd.display(), "started the Claude Code CLI");
    Ok((
        CliProcess {
            child,
            config_dir: invocation.config_dir,
            attachment,
            stderr_tail,
            stderr_task,
            status: None,
        },
        stdin,
        stdout,
    ))
}

/// Makes the child write itself into each of `procs` (a cgroup's `cgroup.procs`) between
/// `fork` and `exec`. Returns the open files, to be kept until the child is spawned.
#[allow(unsafe_code)]
fn join_cgroups(
    command: &mut Command,
    procs: &[std::path::PathBuf],
) -> std::io::Result<Vec<std::fs::File>> {
    use std::os::fd::AsRawFd;
    let files = procs
        .iter()
        .map(|path| std::fs::OpenOptions::new().write(true).open(path))
        .collect::<std::io::Result<Vec<_>>>()?;
    if files.is_empty() {
        return Ok(files);
    }
    let fds: Vec<i32> = files.iter().map(AsRawFd::as_raw_fd).collect();
    // SAFETY: between fork and exec the closure only calls `write(2)`, which is
    // async-signal-safe, on descriptors the parent keeps open until the spawn returns; it
    // allocates nothing (the descriptors were collected before).
    unsafe {
        command.pre_exec(move || {
            for fd in &fds {
                // "0" is the writing process itself.
                if libc::write(*fd, b"0".as_ptr().cast(), 1) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
    Ok(files)
}

impl CliProcess {
    /// The OS process id, while it runs.
    pub(crate) fn pid(&self) -> Option<u32> {
        self.child.id()
    }

    /// The config dir the confinement gave it, if any.
    pub(crate) fn config_dir(&self) -> Option<&std::path::Path> {
        self.config_dir.as_deref()
    }

    /// The last stderr lines, joined with newlines.
    pub(crate) fn stderr_tail(&self) -> String {
        let tail = self.stderr_tail.lock();
        tail.iter().cloned().collect::<Vec<_>>().join("\n")
    }

    /// Waits up to `grace` for the process to exit on its own, then kills it. Always reaps it.
    pub(crate) async fn finish(&mut self, grace: Duration) -> Option<ExitStatus> {
        if let Some(status) = self.status {
            return Some(status);
        }
        let status = match tokio::time::timeout(grace, self.child.wait()).await {
            Ok(Ok(status)) => Some(status),
            Ok(Err(error)) => {
                tracing::warn!(%error, "waiting for the CLI failed");
                None
            }
            Err(_) => {
                tracing::debug!("the CLI did not exit in time; killing it");
                let _ = self.child.start_kill();
                self.child.wait().await.ok()
            }
        };
        // Let the stderr forwarder drain the last lines (the pipe is closed now).
        if !self.stderr_task.is_finished() {
            let _ = tokio::time::timeout(Duration::from_millis(500), &mut self.stderr_task).await;
        }
        self.status = status;
        status
    }

    /// The error describing an unexpected exit, with the stderr tail.
    pub(crate) async fn exit_error(&mut self) -> ClaudeError {
        let status = self.finish(Duration::from_secs(2)).await;
        ClaudeError::ProcessExited {
            code: status.and_then(|s| s.code()),
            limit: self
                .attachment
                .as_ref()
                .and_then(|attachment| attachment.exit_note()),
            stderr_tail: self.stderr_tail(),
        }
    }
}

impl Drop for CliProcess {
    fn drop(&mut self) {
        self.stderr_task.abort();
    }
}
