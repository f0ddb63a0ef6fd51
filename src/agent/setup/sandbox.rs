//! The agent's sandbox as this installation lays it out (issue 23, BOX-1): the data dir as the
//! workspace, the CLI's config dir, a private temp dir, and the programs the agent may run;
//! and the one-time move of the CLI's login and this data dir's sessions into the bot's own
//! CLI config dir.

use crate::config::environment;
use std::path::{Path, PathBuf};

use crate::{
    config::{Config, bot_cli_config_dir},
    sandbox::{
        CgroupSupport, ContainerSupport, HostRule, Layout, Sandbox, SandboxError, Support,
        cli_install_dirs, path_dirs,
    },
    state::{cli_homes::CliHomeBook, paths::DataDir},
};

/// What start-up did to bring an existing installation into the box's layout.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CliHomeMigration {
    /// The owner's CLI config dir the login and sessions were copied from, when they were.
    pub copied_from: Option<PathBuf>,
}

/// Builds the sandbox for `config`, after moving an existing installation's CLI login and
/// sessions into the bot's own CLI config dir when that is new.
pub fn open_sandbox(
    config: &Config,
    data_dir: &DataDir,
    clock: &crate::clock::Clock,
) -> Result<(Sandbox, CliHomeMigration), SandboxError> {
    let layout = layout(config, data_dir);
    let path_var = cli_path_var(config);
    let migration = if layout.cli_config_dir == bot_cli_config_dir(data_dir.root()) {
        migrate_cli_home(
            layout.home.as_deref(),
            &layout.cli_config_dir,
            data_dir.root(),
        )
    } else {
        CliHomeMigration::default()
    };
    let sandbox = Sandbox::new(
        layout,
        CliHomeBook::new(data_dir.cli_homes_file()).with_clock(clock.clone()),
        path_var.as_deref(),
    )
    .with_allowed_hosts(allowed_hosts(config))
    .with_limits(config.session_limits, CgroupSupport::prepare())
    .with_upstream_proxy(config.upstream_proxy.clone());
    sandbox.create_dirs()?;
    sandbox.check_secrets()?;
    match sandbox.containers() {
        ContainerSupport::Available { bwrap } => {
            tracing::info!(bwrap = %bwrap.display(), "each CLI runs in a container of its own");
        }
        ContainerSupport::Unavailable { reason } => tracing::warn!(
            "NO CONTAINERS: {reason}; every CLI shares the bot's view of processes, sockets \
             and the terminal, with the Landlock wall only"
        ),
    }
    match sandbox.support() {
        Support::Enforced { abi } => {
            tracing::info!(abi, "the agent runs in a Landlock sandbox");
        }
        Support::Unavailable { reason } => tracing::warn!(
            "NO SANDBOX: {reason}; the agent runs with the bot's guards only. \
             Use a kernel with Landlock (Linux 5.13+, `lsm=landlock` on the boot command line)"
        ),
    }
    Ok((sandbox, migration))
}

/// The hosts every container reaches besides the model API: the owner's
/// `OLLIM_NETWORK_ALLOW` and the docs MCP server the owner configured (issue 39 §3). An
/// entry that names no host is left out, and the log says so.
pub fn allowed_hosts(config: &Config) -> Vec<HostRule> {
    let mut hosts = Vec::new();
    for entry in &config.network_allow {
        if let Some(rule) = HostRule::parse(entry) {
            hosts.push(rule);
        } else {
            tracing::warn!(
                %entry,
                "OLLIM_NETWORK_ALLOW: not a host (example.com, *.example.com or \
                 example.com:8443); left out"
            );
        }
    }
    hosts.extend(config.docs_mcp_url.as_deref().and_then(HostRule::parse));
    hosts
}

/// The sandbox's layout for `config`, without touching the disk (`doctor` uses it too).
pub fn layout(config: &Config, data_dir: &DataDir) -> Layout {
    let home = environment::home_dir();
    let cli_config_dir = config
        .claude_config_dir()
        .unwrap_or_else(|| bot_cli_config_dir(data_dir.root()));
    let path_var = cli_path_var(config);
    let launcher = config
        .sandbox_launcher
        .clone()
        .or_else(|| std::env::current_exe().ok())
        .unwrap_or_else(|| PathBuf::from("ollim-bot"));
    let mut read_exec = cli_install_dirs(&config.claude_cli, path_var.as_deref());
    if let Some(dir) = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(Path::to_path_buf))
    {
        read_exec.push(dir);
    }
    read_exec.push(launcher.clone());
    read_exec.extend(path_dirs(path_var.as_deref()));
    read_exec.extend(config.sandbox_read.iter().cloned());
    Layout {
        workspace: data_dir.root().to_path_buf(),
        cli_config_dir,
        homes_dir: data_dir.cli_homes_dir(),
        launcher,
        approved_dir: Some(data_dir.approved_dir()),
        read_exec,
        home,
        secrets: vec![config.env_file.clone()],
    }
}

/// The PATH the CLI gets: the bot's extra CLI environment wins over its own.
fn cli_path_var(config: &Config) -> Option<std::ffi::OsString> {
    config
        .cli_env
        .get("PATH")
        .map(std::ffi::OsString::from)
        .or_else(environment::search_path)
}

/// When the bot's CLI config dir is new and the owner's (`~/.claude`) holds a login or this
/// data dir's sessions, copies them over (files owner-only), so the main session resumes and
/// the login carries on. The owner's copy is left as it was.
fn migrate_cli_home(home: Option<&Path>, target: &Path, workspace: &Path) -> CliHomeMigration {
    let Some(source) = home.map(|home| home.join(".claude")) else {
        return CliHomeMigration::default();
    };
    if target.join(".migrated").exists() || !source.is_dir() {
        return CliHomeMigration::default();
    }
    let project = crate::transcripts::project_key(workspace);
    let mut copied = false;
    let credentials = source.join(".credentials.json");
    if credentials.is_file() && !target.join(".credentials.json").exists() {
        copied |= copy_private(&credentials, &target.join(".credentials.json"));
    }
    let sessions = source.join("projects").join(&project);
    if sessions.is_dir() {
        copied |= copy_tree(&sessions, &target.join("projects").join(&project));
    }
    if let Err(error) = std::fs::create_dir_all(target)
        .and_then(|()| std::fs::write(target.join(".migrated"), source.display().to_string()))
    {
        tracing::warn!(%error, "could not mark the CLI's config dir as migrated");
    }
    if copied {
        tracing::info!(
            from = %source.display(),
            to = %target.display(),
            "copied the Claude login and this data dir's sessions into the bot's own CLI config dir"
        );
    }
    CliHomeMigration {
        copied_from: copied.then_some(source),
    }
}

/// Copies one file with mode 0600. Whether it was copied.
fn copy_private(from: &Path, to: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let copied = to
        .parent()
        .is_some_and(|dir| std::fs::create_dir_all(dir).is_ok())
        && std::fs::copy(from, to).is_ok()
        && std::fs::set_permissions(to, std::fs::Permissions::from_mode(0o600)).is_ok();
    if !copied {
        tracing::warn!(from = %from.display(), "could not copy into the bot's CLI config dir");
    }
    copied
}

/// Copies a folder tree (regular files and folders; links are left out). Whether anything
/// was copied.
fn copy_tree(from: &Path, to: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(from) else {
        return false;
    };
    let mut copied = false;
    for entry in entries.flatten() {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let target = to.join(entry.file_name());
        if kind.is_dir() {
            copied |= copy_tree(&entry.path(), &target);
        } else if kind.is_file() && !target.exists() {
            copied |= copy_private(&entry.path(), &target);
        }
    }
    copied
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_existing_login_and_sessions_are_copied_once() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        let workspace = tmp.path().join("home/.ollim-bot");
        let key = crate::transcripts::project_key(&workspace);
        let old = home.join(".claude");
        std::fs::create_dir_all(old.join("projects").join(&key)).unwrap();
        std::fs::write(old.join(".credentials.json"), "{}").unwrap();
        std::fs::write(old.join("projects").join(&key).join("s.jsonl"), "x").unwrap();
        std::fs::create_dir_all(old.join("projects/-other")).unwrap();
        std::fs::write(old.join("projects/-other/o.jsonl"), "x").unwrap();
        let target = bot_cli_config_dir(&workspace);
        let done = migrate_cli_home(Some(&home), &target, &workspace);
        assert_eq!(done.copied_from, Some(old.clone()));
        assert!(target.join(".credentials.json").is_file());
        assert!(target.join("projects").join(&key).join("s.jsonl").is_file());
        assert!(!target.join("projects/-other").exists());
        let again = migrate_cli_home(Some(&home), &target, &workspace);
        assert_eq!(again.copied_from, None);
    }
}
