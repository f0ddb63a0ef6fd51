//! Each CLI in a container of its own (issue 39 §1, BOX-4), made by bubblewrap (`bwrap`, the Debian
//! package Flatpak and Claude Code's own sandbox use): new user, mount, PID, IPC, UTS and
//! cgroup namespaces, a session of its own (no controlling terminal), no capabilities, and a
//! root holding only what the session's grants name. The mounts are derived from the same
//! [`Grant`]s the Landlock domain inside enforces, so the two walls agree by construction:
//! what a grant doesn't name is not there at all, and files that hold the bot's secrets are
//! covered by an empty file wherever a granted tree would show them.

use std::{
    ffi::OsString,
    path::{Path, PathBuf},
};

use super::{
    egress::PROXY_SOCKET,
    grants::{Access, Grant},
};

/// Whether this machine can start containers, and with what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ContainerSupport {
    /// `bwrap` at this path started a probe container.
    Available {
        /// The `bwrap` executable.
        bwrap: PathBuf,
    },
    /// No container: why, in one sentence.
    Unavailable {
        /// Why.
        reason: String,
    },
}

/// Where `bwrap` is looked for, in order, before `PATH`.
const BWRAP_PATHS: [&str; 2] = ["/usr/bin/bwrap", "/bin/bwrap"];

/// Finds `bwrap` and starts one empty container with it, as every session's will be.
pub(super) fn probe(path_var: Option<&std::ffi::OsStr>) -> ContainerSupport {
    let found = BWRAP_PATHS
        .iter()
        .map(PathBuf::from)
        .find(|path| path.is_file())
        .or_else(|| super::locate_executable(Path::new("bwrap"), path_var));
    let Some(bwrap) = found else {
        return ContainerSupport::Unavailable {
            reason: "bubblewrap (`bwrap`) is not installed: `sudo apt install bubblewrap` \
                     (or your system's package of that name)"
                .to_owned(),
        };
    };
    // The same namespaces and the same fresh /proc and /dev as every session's: a host (or a
    // service manager) that forbids a fresh /proc fails here, not at each start.
    let mut args = namespace_args();
    args.extend(["--unshare-net", "--proc", "/proc", "--dev", "/dev"].map(OsString::from));
    for dir in ["/usr", "/bin", "/lib", "/lib64"] {
        args.extend(mount_of(Path::new(dir), Mount::ReadOnly));
    }
    args.extend(["--", "/bin/true"].map(OsString::from));
    match std::process::Command::new(&bwrap)
        .args(&args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .output()
    {
        Ok(output) if output.status.success() => ContainerSupport::Available { bwrap },
        Ok(output) => ContainerSupport::Unavailable {
            reason: refusal_reason(
                String::from_utf8_lossy(&output.stderr).trim(),
                in_container_engine(),
            ),
        },
        Err(error) => ContainerSupport::Unavailable {
            reason: format!("bwrap at {} could not be run: {error}", bwrap.display()),
        },
    }
}

/// Whether the bot itself runs in a Docker or Podman container (the marker file each engine
/// puts at the root).
fn in_container_engine() -> bool {
    Path::new("/.dockerenv").exists() || Path::new("/run/.containerenv").exists()
}

/// Why bwrap refused the probe, from what it said, with the likely cause: a fresh /proc
/// refused is what a container engine's masked /proc paths cause (BOOT-11); anything else in
/// an engine, its seccomp filter (Podman's refuses the hostname, Docker's the namespaces) or
/// `AppArmor` profile; outside one, most often, user namespaces switched off.
fn refusal_reason(stderr: &str, in_engine: bool) -> String {
    if stderr.contains("Can't mount proc") {
        format!(
            "bwrap could not mount a fresh /proc (in a container engine, its masked /proc paths \
             forbid it: `--security-opt systempaths=unconfined`, see docs/container.md): {stderr}"
        )
    } else if in_engine {
        format!(
            "bwrap could not make a container inside this container (the engine's seccomp \
             filter or AppArmor profile refuses it: `--security-opt seccomp=unconfined` and, on \
             AppArmor hosts, `--security-opt apparmor=unconfined`; see docs/container.md): \
             {stderr}"
        )
    } else {
        format!(
            "bwrap could not make a container here (user namespaces may be switched off: \
             `sysctl kernel.unprivileged_userns_clone=1` or \
             `kernel.apparmor_restrict_unprivileged_userns=0`): {stderr}"
        )
    }
}

/// The namespaces and process settings of every container.
fn namespace_args() -> Vec<OsString> {
    [
        "--unshare-user",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        // A session of its own: no controlling terminal to type into (issue 39, class 3).
        "--new-session",
        // Ends with the bot (the process that started it), so no container outlives it.
        "--die-with-parent",
        "--cap-drop",
        "ALL",
        "--hostname",
        "ollim-agent",
    ]
    .map(OsString::from)
    .to_vec()
}

/// How one path is mounted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mount {
    ReadOnly,
    ReadWrite,
}

/// How a grant's path appears in the container; `None`: not mounted on its own (the device
/// files come with `--dev`, the data dir's listing with its entries).
fn mount_for(access: Access) -> Option<Mount> {
    match access {
        Access::List | Access::Device => None,
        Access::Read | Access::ReadExec => Some(Mount::ReadOnly),
        Access::ReadWriteFlat | Access::ReadWriteTree | Access::ReadWriteFile | Access::Full => {
            Some(Mount::ReadWrite)
        }
    }
}

/// The `bwrap` arguments for one path: a link at the root stays a link (`/bin` → `usr/bin`),
/// anything else is bound onto itself, skipped when it has gone.
fn mount_of(path: &Path, mount: Mount) -> Vec<OsString> {
    let at_root = path.parent() == Some(Path::new("/"));
    if at_root
        && std::fs::symlink_metadata(path).is_ok_and(|meta| meta.file_type().is_symlink())
        && let Ok(target) = std::fs::read_link(path)
    {
        return vec!["--symlink".into(), target.into(), path.into()];
    }
    let flag = match mount {
        Mount::ReadOnly => "--ro-bind-try",
        Mount::ReadWrite => "--bind-try",
    };
    vec![flag.into(), path.into(), path.into()]
}

/// The `bwrap` arguments of a session's container: namespaces, `/proc` and `/dev` of its
/// own, one mount per grant (parents first, a path under a mount of the same kind left to
/// it), empty files over `secrets` that a mount would show, the working directory, and the
/// root made read-only. With `proxy` (the host path of its proxy's socket), a network of its
/// own with only a loopback, and that socket at [`PROXY_SOCKET`]. The command follows after
/// `--`.
pub fn container_args(
    grants: &[Grant],
    secrets: &[PathBuf],
    cwd: &Path,
    proxy: Option<&Path>,
) -> Vec<OsString> {
    let mut args = namespace_args();
    if let Some(socket) = proxy {
        args.extend([
            "--unshare-net".into(),
            "--ro-bind".into(),
            socket.into(),
            PROXY_SOCKET.into(),
        ]);
    }
    args.extend(["--proc", "/proc", "--dev", "/dev"].map(OsString::from));
    let mut mounts: Vec<(PathBuf, Mount)> = grants
        .iter()
        .filter(|grant| !matches!(grant.path.to_str(), Some("/proc" | "/dev")))
        .filter_map(|grant| Some((grant.path.clone(), mount_for(grant.access)?)))
        .collect();
    mounts.sort_by_key(|(path, _)| path.components().count());
    let mut mounted: Vec<(PathBuf, Mount)> = Vec::new();
    for (path, mount) in mounts {
        let covered = mounted
            .iter()
            .any(|(done, kind)| *kind == mount && path.starts_with(done));
        if covered {
            continue;
        }
        args.extend(mount_of(&path, mount));
        mounted.push((path, mount));
    }
    for secret in secrets {
        let shown = mounted.iter().any(|(done, _)| secret.starts_with(done));
        if shown && secret.exists() {
            let cover = if secret.is_dir() {
                vec!["--tmpfs".into(), secret.into()]
            } else {
                vec!["--ro-bind".into(), "/dev/null".into(), secret.into()]
            };
            args.extend(cover);
        }
    }
    args.extend([
        "--chdir".into(),
        cwd.into(),
        "--remount-ro".into(),
        "/".into(),
    ]);
    args
}

#[cfg(test)]
#[path = "container_tests.rs"]
mod tests;
