//! Dynamic context in skill bodies (SKL-4, F-6): each `` !`command` `` marker is replaced by
//! the command's standard output, run without a shell.
//!
//! The limits and the error markers are the documented ones: 10 s per command, 30 s for the
//! whole body (later commands become `[command skipped (total timeout): <cmd>]`), output cut to
//! 2000 characters plus `\n[...truncated]`, and `[command failed (exit <n>): <cmd>: <first
//! stderr line>]`, `[command timed out: <cmd>]`, `[command not found: <cmd>]`,
//! `[command parse error: <cmd>]`.

use std::collections::HashMap;
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::Command;
use tokio::time::{Instant, timeout};

/// Output longer than this many characters is cut (SKL-4).
pub(super) const OUTPUT_CAP_CHARS: usize = 2000;
/// Appended to cut output (SKL-4).
pub(super) const TRUNCATION_MARK: &str = "\n[...truncated]";
/// Stdout kept per command: far more than [`OUTPUT_CAP_CHARS`] characters of any encoding.
const KEPT_STDOUT_BYTES: u64 = 64 * 1024;
/// Stderr kept per command: only its first line is shown.
const KEPT_STDERR_BYTES: u64 = 8 * 1024;

/// How long commands may run. [`Limits::default`] is the documented 10 s / 30 s (SKL-4);
/// tests pass smaller ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The most one command may take before it is killed.
    pub per_command: Duration,
    /// The most all commands of one body may take together.
    pub total: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            per_command: Duration::from_secs(10),
            total: Duration::from_secs(30),
        }
    }
}

/// Replaces every `` !`command` `` in `body` with that command's output, with the default
/// [`Limits`]. See [`expand_dynamic_context_with`].
///
/// SECURITY: a skill body is text the agent itself may have written, and this runs the
/// commands in it with the bot's own rights, outside every tool permission. Call it only for
/// the skills the owner's jobs reference, at the moment such a job fires; never for a skill
/// merely because it exists, and never on text from a message, a webhook or a tool result.
pub async fn expand_dynamic_context(body: &str, cwd: &Path) -> String {
    expand_dynamic_context_with(body, cwd, Limits::default()).await
}

/// [`expand_dynamic_context`] with explicit limits. Commands run one after another in `cwd`
/// (the data dir), split into argv with POSIX quoting and no shell (no pipes, globs or
/// variables); stdin is empty. Identical commands run once. A marker is `!` and a backquoted
/// command on one line; anything else is left as written. The same SECURITY rule applies.
pub(super) async fn expand_dynamic_context_with(body: &str, cwd: &Path, limits: Limits) -> String {
    let started = Instant::now();
    let mut outputs: HashMap<&str, String> = HashMap::new();
    let mut expanded = String::with_capacity(body.len());
    let mut rest = body;
    while let Some((before, command, after)) = next_marker(rest) {
        expanded.push_str(before);
        let output = if let Some(output) = outputs.get(command) {
            output.clone()
        } else {
            let remaining = limits.total.saturating_sub(started.elapsed());
            let output = if remaining.is_zero() {
                format!("[command skipped (total timeout): {command}]")
            } else {
                run(command, cwd, limits.per_command.min(remaining)).await
            };
            outputs.insert(command, output.clone());
            output
        };
        expanded.push_str(&output);
        rest = after;
    }
    expanded.push_str(rest);
    expanded
}

/// The text before the next marker, its trimmed command, and the text after it.
fn next_marker(text: &str) -> Option<(&str, &str, &str)> {
    let mut searched = 0;
    loop {
        let start = searched + text[searched..].find("!`")?;
        let inner_start = start + 2;
        let inner = &text[inner_start..];
        let end = inner.find(['`', '\n'])?;
        let command = inner[..end].trim();
        if inner[end..].starts_with('`') && !command.is_empty() {
            return Some((&text[..start], command, &inner[end + 1..]));
        }
        searched = inner_start;
    }
}

/// Runs one command and returns its output or the matching marker.
async fn run(command: &str, cwd: &Path, limit: Duration) -> String {
    let Some(argv) = shlex::split(command).filter(|argv| !argv.is_empty()) else {
        return format!("[command parse error: {command}]");
    };
    let child = Command::new(&argv[0])
        .args(&argv[1..])
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn();
    let mut child = match child {
        Ok(child) => child,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return format!("[command not found: {command}]");
        }
        // Found but not runnable (permissions, not an executable): 126, as shells report it.
        Err(e) => return failed(126, command, &e.to_string()),
    };
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let finished = async {
        tokio::join!(
            read_capped(stdout, KEPT_STDOUT_BYTES),
            read_capped(stderr, KEPT_STDERR_BYTES),
            child.wait()
        )
    };
    // On timeout `child` is dropped when this returns, and `kill_on_drop` kills it.
    match timeout(limit, finished).await {
        Err(_) => format!("[command timed out: {command}]"),
        Ok((_, _, Err(e))) => failed(-1, command, &e.to_string()),
        Ok((stdout, _, Ok(status))) if status.success() => {
            cap_output(String::from_utf8_lossy(&stdout).trim_end_matches(['\n', '\r']))
        }
        Ok((_, stderr, Ok(status))) => failed(
            exit_code(status),
            command,
            String::from_utf8_lossy(&stderr).trim(),
        ),
    }
}

/// Reads the first `cap` bytes of a pipe and drains the rest, so a chatty command neither
/// fills memory nor blocks on a full pipe.
async fn read_capped<R: AsyncRead + Unpin>(pipe: Option<R>, cap: u64) -> Vec<u8> {
    let mut kept = Vec::new();
    if let Some(mut pipe) = pipe {
        // A read error just ends the output early; the exit status still decides.
        let _ = (&mut pipe).take(cap).read_to_end(&mut kept).await;
        let _ = tokio::io::copy(&mut pipe, &mut tokio::io::sink()).await;
    }
    kept
}

/// `[command failed (exit <n>): <cmd>: <first stderr line>]`, without the last part when
/// there is no stderr.
fn failed(code: i32, command: &str, stderr: &str) -> String {
    match stderr
        .lines()
        .next()
        .map(str::trim)
        .filter(|l| !l.is_empty())
    {
        Some(line) => format!("[command failed (exit {code}): {command}: {line}]"),
        None => format!("[command failed (exit {code}): {command}]"),
    }
}

/// The exit code; a signal `n` counts as `-n`, as Python reports it.
fn exit_code(status: ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    status
        .code()
        .or_else(|| status.signal().map(|signal| -signal))
        .unwrap_or(-1)
}

/// Output cut to [`OUTPUT_CAP_CHARS`] characters plus [`TRUNCATION_MARK`].
fn cap_output(output: &str) -> String {
    match output.char_indices().nth(OUTPUT_CAP_CHARS) {
        Some((cut, _)) => format!("{}{TRUNCATION_MARK}", &output[..cut]),
        None => output.to_owned(),
    }
}
