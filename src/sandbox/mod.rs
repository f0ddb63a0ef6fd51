//! The kernel boundary around the agent (issue 23 §1, BOX-1): every Claude CLI process tree
//! the bot starts (main, forks, background runs, screening, and so every tool, shell, hook and
//! subagent inside it) runs in a Linux Landlock domain set up between fork and exec.
//!
//! Inside it the agent reads the system, the CLI's install and the workspace (the data dir),
//! and writes only its own files there, the CLI's config dir and a private temp dir. The
//! bot's secrets (`state/`, every `.env*` in the data dir, the env file it loaded wherever it
//! is) and the trust roots (`.git/`, `.claude/`, `skills/`, `webhooks/`, `tool-policy.yaml`,
//! `CLAUDE.md`) are outside every tree it may read or write. Nothing here parses a file
//! format of the CLI: the kernel enforces the grants whatever the agent runs.
//!
//! - [`Layout`] and [`grants`]: what the domain grants, computed from paths (pure apart from
//!   listing the data dir's top level, which the caller does at each start).
//! - [`support`]: whether this kernel can enforce a domain, and why not.
//! - [`Sandbox`]: the layout plus the kernel's answer; [`Sandbox::confine`] prepares one
//!   child's domain.

mod grants;
mod install;
#[allow(unsafe_code)]
mod kernel;
mod workspace;

#[cfg(test)]
mod tests;

pub use grants::{Access, Grant, Layout, grants};
pub use install::{cli_install_dirs, locate_executable, path_dirs};
pub use kernel::{Support, support};
pub use workspace::{ChildKind, Confinement, classify_child, is_job_folder};

use std::{path::Path, sync::Arc};

/// Why a child's domain could not be prepared. The child is then not started: the bot never
/// runs the agent outside the box on a kernel that has one.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// The kernel refused to create the ruleset or a rule.
    #[error("could not prepare the sandbox: {0}")]
    Ruleset(#[from] landlock::RulesetError),
    /// A directory the layout needs could not be created.
    #[error("could not create {path}: {source}")]
    Dir {
        /// The directory.
        path: std::path::PathBuf,
        /// The error.
        source: std::io::Error,
    },
}

/// The layout and what the kernel supports, built once at start-up and shared by every
/// session.
#[derive(Debug, Clone)]
pub struct Sandbox {
    layout: Arc<Layout>,
    support: Support,
}

impl Sandbox {
    /// A sandbox over `layout` on this kernel. Touches nothing on disk.
    pub fn new(layout: Layout) -> Self {
        Self {
            support: support(),
            layout: Arc::new(layout),
        }
    }

    /// Creates the CLI's config dir and the private temp dir (owner-only) when missing.
    pub fn create_dirs(&self) -> Result<(), SandboxError> {
        for dir in [&self.layout.cli_config_dir, &self.layout.temp_dir] {
            create_private_dir(dir)?;
        }
        Ok(())
    }

    /// What the kernel supports.
    pub fn support(&self) -> &Support {
        &self.support
    }

    /// The layout.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// Confines the process `command` will start, for a session of kind `confinement`: sets
    /// its private `TMPDIR` and, where the kernel supports Landlock, restricts it between
    /// fork and exec. The grants are computed now, so files added to the data dir's top level
    /// since the last start are seen.
    pub fn confine(
        &self,
        command: &mut tokio::process::Command,
        confinement: Confinement,
    ) -> Result<(), SandboxError> {
        command.env("TMPDIR", &self.layout.temp_dir);
        if let Support::Enforced { .. } = self.support {
            let ruleset = kernel::ruleset(&grants(&self.layout, confinement))?;
            kernel::restrict_on_exec(command, ruleset);
        }
        Ok(())
    }
}

/// Creates `dir` (and its parents) with mode 0700 when missing.
fn create_private_dir(dir: &Path) -> Result<(), SandboxError> {
    use std::os::unix::fs::DirBuilderExt;
    if dir.is_dir() {
        return Ok(());
    }
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|source| SandboxError::Dir {
            path: dir.to_path_buf(),
            source,
        })
}
