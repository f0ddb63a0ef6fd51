//! SANDBOX (issue 23, BOX-1; issue 39): whether each session gets a container and this kernel
//! confines the agent, whether a secret sits where a CLI could read it, and a confined shell
//! trying to read one of the bot's secrets and to see the bot's process.

use std::path::{Path, PathBuf};

use super::{Check, Group};
use crate::{
    claude::Invocation,
    config::SessionLimits,
    sandbox::{
        CgroupSupport, Confinement, ContainerSupport, Layout, Sandbox, Support, exposed_secrets,
    },
    state::{cli_homes::CliHomeBook, paths::DataDir},
};

/// The SANDBOX group.
pub(super) async fn sandbox_checks(layout: &Layout, data_dir: &DataDir) -> Vec<Check> {
    let path_var = crate::config::environment::search_path();
    let sandbox = Sandbox::new(
        layout.clone(),
        CliHomeBook::new(data_dir.cli_homes_file()),
        path_var.as_deref(),
    );
    let mut checks = vec![
        container_check(sandbox.containers()),
        landlock_check(sandbox.support()),
    ];
    checks.extend(secret_checks(&sandbox));
    let boxed = matches!(sandbox.support(), Support::Enforced { .. })
        || matches!(sandbox.containers(), ContainerSupport::Available { .. });
    if boxed && let Some(secret) = a_secret(layout) {
        checks.push(probe(&sandbox, &secret).await);
    }
    checks
}

fn container_check(containers: &ContainerSupport) -> Check {
    match containers {
        ContainerSupport::Available { bwrap } => {
            let root = rustix::process::geteuid().is_root();
            let mut line = format!(
                "containers ({}): each Claude CLI sees only its own processes, files and CLI \
                 state, with no terminal and no capabilities, and reaches the network only \
                 through its own proxy",
                bwrap.display()
            );
            if root {
                line.push_str(
                    "; the bot runs as root: inside a container root has no capabilities and \
                     can't see other processes, but files owned by root stay readable where a \
                     container mounts them, so a user of its own is still the safer choice",
                );
            }
            Check::pass(Group::Sandbox, line)
        }
        ContainerSupport::Unavailable { reason } => Check::fail(
            Group::Sandbox,
            format!(
                "no containers: {reason}. Without them every Claude CLI shares the bot's view of \
                 other processes (`/proc`), Unix sockets, its terminal and the CLI state of \
                 other sessions"
            ),
        ),
    }
}

/// What limits each container gets (issue 39 §1).
pub(super) fn limits_check(limits: &SessionLimits) -> Check {
    let mib = |bytes: u64| bytes / (1024 * 1024);
    match CgroupSupport::probe() {
        CgroupSupport::Unavailable { reason } => Check::warn(
            Group::Sandbox,
            format!(
                "no cgroup per container: {reason}. Each session still gets at most {} \
                 processes (not when the bot runs as root) and files of {} MiB, but its memory is \
                 limited only by the machine's",
                limits.processes,
                mib(limits.file_bytes)
            ),
        ),
        _ => Check::pass(
            Group::Sandbox,
            format!(
                "limits: each session's container gets {} MiB of memory, {} processes and files \
                 of at most {} MiB (OLLIM_SESSION_MEMORY_MB, _PROCESSES, _FILE_MB)",
                mib(limits.memory_bytes),
                limits.processes,
                mib(limits.file_bytes)
            ),
        ),
    }
}

fn landlock_check(support: &Support) -> Check {
    match support {
        Support::Unavailable { reason } => Check::fail(
            Group::Sandbox,
            format!(
                "no Landlock: {reason}, so inside its container the agent is held by the \
                 mounts alone: run the bot on Linux 5.13 or newer with Landlock enabled \
                 (`lsm=landlock,…` on the kernel command line; most distributions have it on)"
            ),
        ),
        Support::Enforced { abi } => Check::pass(
            Group::Sandbox,
            format!("Landlock ABI {abi}: every Claude CLI runs in a Landlock domain too"),
        ),
    }
}

/// Secrets inside a tree a CLI is granted: covered by the container, or a failure without one.
fn secret_checks(sandbox: &Sandbox) -> Vec<Check> {
    let contained = matches!(sandbox.containers(), ContainerSupport::Available { .. });
    exposed_secrets(sandbox.layout())
        .into_iter()
        .map(|(secret, tree)| {
            if contained {
                Check::warn(
                    Group::Sandbox,
                    format!(
                        "{} sits inside {}, which every Claude CLI reads: each container covers \
                         it with an empty file, but moving it out (e.g. to ~/.ollim-bot/.env) \
                         keeps it safe without containers too",
                        secret.display(),
                        tree.display()
                    ),
                )
            } else {
                Check::fail(
                    Group::Sandbox,
                    format!(
                        "{} holds the bot's secrets but sits inside {}, which every Claude CLI \
                         may read here: the bot refuses to start until it is moved (e.g. to \
                         ~/.ollim-bot/.env, with OLLIM_ENV_FILE pointing at it)",
                        secret.display(),
                        tree.display()
                    ),
                )
            }
        })
        .collect()
}

/// A file the sandbox must keep unreadable: the env file, else a file in `state/`.
fn a_secret(layout: &Layout) -> Option<PathBuf> {
    layout
        .secrets
        .iter()
        .find(|path| path.is_file())
        .cloned()
        .or_else(|| {
            std::fs::read_dir(layout.workspace.join("state"))
                .ok()?
                .flatten()
                .map(|entry| entry.path())
                .find(|path| path.is_file())
        })
}

/// A confined shell tries to read `secret`, to see this process and to find a network
/// interface besides its loopback.
async fn probe(sandbox: &Sandbox, secret: &Path) -> Check {
    let name = secret.display();
    let mut invocation = Invocation {
        program: PathBuf::from("/bin/sh"),
        args: vec![
            "-c".into(),
            "cat -- \"$1\" >/dev/null 2>&1 && echo READ || echo DENIED; \
             [ -e \"/proc/$2/environ\" ] && echo SEEN || echo UNSEEN; \
             echo LINKS $(grep -c : /proc/net/dev)"
                .into(),
            "sh".into(),
            secret.into(),
            std::process::id().to_string().into(),
        ],
        cwd: sandbox.layout().workspace.clone(),
        env: std::collections::BTreeMap::from([("PATH".to_owned(), "/usr/bin:/bin".to_owned())]),
        resume: None,
        fork_session: false,
        config_dir: None,
        cgroups: Vec::new(),
    };
    // A background run's container, network and proxy included.
    let gate =
        crate::sandbox::Gate::background(crate::sandbox::egress::ToolReach::Hosts(Vec::new()));
    let _proxy = match sandbox.confine(&mut invocation, Confinement::Background, Some(gate)) {
        Ok(proxy) => proxy,
        Err(error) => {
            return Check::fail(
                Group::Sandbox,
                format!("could not prepare the sandbox: {error}"),
            );
        }
    };
    let output = tokio::process::Command::new(&invocation.program)
        .args(&invocation.args)
        .current_dir(&invocation.cwd)
        .env_clear()
        .envs(&invocation.env)
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .await;
    if let Some(home) = &invocation.config_dir {
        let _ = std::fs::remove_dir_all(home);
    }
    let contained = matches!(sandbox.containers(), ContainerSupport::Available { .. });
    match output {
        Ok(output) => verdict(&String::from_utf8_lossy(&output.stdout), &name, contained),
        Err(error) => Check::warn(
            Group::Sandbox,
            format!("could not run a confined shell to test the sandbox: {error}"),
        ),
    }
}

/// What the probe shell `said` shows, `name` being the secret it tried to read.
fn verdict(said: &str, name: &impl std::fmt::Display, contained: bool) -> Check {
    let read = said.contains("READ");
    let seen = said.contains("SEEN") && !said.contains("UNSEEN");
    // Interfaces it sees: the loopback alone in a network of its own.
    let links: Option<u32> = said
        .lines()
        .find_map(|line| line.strip_prefix("LINKS "))
        .and_then(|n| n.trim().parse().ok());
    if contained && links.is_some_and(|n| n > 1) {
        Check::fail(
            Group::Sandbox,
            "a confined shell sees a network interface besides its loopback: its container's \
             network is not its own; report it with this line",
        )
    } else if read || (contained && seen) {
        Check::fail(
            Group::Sandbox,
            format!(
                "a confined shell {}: the sandbox doesn't hold on this system; report it with \
                 this line",
                if read {
                    format!("read {name}")
                } else {
                    "saw the bot's own process".to_owned()
                }
            ),
        )
    } else if said.contains("DENIED") {
        Check::pass(
            Group::Sandbox,
            format!(
                "a confined shell can't read {name}{}",
                if contained {
                    " nor see the bot's process, and has no network but its proxy"
                } else {
                    ""
                }
            ),
        )
    } else {
        Check::warn(
            Group::Sandbox,
            format!(
                "a confined shell answered nothing readable: {}",
                said.trim()
            ),
        )
    }
}

/// What waits for the owner's approval before the CLI may load it (issue 23 §2).
pub(super) fn approval_check(
    data_dir: &crate::state::paths::DataDir,
    names: &(String, String),
) -> Check {
    use crate::content_approval::{ScanLimits, Trust, loadable, scan};
    let store =
        crate::state::content_approvals::ContentApprovals::new(data_dir.content_approvals_file());
    let decisions = store.decisions();
    let (items, _) = scan(data_dir.root(), ScanLimits::default());
    let waiting: Vec<String> = items
        .iter()
        .filter(|item| loadable(item, &decisions, &names.0, &names.1) == Trust::Pending)
        .map(|item| format!("`{}`", item.path.display()))
        .collect();
    if waiting.is_empty() {
        Check::pass(
            Group::Sandbox,
            "skills, commands, subagents and settings: nothing waits for your approval",
        )
    } else {
        Check::warn(
            Group::Sandbox,
            format!(
                "not loaded until you approve them: {} (`ollim-bot approve` shows what each \
                 can do)",
                waiting.join(", ")
            ),
        )
    }
}
