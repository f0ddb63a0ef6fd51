//! A cgroup per container, where the bot may make them: under its own cgroup, in the unified
//! hierarchy (cgroup v2, with the `memory` and `pids` controllers delegated to it) or in the
//! `memory` and `pids` hierarchies of cgroup v1 (as root). The CLI's process joins it before
//! `bwrap` runs (see [`crate::claude::Invocation::cgroups`]), so everything in the container is
//! counted from its first instruction.

use std::{
    fs, io,
    path::{Path, PathBuf},
};

/// Where the cgroup filesystem is mounted.
const ROOT: &str = "/sys/fs/cgroup";
/// The leaf the daemon moves into on cgroup v2, so its cgroup may have children with
/// controllers (no process may sit in a cgroup that hands controllers down).
const DAEMON_LEAF: &str = "ollim-daemon";

/// Whether containers get a cgroup of their own, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CgroupSupport {
    /// cgroup v2: each container's cgroup is made in `parent`.
    V2 {
        /// The bot's own cgroup.
        parent: PathBuf,
    },
    /// cgroup v1: in these directories of the `memory` and `pids` hierarchies.
    V1 {
        /// The bot's memory cgroup.
        memory: PathBuf,
        /// The bot's pids cgroup.
        pids: PathBuf,
    },
    /// No cgroup: why, in one sentence.
    Unavailable {
        /// Why.
        reason: String,
    },
}

impl CgroupSupport {
    /// Finds the bot's cgroup and makes it ready to hold one cgroup per container: on cgroup
    /// v2 the daemon moves into a leaf of its own and the controllers are enabled for the
    /// children. Changes nothing when that is impossible.
    pub fn prepare() -> Self {
        let support = Self::find(true);
        support.sweep();
        support
    }

    /// What [`Self::prepare`] would find, moving nothing (`doctor`).
    pub fn probe() -> Self {
        Self::find(false)
    }

    fn find(move_daemon: bool) -> Self {
        let own = fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
        let outcome = if Path::new(ROOT).join("cgroup.controllers").exists() {
            prepare_v2(&own, move_daemon)
        } else {
            prepare_v1(&own)
        };
        outcome.unwrap_or_else(|reason| Self::Unavailable { reason })
    }

    /// Removes the empty session cgroups an earlier run of the bot left (a crash, a kill):
    /// those named `ollim-<pid>-…` whose process is gone. A running bot's stay, even while
    /// empty (one is made just before its CLI joins it).
    fn sweep(&self) {
        let dirs = match self {
            Self::V2 { parent } => vec![parent.clone()],
            Self::V1 { memory, pids } => vec![memory.clone(), pids.clone()],
            Self::Unavailable { .. } => Vec::new(),
        };
        let stale = dirs
            .iter()
            .filter_map(|dir| fs::read_dir(dir).ok())
            .flatten()
            .flatten()
            .map(|entry| entry.path())
            .filter(|path| {
                path.file_name().is_some_and(|name| {
                    let name = name.to_string_lossy();
                    name.strip_prefix("ollim-")
                        .and_then(|rest| rest.split('-').next())
                        .and_then(|pid| pid.parse::<u32>().ok())
                        .is_some_and(|pid| !Path::new(&format!("/proc/{pid}")).exists())
                })
            });
        for dir in stale {
            let _ = fs::remove_dir(dir);
        }
    }
}

/// The path of the cgroup `line`s of `/proc/self/cgroup` give for `controller` (`""`: v2).
fn own_path<'a>(own: &'a str, controller: &str) -> Option<&'a str> {
    own.lines().find_map(|line| {
        let mut parts = line.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        let named = if controller.is_empty() {
            controllers.is_empty()
        } else {
            controllers.split(',').any(|c| c == controller)
        };
        named.then_some(path)
    })
}

fn under_root(parts: &[&str]) -> PathBuf {
    parts.iter().fold(PathBuf::from(ROOT), |path, part| {
        path.join(part.trim_start_matches('/'))
    })
}

fn lists(file: &Path, word: &str) -> bool {
    fs::read_to_string(file).is_ok_and(|text| text.split_whitespace().any(|w| w == word))
}

fn prepare_v2(own: &str, move_daemon: bool) -> Result<CgroupSupport, String> {
    let path = own_path(own, "").ok_or("the bot's cgroup v2 is unknown")?;
    let parent = under_root(&[path.trim_end_matches(DAEMON_LEAF)]);
    let available = parent.join("cgroup.controllers");
    if !(lists(&available, "memory") && lists(&available, "pids")) {
        return Err(format!(
            "the memory and pids controllers are not delegated to the bot's cgroup ({}); under \
             systemd, `Delegate=memory pids` in the unit",
            parent.display()
        ));
    }
    let enabled = parent.join("cgroup.subtree_control");
    if !move_daemon {
        use rustix::fs::{Access, access};
        return access(&enabled, Access::WRITE_OK)
            .map(|()| CgroupSupport::V2 {
                parent: parent.clone(),
            })
            .map_err(|error| {
                format!(
                    "the bot can't make cgroups in {} ({error})",
                    parent.display()
                )
            });
    }
    if !(lists(&enabled, "memory") && lists(&enabled, "pids")) {
        let leaf = parent.join(DAEMON_LEAF);
        let moved = fs::create_dir_all(&leaf)
            .and_then(|()| fs::write(leaf.join("cgroup.procs"), std::process::id().to_string()))
            .and_then(|()| fs::write(&enabled, "+memory +pids"));
        if let Err(error) = moved {
            return Err(format!(
                "the bot can't make cgroups in {} ({error})",
                parent.display()
            ));
        }
    }
    Ok(CgroupSupport::V2 { parent })
}

fn prepare_v1(own: &str) -> Result<CgroupSupport, String> {
    let dir = |controller: &str| -> Result<PathBuf, String> {
        let path = own_path(own, controller)
            .ok_or_else(|| format!("no cgroup v1 {controller} hierarchy"))?;
        let dir = under_root(&[controller, path]);
        let probe = dir.join(format!("ollim-probe-{}", std::process::id()));
        fs::create_dir(&probe)
            .and_then(|()| fs::remove_dir(&probe))
            .map_err(|error| {
                format!("the bot can't make cgroups in {} ({error})", dir.display())
            })?;
        Ok(dir)
    };
    Ok(CgroupSupport::V1 {
        memory: dir("memory")?,
        pids: dir("pids")?,
    })
}

/// One container's cgroup (two on v1), removed when dropped (after its processes are gone).
#[derive(Debug)]
pub struct SessionCgroup {
    dirs: Vec<PathBuf>,
    v2: bool,
    memory_bytes: u64,
    processes: u64,
}

impl SessionCgroup {
    /// Makes the cgroup `name` with these limits; `None` without cgroup support.
    pub fn create(
        support: &CgroupSupport,
        name: &str,
        memory_bytes: u64,
        processes: u64,
    ) -> io::Result<Option<Self>> {
        let (dirs, v2) = match support {
            CgroupSupport::V2 { parent } => (vec![parent.join(name)], true),
            CgroupSupport::V1 { memory, pids } => (vec![memory.join(name), pids.join(name)], false),
            CgroupSupport::Unavailable { .. } => return Ok(None),
        };
        let made = Self {
            dirs,
            v2,
            memory_bytes,
            processes,
        };
        for dir in &made.dirs {
            fs::create_dir(dir)?;
        }
        let (Some(memory), Some(pids)) = (made.dirs.first(), made.dirs.last()) else {
            return Ok(None);
        };
        if v2 {
            fs::write(memory.join("memory.max"), memory_bytes.to_string())?;
            // Best effort: without swap accounting the file is absent.
            let _ = fs::write(memory.join("memory.swap.max"), "0");
            // Over its memory the whole session stops (and says why), not just one process.
            let _ = fs::write(memory.join("memory.oom.group"), "1");
        } else {
            fs::write(
                memory.join("memory.limit_in_bytes"),
                memory_bytes.to_string(),
            )?;
            let _ = fs::write(
                memory.join("memory.memsw.limit_in_bytes"),
                memory_bytes.to_string(),
            );
        }
        fs::write(pids.join("pids.max"), processes.to_string())?;
        Ok(Some(made))
    }

    /// The `cgroup.procs` files the CLI's process writes itself into.
    pub fn procs_files(&self) -> Vec<PathBuf> {
        self.dirs
            .iter()
            .map(|dir| dir.join("cgroup.procs"))
            .collect()
    }

    /// What one of its limits did, if it stopped something: the kernel killed a process for
    /// memory, or refused one a new process.
    pub fn stopped_by(&self) -> Option<String> {
        let (memory, pids) = (self.dirs.first()?, self.dirs.last()?);
        let events = if self.v2 {
            "memory.events"
        } else {
            "memory.oom_control"
        };
        let mib = self.memory_bytes / (1024 * 1024);
        if counter(&memory.join(events), "oom_kill") > 0 {
            return Some(format!(
                "the session went over its memory limit ({mib} MiB, OLLIM_SESSION_MEMORY_MB) and \
                 the kernel stopped it"
            ));
        }
        if counter(&pids.join("pids.events"), "max") > 0 {
            return Some(format!(
                "the session reached its limit of {} processes (OLLIM_SESSION_PROCESSES) and was \
                 refused more",
                self.processes
            ));
        }
        None
    }
}

impl Drop for SessionCgroup {
    /// Ends whatever is left in it (the CLI is killed when dropped, not yet reaped) and removes
    /// it, retrying for a moment on a thread of its own while the last processes exit.
    fn drop(&mut self) {
        let dirs = std::mem::take(&mut self.dirs);
        for dir in &dirs {
            end_processes(dir);
        }
        if remove_all(&dirs) {
            return;
        }
        let spawned = std::thread::Builder::new()
            .name("cgroup-removal".to_owned())
            .spawn(move || {
                for _ in 0..50 {
                    std::thread::sleep(std::time::Duration::from_millis(100));
                    if remove_all(&dirs) {
                        return;
                    }
                }
                tracing::warn!(?dirs, "a session's cgroup could not be removed");
            });
        if let Err(error) = spawned {
            tracing::debug!(%error, "could not start removing a session's cgroup");
        }
    }
}

/// Kills every process still in the cgroup `dir` (`cgroup.kill` on v2, each listed process
/// on v1).
fn end_processes(dir: &Path) {
    if fs::write(dir.join("cgroup.kill"), "1").is_ok() {
        return;
    }
    let listed = fs::read_to_string(dir.join("cgroup.procs")).unwrap_or_default();
    for pid in listed
        .lines()
        .filter_map(|line| line.trim().parse::<i32>().ok())
    {
        if let Some(pid) = rustix::process::Pid::from_raw(pid) {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
        }
    }
}

/// Removes the cgroups `dirs` that still exist; whether none is left.
fn remove_all(dirs: &[PathBuf]) -> bool {
    dirs.iter()
        .filter(|dir| dir.exists())
        .all(|dir| fs::remove_dir(dir).is_ok())
}

/// The value of `key` in a flat-keyed cgroup file (`key value` lines); 0 when absent.
fn counter(file: &Path, key: &str) -> u64 {
    fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(' ')?;
            (name == key).then(|| value.trim().parse().ok())?
        })
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bots_cgroup_is_read_per_controller_and_counters_by_key() {
        let own = "12:pids:/user.slice\n4:memory:/process_api/abc\n1:name=systemd:/\n0::/svc\n";
        assert_eq!(own_path(own, "memory"), Some("/process_api/abc"));
        assert_eq!(own_path(own, "pids"), Some("/user.slice"));
        assert_eq!(own_path(own, ""), Some("/svc"));
        assert_eq!(own_path("0::/x\n", "memory"), None);
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("memory.events");
        fs::write(&file, "low 0\nhigh 0\nmax 7\noom 2\noom_kill 1\n").unwrap();
        assert_eq!(counter(&file, "oom_kill"), 1);
        assert_eq!(counter(&file, "max"), 7);
        assert_eq!(counter(&file, "absent"), 0);
        assert_eq!(counter(&dir.path().join("none"), "max"), 0);
    }

    #[test]
    fn a_session_cgroup_gets_its_limits_and_names_the_one_that_stopped_it() {
        let parent = tempfile::tempdir().unwrap();
        let support = CgroupSupport::V2 {
            parent: parent.path().to_path_buf(),
        };
        let cgroup = SessionCgroup::create(&support, "ollim-owner-x", 512 << 20, 300)
            .unwrap()
            .unwrap();
        let dir = parent.path().join("ollim-owner-x");
        assert_eq!(
            fs::read_to_string(dir.join("memory.max")).unwrap(),
            "536870912"
        );
        assert_eq!(fs::read_to_string(dir.join("pids.max")).unwrap(), "300");
        assert_eq!(cgroup.procs_files(), [dir.join("cgroup.procs")]);
        assert_eq!(cgroup.stopped_by(), None);
        fs::write(dir.join("pids.events"), "max 3\n").unwrap();
        assert!(
            cgroup
                .stopped_by()
                .unwrap()
                .contains("limit of 300 processes")
        );
        fs::write(dir.join("memory.events"), "oom 1\noom_kill 1\n").unwrap();
        assert!(
            cgroup
                .stopped_by()
                .unwrap()
                .contains("memory limit (512 MiB")
        );
        let unavailable = CgroupSupport::Unavailable {
            reason: String::new(),
        };
        assert!(
            SessionCgroup::create(&unavailable, "x", 1, 1)
                .unwrap()
                .is_none()
        );
    }
}
