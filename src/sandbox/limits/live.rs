//! The containers running now, so that a disk running out of room stops them (issue 39 §1):
//! what a session writes goes to the filesystem the bot's state lives on (its CLI home under
//! `state/`, the data dir), and a per-file limit alone doesn't bound how much it writes. A
//! guard looks at the free space of `state/` every second; below the floor
//! (`OLLIM_DISK_FLOOR_MB`) it stops the containers that started above it (one of them took
//! the room), empties their temp dirs, and each stopped session's error says why. A container
//! that started with the disk already below the floor is left alone: the bot keeps answering
//! on a full disk (issue 16), its sessions just can't write.

use std::{
    path::{Path, PathBuf},
    sync::{
        Arc, Weak,
        atomic::{AtomicU32, Ordering},
    },
    time::Duration,
};

use parking_lot::Mutex;
use tokio_util::sync::CancellationToken;

/// The containers running now.
#[derive(Debug, Default)]
pub struct LiveSessions {
    entries: Mutex<Vec<Weak<LiveSession>>>,
}

/// One running container.
#[derive(Debug)]
pub struct LiveSession {
    /// The process that holds the container (`bwrap`); 0 until it started.
    pid: AtomicU32,
    /// Its temp dir, emptied when the guard stops it.
    tmp: PathBuf,
    /// Bytes free where the state lives when it started (`None`: unknown).
    free_at_start: Option<u64>,
    /// Why the guard stopped it.
    stopped: Mutex<Option<String>>,
}

impl LiveSessions {
    /// Records a container whose temp dir is `tmp`, started with `free_at_start` bytes free
    /// where the state lives; it counts while the handle lives.
    pub fn register(&self, tmp: PathBuf, free_at_start: Option<u64>) -> Arc<LiveSession> {
        let session = Arc::new(LiveSession {
            pid: AtomicU32::new(0),
            tmp,
            free_at_start,
            stopped: Mutex::new(None),
        });
        let mut entries = self.entries.lock();
        entries.retain(|entry| entry.strong_count() > 0);
        entries.push(Arc::downgrade(&session));
        session
    }

    /// Stops every running container that started with at least `floor` bytes free, saying
    /// `why`; how many it stopped.
    pub fn stop_above(&self, floor: u64, why: &str) -> usize {
        let live: Vec<Arc<LiveSession>> = self
            .entries
            .lock()
            .iter()
            .filter_map(Weak::upgrade)
            .collect();
        let mut stopped = 0;
        for session in live {
            if session.free_at_start.is_some_and(|free| free < floor) {
                continue;
            }
            let pid = session.pid.load(Ordering::SeqCst);
            let Some(pid) = i32::try_from(pid)
                .ok()
                .and_then(rustix::process::Pid::from_raw)
            else {
                continue;
            };
            *session.stopped.lock() = Some(why.to_owned());
            // The container's own init dies with it, and with that everything inside.
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
            empty_dir(&session.tmp);
            stopped += 1;
        }
        stopped
    }
}

impl LiveSession {
    /// The container's process started as `pid`.
    pub fn started(&self, pid: u32) {
        self.pid.store(pid, Ordering::SeqCst);
    }

    /// Why the guard stopped it, if it did.
    pub fn stopped_by(&self) -> Option<String> {
        self.stopped.lock().clone()
    }
}

/// Removes what `dir` holds, keeping `dir`.
fn empty_dir(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let removed = if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
            std::fs::remove_dir_all(&path)
        } else {
            std::fs::remove_file(&path)
        };
        if let Err(error) = removed {
            tracing::debug!(%error, path = %path.display(), "could not empty a session's temp dir");
        }
    }
}

/// Bytes free for an unprivileged writer on the filesystem of `path`.
pub fn free_bytes(path: &Path) -> Option<u64> {
    let stats = rustix::fs::statvfs(path).ok()?;
    Some(stats.f_bavail.saturating_mul(stats.f_frsize))
}

/// Every `every` until `stop`: when the filesystem of `watched` has less than `floor` bytes
/// free, stops the containers in `live` that started above it.
pub async fn guard_disk(
    live: Arc<LiveSessions>,
    (watched, floor): (PathBuf, u64),
    every: Duration,
    stop: CancellationToken,
) {
    loop {
        tokio::select! {
            () = stop.cancelled() => return,
            () = tokio::time::sleep(every) => {}
        }
        let Some(free) = free_bytes(&watched) else {
            continue;
        };
        if free >= floor {
            continue;
        }
        let mib = |bytes: u64| bytes / (1024 * 1024);
        let why = format!(
            "the disk the bot's state lives on was nearly full ({} MiB free, below the {} MiB \
             floor of OLLIM_DISK_FLOOR_MB), so the session was stopped and its temporary files \
             removed",
            mib(free),
            mib(floor)
        );
        let stopped = live.stop_above(floor, &why);
        if stopped > 0 {
            tracing::warn!(
                free,
                floor,
                stopped,
                "the disk is nearly full: sessions stopped"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stopping_kills_the_sessions_that_started_above_the_floor_and_empties_their_temp_dirs() {
        let dir = tempfile::tempdir().unwrap();
        let tmp = dir.path().join("tmp");
        std::fs::create_dir_all(tmp.join("sub")).unwrap();
        std::fs::write(tmp.join("big"), "x").unwrap();
        let live = LiveSessions::default();
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let running = live.register(tmp.clone(), Some(100));
        let not_started = live.register(dir.path().join("other"), None);
        let started_low = live.register(dir.path().join("low"), Some(5));
        let mut low = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        running.started(child.id());
        started_low.started(low.id());
        assert_eq!(live.stop_above(10, "full"), 1);
        assert!(!child.wait().unwrap().success(), "killed");
        assert_eq!(running.stopped_by().as_deref(), Some("full"));
        assert_eq!(not_started.stopped_by(), None);
        assert_eq!(
            started_low.stopped_by(),
            None,
            "it found the disk full already"
        );
        low.kill().unwrap();
        low.wait().unwrap();
        assert!(tmp.exists() && std::fs::read_dir(&tmp).unwrap().next().is_none());
        drop((running, not_started, started_low));
        assert_eq!(live.stop_above(0, "again"), 0);
        assert!(free_bytes(dir.path()).is_some_and(|free| free > 0));
    }
}
