//! The agent's box (issue 23 §1, BOX-1; issue 39 §1): every Claude CLI process tree the bot
//! starts (main, forks, background runs, screening, and so every tool, shell, hook and
//! subagent inside it) runs in a container of its own — new user, mount, PID, IPC namespaces,
//! no terminal, no capabilities, only the session's grants mounted, its own CLI config dir —
//! and, inside it, in a Linux Landlock domain of the same grants.
//!
//! Inside it the agent reads the system, the CLI's install and the workspace (the data dir),
//! and writes only its own files there and its session's own CLI home. The bot's secrets
//! (`state/`, every `.env*` in the data dir, the env file it loaded wherever it is) and the
//! trust roots (`.git/`, `.claude/`, `skills/`, `webhooks/`, `tool-policy.yaml`,
//! `CLAUDE.md`) are outside every tree it may read or write. Nothing here parses a file
//! format of the CLI: the kernel enforces the grants whatever the agent runs.
//!
//! - [`Layout`] and [`grants`]: what a session is granted, computed from paths (pure apart
//!   from listing the data dir's top level, which the caller does at each start).
//! - [`support`] and [`container::probe`]: whether this machine can enforce each wall.
//! - [`CliHomes`]: one CLI config dir per container, and which one holds each session.
//! - [`Sandbox::confine`] rewrites one CLI start into `bwrap … ollim-bot __sandbox-exec …`.

mod container;
pub mod egress;
mod error;
mod grants;
mod homes;
mod install;
#[allow(unsafe_code)]
mod kernel;
pub mod launcher;
pub mod limits;
mod workspace;

#[cfg(test)]
mod tests;

pub use container::{ContainerSupport, container_args};
pub use egress::{Gate, HostRule, Proxy};
pub use error::SandboxError;
pub use grants::{Access, Grant, Layout, exposed_secrets, grants};
pub use homes::{CliHomes, SCRATCH_PREFIX, ScratchHome};
pub use install::{cli_install_dirs, locate_executable, path_dirs};
pub use kernel::{Support, support};
pub use limits::{CgroupSupport, LiveSession, LiveSessions, SessionCgroup};
pub use workspace::{ChildKind, Confinement, classify_child, is_job_folder, is_private_name};

use std::{path::Path, sync::Arc};

use crate::{
    claude::Invocation,
    config::{SessionLimits, UpstreamProxy},
    state::cli_homes::CliHomeBook,
};

/// The layout, what the machine supports and the CLI homes, built once at start-up and
/// shared by every session.
#[derive(Debug, Clone)]
pub struct Sandbox {
    layout: Arc<Layout>,
    support: Support,
    containers: ContainerSupport,
    homes: CliHomes,
    /// Hosts every container reaches besides the model API (`OLLIM_NETWORK_ALLOW`, the docs
    /// MCP server).
    allowed_hosts: Vec<HostRule>,
    /// What each container may use, and whether it gets a cgroup (issue 39 §1).
    limits: SessionLimits,
    cgroups: CgroupSupport,
    /// The owner's own proxy, which the containers' proxies chain to.
    upstream: Option<Arc<UpstreamProxy>>,
    /// The containers running now, and the guard that stops them when the disk runs out of
    /// room (started with the first container).
    live: Arc<LiveSessions>,
    disk_guard: Arc<std::sync::OnceLock<tokio_util::sync::DropGuard>>,
}

/// What a confined CLI keeps while it runs: its container's proxy and cgroup.
#[derive(Debug, Default)]
pub struct Confined {
    /// The proxy of its network.
    pub proxy: Option<Proxy>,
    /// Its cgroup.
    pub cgroup: Option<SessionCgroup>,
    /// Its entry among the running containers.
    pub live: Option<Arc<LiveSession>>,
}

impl crate::claude::ProcessAttachment for Confined {
    fn started(&self, pid: u32) {
        if let Some(live) = &self.live {
            live.started(pid);
        }
    }

    fn exit_note(&self) -> Option<String> {
        let stopped = self.live.as_ref().and_then(|live| live.stopped_by());
        stopped.or_else(|| self.cgroup.as_ref().and_then(SessionCgroup::stopped_by))
    }
}

impl Sandbox {
    /// A sandbox over `layout` on this machine, keeping which home holds each session in
    /// `book`. Probes the kernel and starts one empty container; touches nothing on disk.
    pub fn new(layout: Layout, book: CliHomeBook, path_var: Option<&std::ffi::OsStr>) -> Self {
        let homes = CliHomes::new(
            layout.homes_dir.clone(),
            layout.cli_config_dir.clone(),
            layout.workspace.clone(),
            book,
        );
        Self {
            support: support(),
            containers: container::probe(path_var),
            layout: Arc::new(layout),
            homes,
            allowed_hosts: Vec::new(),
            limits: SessionLimits::default(),
            cgroups: CgroupSupport::Unavailable {
                reason: "not prepared".to_owned(),
            },
            upstream: None,
            live: Arc::default(),
            disk_guard: Arc::default(),
        }
    }

    /// Makes the containers' proxies go through `upstream` (the owner's `HTTPS_PROXY`).
    #[must_use]
    pub fn with_upstream_proxy(mut self, upstream: Option<UpstreamProxy>) -> Self {
        self.upstream = upstream.map(Arc::new);
        self
    }

    /// Gives every container `limits`, in a cgroup of its own where `cgroups` allows.
    #[must_use]
    pub fn with_limits(mut self, limits: SessionLimits, cgroups: CgroupSupport) -> Self {
        self.limits = limits;
        self.cgroups = cgroups;
        self
    }

    /// Whether containers get a cgroup of their own.
    pub fn cgroups(&self) -> &CgroupSupport {
        &self.cgroups
    }

    /// Lets every container reach `hosts` too (the owner's allow-list).
    #[must_use]
    pub fn with_allowed_hosts(mut self, hosts: Vec<HostRule>) -> Self {
        self.allowed_hosts = hosts;
        self
    }

    /// The hosts every container reaches besides the model API.
    pub fn allowed_hosts(&self) -> &[HostRule] {
        &self.allowed_hosts
    }

    /// Creates the folder of the CLI homes (owner-only) when missing.
    pub fn create_dirs(&self) -> Result<(), SandboxError> {
        create_private_dir(&self.layout.homes_dir)
    }

    /// Refuses a layout whose secrets a CLI could read: one inside a granted tree is covered
    /// by a container, and without containers nothing can hide it (issue 39 §2, BOX-6).
    pub fn check_secrets(&self) -> Result<(), SandboxError> {
        if let ContainerSupport::Available { .. } = self.containers {
            return Ok(());
        }
        match exposed_secrets(&self.layout).into_iter().next() {
            Some((secret, tree)) => Err(SandboxError::SecretExposed { secret, tree }),
            None => Ok(()),
        }
    }

    /// What the kernel supports of Landlock.
    pub fn support(&self) -> &Support {
        &self.support
    }

    /// Whether sessions get containers.
    pub fn containers(&self) -> &ContainerSupport {
        &self.containers
    }

    /// The layout.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The CLI homes.
    pub fn homes(&self) -> &CliHomes {
        &self.homes
    }

    /// This sandbox with every CLI started in `home` (a scratch home, CMD-10).
    #[must_use]
    pub fn pinned_to(&self, home: std::path::PathBuf) -> Self {
        Self {
            homes: self.homes.pinned_to(home),
            ..self.clone()
        }
    }

    /// Confines the CLI start `invocation`, a session of kind `confinement`: gives it a CLI
    /// home of its own (`CLAUDE_CONFIG_DIR`, `TMPDIR` inside it), and makes it run as
    /// `bwrap <container> -- ollim-bot __sandbox-exec <grants> -- <the CLI>` (without
    /// containers, the launcher alone; without either wall, as is). The grants are computed
    /// now, so files added to the data dir's top level since the last start are seen.
    ///
    /// With a `gate`, the container has no network but a proxy of its own that lets through
    /// what the gate allows, plus the model API and the owner's allow-list (issue 39 §3); the
    /// proxy is returned, with the container's cgroup, to be kept while the CLI runs.
    pub fn confine(
        &self,
        invocation: &mut Invocation,
        confinement: Confinement,
        gate: Option<Arc<Gate>>,
    ) -> Result<Confined, SandboxError> {
        let home = self.homes.prepare(
            confinement,
            invocation.resume.as_deref(),
            invocation.fork_session,
        )?;
        invocation
            .env
            .insert("CLAUDE_CONFIG_DIR".to_owned(), home.display().to_string());
        invocation
            .env
            .insert("TMPDIR".to_owned(), home.join("tmp").display().to_string());
        invocation.config_dir = Some(home.clone());
        let landlock = matches!(self.support, Support::Enforced { .. });
        let container = match &self.containers {
            ContainerSupport::Available { bwrap } => Some(bwrap.clone()),
            ContainerSupport::Unavailable { .. } => None,
        };
        if container.is_some() {
            // True, and what lets the CLI take `bypassPermissions` when the bot runs as root:
            // root in the container is a user namespace's, with no capabilities (PRM-12).
            invocation
                .env
                .insert("CLAUDE_CODE_BUBBLEWRAP".to_owned(), "1".to_owned());
        }
        if !landlock && container.is_none() {
            return Ok(Confined::default());
        }
        let grants = grants(&self.layout, confinement, &home);
        let proxy = match (&container, gate) {
            (Some(_), Some(gate)) => {
                let base_url = invocation.env.get("ANTHROPIC_BASE_URL").map(String::as_str);
                gate.add_always(egress::model_api(base_url));
                gate.add_always(self.allowed_hosts.iter().cloned());
                Some(Proxy::start(gate, self.upstream.clone())?)
            }
            _ => None,
        };
        let cgroup = match &container {
            Some(_) => self.session_cgroup(&home)?,
            None => None,
        };
        self.start_disk_guard();
        let free = limits::free_bytes(&self.layout.homes_dir);
        let live = Some(self.live.register(home.join("tmp"), free));
        if let Some(cgroup) = &cgroup {
            invocation.cgroups = cgroup.procs_files();
        }
        let spec = launcher::LaunchSpec {
            grants: landlock.then(|| grants.clone()),
            proxy: proxy
                .as_ref()
                .map(|_| std::path::PathBuf::from(egress::PROXY_SOCKET)),
            // The process count only in a container: outside one the kernel counts every
            // process of the bot's user.
            limits: Some(limits::ProcessLimits {
                processes: if container.is_some() {
                    self.limits.processes
                } else {
                    u64::MAX
                },
                file_bytes: self.limits.file_bytes,
            }),
        };
        let program = std::mem::take(&mut invocation.program).into_os_string();
        let args = std::mem::take(&mut invocation.args);
        let launched = launcher::launcher_args(&spec, program, args);
        let Some(bwrap) = container else {
            invocation.program.clone_from(&self.layout.launcher);
            invocation.args = launched;
            return Ok(Confined {
                proxy,
                cgroup,
                live,
            });
        };
        let secrets: Vec<std::path::PathBuf> = self
            .layout
            .secrets
            .iter()
            .flat_map(|secret| {
                [
                    crate::state::paths::absolute_normalized(secret),
                    std::fs::canonicalize(secret).unwrap_or_default(),
                ]
            })
            .filter(|path| path.is_absolute())
            .collect();
        let socket = proxy.as_ref().map(Proxy::socket);
        let mut args = container_args(&grants, &secrets, &invocation.cwd, socket.as_deref());
        args.push("--".into());
        args.push(self.layout.launcher.clone().into_os_string());
        args.extend(launched);
        invocation.program = bwrap;
        invocation.args = args;
        Ok(Confined {
            proxy,
            cgroup,
            live,
        })
    }

    /// Starts the disk guard over the filesystem of the CLI homes (under `state/`), once, in
    /// the bot's runtime; it ends when the last clone of this sandbox is gone.
    fn start_disk_guard(&self) {
        if self.disk_guard.get().is_some() {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let stop = tokio_util::sync::CancellationToken::new();
        let watched = (self.layout.homes_dir.clone(), self.limits.disk_floor_bytes);
        runtime.spawn(limits::guard_disk(
            Arc::clone(&self.live),
            watched,
            std::time::Duration::from_secs(1),
            stop.clone(),
        ));
        if self.disk_guard.set(stop.drop_guard()).is_err() {
            tracing::debug!("another start began the disk guard first");
        }
    }

    /// A cgroup for the container of the CLI whose home is `home`, where the bot makes them.
    fn session_cgroup(&self, home: &Path) -> Result<Option<SessionCgroup>, SandboxError> {
        // The bot's pid first: a sweep at start leaves this process's cgroups alone.
        let name = format!(
            "ollim-{}-{}-{}",
            std::process::id(),
            home.file_name()
                .map(|n| n.to_string_lossy())
                .unwrap_or_default(),
            &uuid::Uuid::new_v4().simple().to_string()[..8]
        );
        SessionCgroup::create(
            &self.cgroups,
            &name,
            self.limits.memory_bytes,
            self.limits.processes,
        )
        .map_err(|source| SandboxError::Dir {
            path: name.into(),
            source,
        })
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
