//! SANDBOX (issue 23, BOX-1): whether this kernel confines the agent, and a confined shell
//! trying to read one of the bot's secrets.

use std::path::{Path, PathBuf};

use super::{Check, Group};
use crate::sandbox::{Confinement, Layout, Sandbox, Support};

/// The SANDBOX group.
pub(super) async fn sandbox_checks(layout: &Layout) -> Vec<Check> {
    let sandbox = Sandbox::new(layout.clone());
    match sandbox.support() {
        Support::Unavailable { reason } => vec![Check::fail(
            Group::Sandbox,
            format!(
                "no sandbox: {reason}, so the agent and every shell it runs can read the bot's \
                 secrets and write its state (only the bot's own guards stand in the way): run \
                 the bot on Linux 5.13 or newer with Landlock enabled (`lsm=landlock,…` on the \
                 kernel command line; most distributions have it on)"
            ),
        )],
        Support::Enforced { abi } => {
            let mut checks = vec![Check::pass(
                Group::Sandbox,
                format!("Landlock ABI {abi}: every Claude CLI runs in the sandbox"),
            )];
            if let Some(secret) = a_secret(layout) {
                checks.push(probe(&sandbox, &secret).await);
            }
            checks
        }
    }
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

/// A confined shell tries to read `secret`.
async fn probe(sandbox: &Sandbox, secret: &Path) -> Check {
    let name = secret.display();
    let mut command = tokio::process::Command::new("/bin/sh");
    command
        .args([
            "-c",
            "cat -- \"$1\" >/dev/null 2>&1 && echo READ || echo DENIED",
            "sh",
        ])
        .arg(secret)
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    if let Err(error) = sandbox.confine(&mut command, Confinement::Background) {
        return Check::fail(
            Group::Sandbox,
            format!("could not prepare the sandbox: {error}"),
        );
    }
    match command.output().await {
        Ok(output) if String::from_utf8_lossy(&output.stdout).trim() == "DENIED" => Check::pass(
            Group::Sandbox,
            format!("a confined shell can't read {name}"),
        ),
        Ok(_) => Check::fail(
            Group::Sandbox,
            format!(
                "a confined shell read {name}: the sandbox doesn't hold on this system; \
                 report it with this line"
            ),
        ),
        Err(error) => Check::warn(
            Group::Sandbox,
            format!("could not run a confined shell to test the sandbox: {error}"),
        ),
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
