//! Single-instance protection (PID-1..3).
//!
//! Two layers:
//! - the compatible `state/bot.pid` file ([`check_pid_file`], [`write_pid_file`],
//!   [`remove_pid_file`]), whose liveness probe rules out PID reuse by requiring the process's
//!   command line to mention `ollim-bot`;
//! - an OS file lock on `state/bot.lock` ([`InstanceLock`], in `state::instance_lock`, which
//!   `chat` takes too), held for the process lifetime.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::state::StateError;
use crate::state::atomic::write_atomic;
use crate::state::instance_lock::parse_pid;
pub use crate::state::instance_lock::{InstanceLock, InstanceLockError, LOCK_FILE_NAME};

/// What the PID file says about another instance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PidCheck {
    /// No other live ollim-bot: the file is missing, unreadable, garbage, stale, names a
    /// process that is not ollim-bot (PID reuse), or names this very process.
    Free,
    /// Another ollim-bot process with this PID is alive.
    Running(u32),
}

/// Whether `pid` is a live ollim-bot process (PID-1).
///
/// With procfs: `/proc/<pid>` must exist and its `cmdline` must contain `ollim-bot`; a
/// cmdline we may not read counts as alive. Without procfs (macOS, BSD): `ps -p <pid> -o
/// command=` must succeed and mention `ollim-bot`; if `ps` cannot run, the process counts as
/// not running and [`InstanceLock`] remains the guard.
fn is_ollim_process(pid: u32) -> bool {
    const NEEDLE: &[u8] = b"ollim-bot";
    let contains = |hay: &[u8]| hay.windows(NEEDLE.len()).any(|w| w == NEEDLE);
    if Path::new("/proc/self").exists() {
        let proc_dir = PathBuf::from(format!("/proc/{pid}"));
        if !proc_dir.exists() {
            return false;
        }
        return match fs::read(proc_dir.join("cmdline")) {
            Ok(cmdline) => contains(&cmdline),
            Err(e) if e.kind() == io::ErrorKind::NotFound => false,
            Err(_) => true,
        };
    }
    match std::process::Command::new("ps")
        .args(["-p", &pid.to_string(), "-o", "command="])
        .stderr(std::process::Stdio::null())
        .output()
    {
        Ok(out) => out.status.success() && contains(&out.stdout),
        Err(_) => false,
    }
}

/// Reads the PID file and reports whether it names another live ollim-bot (PID-1, PID-2).
pub fn check_pid_file(path: &Path) -> PidCheck {
    let Some(pid) = fs::read_to_string(path).ok().as_deref().and_then(parse_pid) else {
        return PidCheck::Free;
    };
    if pid == std::process::id() || !is_ollim_process(pid) {
        return PidCheck::Free;
    }
    PidCheck::Running(pid)
}

/// Writes this process's PID to `path` atomically, creating the parent directory (PID-3).
pub fn write_pid_file(path: &Path) -> io::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        fs::create_dir_all(dir)?;
    }
    write_atomic(path, std::process::id().to_string().as_bytes()).map_err(|e| match e {
        StateError::Io { source, .. } => source,
        other => io::Error::other(other),
    })
}

/// Deletes the PID file at exit (PID-3), unless it names another process (then it belongs
/// to someone else and is left alone). Failures are logged; a missing file is fine.
pub fn remove_pid_file(path: &Path) {
    if let Some(pid) = fs::read_to_string(path).ok().as_deref().and_then(parse_pid)
        && pid != std::process::id()
    {
        tracing::debug!(path = %path.display(), pid, "pid file names another process; kept");
        return;
    }
    match fs::remove_file(path) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => tracing::warn!(path = %path.display(), error = %e, "cannot remove pid file"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_garbage_and_own_pid_files_are_free() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bot.pid");
        assert_eq!(check_pid_file(&path), PidCheck::Free);
        for garbage in ["abc", "", "  ", "12abc", "-5", "0", "99999999999999999999"] {
            fs::write(&path, garbage).unwrap();
            assert_eq!(check_pid_file(&path), PidCheck::Free, "{garbage:?}");
        }
        fs::write(&path, std::process::id().to_string()).unwrap();
        assert_eq!(check_pid_file(&path), PidCheck::Free);
    }

    #[test]
    fn stale_pid_is_free() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bot.pid");
        fs::write(&path, "999999999").unwrap();
        assert_eq!(check_pid_file(&path), PidCheck::Free);
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        fs::write(&path, format!("{dead}\n")).unwrap();
        assert_eq!(check_pid_file(&path), PidCheck::Free);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn live_pid_counts_only_when_it_is_ollim_bot() {
        use std::os::unix::process::CommandExt;

        // Right after `spawn` the child's argv may not be visible in /proc yet (the kernel
        // sets it up late in exec), so wait until it is.
        fn wait_for_cmdline(pid: u32, needle: &str) {
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
            let path = format!("/proc/{pid}/cmdline");
            while !fs::read(&path).is_ok_and(|c| String::from_utf8_lossy(&c).contains(needle)) {
                assert!(
                    std::time::Instant::now() < deadline,
                    "{pid} never ran {needle}"
                );
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
        }

        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bot.pid");

        // A reused PID: alive, but some other program.
        let mut other = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        wait_for_cmdline(other.id(), "sleep");
        fs::write(&path, other.id().to_string()).unwrap();
        assert_eq!(check_pid_file(&path), PidCheck::Free);
        other.kill().unwrap();
        other.wait().unwrap();

        // A process whose command line names ollim-bot.
        let mut bot = std::process::Command::new("sleep")
            .arg0("ollim-bot")
            .arg("30")
            .spawn()
            .unwrap();
        wait_for_cmdline(bot.id(), "ollim-bot");
        fs::write(&path, bot.id().to_string()).unwrap();
        assert_eq!(check_pid_file(&path), PidCheck::Running(bot.id()));
        bot.kill().unwrap();
        bot.wait().unwrap();
        assert_eq!(check_pid_file(&path), PidCheck::Free);
    }

    #[test]
    fn write_and_remove_own_pid_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state").join("bot.pid");
        write_pid_file(&path).unwrap();
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            std::process::id().to_string()
        );
        remove_pid_file(&path);
        assert!(!path.exists());
        remove_pid_file(&path);
    }

    #[test]
    fn remove_leaves_another_processes_pid_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bot.pid");
        fs::write(&path, "999999999").unwrap();
        remove_pid_file(&path);
        assert!(path.exists());
        fs::write(&path, "garbage").unwrap();
        remove_pid_file(&path);
        assert!(!path.exists());
    }
}
