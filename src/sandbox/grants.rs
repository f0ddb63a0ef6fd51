//! What a CLI's Landlock domain grants, as a list of paths and rights (BOX-1).

use std::path::{Path, PathBuf};

use super::workspace::{ChildKind, Confinement, classify_child, is_job_folder};

/// The rights one [`Grant`] gives beneath its path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Access {
    /// List directories only (the data dir itself).
    List,
    /// Read files and list directories.
    Read,
    /// Read and execute (system dirs, the CLI's install, `PATH`).
    ReadExec,
    /// Read and write existing files, create and remove files, but no new directories, links
    /// or special files (the agent's folders in the data dir).
    ReadWriteFlat,
    /// [`Access::ReadWriteFlat`] plus making and removing directories, still no links or
    /// special files (the agent's drafts of skills).
    ReadWriteTree,
    /// Read and write one existing file in place (an agent file at the data dir's top).
    ReadWriteFile,
    /// Everything (the CLI's config dir, the private temp dir).
    Full,
    /// Read and write a device file (`/dev/null`, …).
    Device,
}

/// One rule: `access` beneath `path`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Grant {
    /// The file or directory.
    pub path: PathBuf,
    /// What is allowed beneath it.
    pub access: Access,
}

/// Where everything is, decided once at start-up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// The data dir: the CLI's working directory.
    pub workspace: PathBuf,
    /// The CLI config dir the login comes from (the bot's own, or `CLAUDE_CONFIG_DIR`);
    /// never granted: each CLI gets a home of its own under [`Layout::homes_dir`] (issue 39).
    pub cli_config_dir: PathBuf,
    /// Where the CLI homes are (`state/cli_homes/`); each container sees only its own.
    pub homes_dir: PathBuf,
    /// The bot's own executable, which enters the Landlock domain inside the container and
    /// then becomes the CLI (`ollim-bot __sandbox-exec`).
    pub launcher: PathBuf,
    /// Files and folders to read and execute beyond the system: the CLI's install, the bot's
    /// own binary, `PATH`, the owner's `OLLIM_SANDBOX_READ`.
    pub read_exec: Vec<PathBuf>,
    /// The content the owner approved, as the CLI loads it (inside the private `state/`):
    /// readable, never writable (issue 23 §2).
    pub approved_dir: Option<PathBuf>,
    /// The owner's home, never granted as a whole.
    pub home: Option<PathBuf>,
    /// Files that hold the bot's secrets wherever they are (the env file it loaded). One
    /// inside the data dir makes the top-level entry that holds it private.
    pub secrets: Vec<PathBuf>,
}

/// System directories read (and, where programs live, executed) by the CLI and its shells.
const SYSTEM_READ_EXEC: [&str; 10] = [
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt", "/nix", "/snap",
];
/// System directories only read: configuration, process and device information.
const SYSTEM_READ: [&str; 4] = ["/etc", "/proc", "/sys", "/dev"];
/// Device files the CLI's shells write.
const DEVICES: [&str; 8] = [
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
    "/dev/tty",
    "/dev/ptmx",
    "/dev/pts",
];

/// The grants of one CLI's domain, whose own config dir is `home` (the CLI's sessions, shell
/// state and its private temp dir `home/tmp`). The data dir is granted listing only; each of
/// its top-level entries gets its own grant by [`classify_child`], read now (so the caller
/// computes grants at each start). Broad paths that would cover the data dir or the owner's
/// home (`/`, `$HOME`, an ancestor of the data dir) are never granted, whatever `PATH` says.
pub fn grants(layout: &Layout, confinement: Confinement, home: &Path) -> Vec<Grant> {
    let mut out = Vec::new();
    let mut push = |path: PathBuf, access| out.push(Grant { path, access });
    for dir in SYSTEM_READ_EXEC {
        push(PathBuf::from(dir), Access::ReadExec);
    }
    for dir in SYSTEM_READ {
        push(PathBuf::from(dir), Access::Read);
    }
    for device in DEVICES {
        push(PathBuf::from(device), Access::Device);
    }
    // Name resolution: /etc/resolv.conf is often a link into /run.
    if let Ok(real) = std::fs::canonicalize("/etc/resolv.conf")
        && let Some(parent) = real.parent()
        && !parent.starts_with("/etc")
    {
        push(parent.to_path_buf(), Access::Read);
    }
    for path in &layout.read_exec {
        let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.clone());
        if is_safe_broad_grant(layout, path) && is_safe_broad_grant(layout, &real) {
            push(path.clone(), Access::ReadExec);
        }
    }
    push(home.to_path_buf(), Access::Full);
    push(layout.workspace.clone(), Access::List);
    if let Some(approved) = &layout.approved_dir {
        push(approved.clone(), Access::Read);
    }
    out.extend(workspace_grants(layout, confinement));
    out
}

/// The top-level entries of the data dir that hold one of the layout's secret files.
fn entries_holding_secrets(layout: &Layout) -> Vec<std::ffi::OsString> {
    let workspace = crate::state::paths::absolute_normalized(&layout.workspace);
    layout
        .secrets
        .iter()
        .filter_map(|secret| {
            let secret = crate::state::paths::absolute_normalized(secret);
            let rest = secret.strip_prefix(&workspace).ok()?;
            rest.components()
                .next()
                .map(|first| first.as_os_str().to_os_string())
        })
        .collect()
}

/// One grant per top-level entry of the data dir, by its kind and the session's.
fn workspace_grants(layout: &Layout, confinement: Confinement) -> Vec<Grant> {
    let workspace = &layout.workspace;
    let holding_secrets = entries_holding_secrets(layout);
    let Ok(entries) = std::fs::read_dir(workspace) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Ok(file_type) = entry.file_type() else {
            continue;
        };
        let path = workspace.join(&name);
        let is_dir = if file_type.is_symlink() {
            path.is_dir()
        } else {
            file_type.is_dir()
        };
        if holding_secrets.contains(&name) {
            continue;
        }
        let access = match classify_child(&name) {
            ChildKind::Private => continue,
            // Job folders, and the top-level files that go into the main session's prompt
            // (`USER.md`, `IDENTITY.md`, …): read-only to runs that may carry untrusted text.
            ChildKind::Writable
                if confinement == Confinement::Background && (is_job_folder(&name) || !is_dir) =>
            {
                Access::Read
            }
            ChildKind::Drafts if is_dir => Access::ReadWriteTree,
            ChildKind::Writable if is_dir => Access::ReadWriteFlat,
            ChildKind::Writable if file_type.is_file() => Access::ReadWriteFile,
            // The trust roots, and links to files (the agent's reference docs): read only.
            ChildKind::ReadOnly | ChildKind::Drafts | ChildKind::Writable => Access::Read,
        };
        out.push(Grant { path, access });
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// Whether `path` may be granted as a whole: it must not be the root, the owner's home, the
/// data dir, an ancestor of either, or inside the data dir (its entries have their own
/// grants).
fn is_safe_broad_grant(layout: &Layout, path: &Path) -> bool {
    let path = crate::state::paths::absolute_normalized(path);
    if path.parent().is_none() {
        return false;
    }
    let workspace = crate::state::paths::absolute_normalized(&layout.workspace);
    let covers = |protected: &Path| protected.starts_with(&path) || path.starts_with(protected);
    if covers(&workspace) {
        return false;
    }
    match &layout.home {
        Some(home) => !crate::state::paths::absolute_normalized(home).starts_with(&path),
        None => true,
    }
}

/// The layout's secret files that a grant's tree would show (Landlock can't take one file out
/// of a granted tree; a container covers them, issue 39 §2), each with the granted path.
pub fn exposed_secrets(layout: &Layout) -> Vec<(PathBuf, PathBuf)> {
    let granted = grants(layout, Confinement::Owner, &layout.homes_dir);
    let mut out = Vec::new();
    for secret in &layout.secrets {
        let secret = std::fs::canonicalize(secret)
            .unwrap_or_else(|_| crate::state::paths::absolute_normalized(secret));
        if !secret.exists() {
            continue;
        }
        let holder = granted.iter().find(|grant| {
            grant.access != Access::List
                && (secret.starts_with(&grant.path)
                    || std::fs::canonicalize(&grant.path)
                        .is_ok_and(|real| secret.starts_with(real)))
        });
        if let Some(grant) = holder {
            out.push((secret, grant.path.clone()));
        }
    }
    out
}
