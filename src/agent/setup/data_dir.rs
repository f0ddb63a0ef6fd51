//! Preparing the data dir at start-up and opening the shared [`Services`] (BOOT-6).

use std::sync::Arc;

use crate::agent::prompt::system_prompt::bootstrap_identity;
use crate::{
    config::{Config, runtime::RuntimeSettings},
    google::GoogleClient,
    services::Services,
    state::{
        StateError,
        content_approvals::ContentApprovals,
        fork_messages::ForkMessageStore,
        git::{self, GitRecorder, GitWorker},
        held_webhooks::HeldWebhooks,
        history::SessionHistory,
        inquiries::InquiryStore,
        paths::DataDir,
        pending::PendingUpdates,
        ping_budget::PingBudget,
        sessions::{RoutineSessionStore, SessionStore},
        tool_approvals::ToolApprovals,
        unfinished::UnfinishedWork,
        untrusted_sessions::UntrustedSessions,
    },
    tool_policy::ToolPolicyWatch,
    usage::{UsageLedger, UsageWorker, UsageWriter},
};

/// The result of [`open_services`]: the services and the git worker the caller owns and
/// shuts down last.
pub struct OpenedServices {
    /// The shared services.
    pub services: Arc<Services>,
    /// The git worker; call [`GitWorker::shutdown`] on exit so queued commits land.
    pub git_worker: GitWorker,
    /// The usage writer's task; call [`UsageWorker::shutdown`] on exit so queued records land.
    pub usage_worker: UsageWorker,
    /// Whether the data dir was just made a git repository (GIT-1).
    pub initialised_git: bool,
    /// What start-up moved into the sandbox's layout (issue 23).
    pub cli_home_migration: super::sandbox::CliHomeMigration,
}

/// Prepares the data dir (layout, git repository, `IDENTITY.md`, bundled skills and subagents,
/// the agent's reference) and opens the stores (BOOT-6).
pub fn open_services(config: Config) -> Result<OpenedServices, StateError> {
    let data_dir = DataDir::new(&config.data_dir);
    data_dir.ensure_layout()?;
    remove_stale_temp_files(&data_dir);
    // Damaged state is found now, not when a store first reads it: the owner hears of it
    // with the greeting (issue 24 §9).
    crate::state::inspection::set_aside_damaged(&data_dir, &super::state_files::state_files());
    let initialised_git = git::init_repo(data_dir.root())?;
    if let Err(source) = bootstrap_identity(data_dir.root(), &config.user_name) {
        return Err(StateError::Io {
            path: data_dir.root().join("IDENTITY.md"),
            source,
        });
    }
    disable_auto_memory(data_dir.root())?;
    link_skills(data_dir.root())?;
    crate::skills::install_bundled_skills(&data_dir.skills_dir())?;
    crate::subagents::install_bundled(
        &crate::subagents::agents_dir(data_dir.root()),
        &config.user_name,
        &config.bot_name,
    )?;
    write_agent_spec(data_dir.root())?;
    let clock = crate::clock::Clock::from_test_file(config.test_clock.clone());
    let (sandbox, cli_home_migration) = super::sandbox::open_sandbox(&config, &data_dir, &clock)
        .map_err(|error| StateError::Io {
            path: data_dir.state_dir(),
            source: std::io::Error::other(error),
        })?;
    let (recorder, git_worker) = GitRecorder::spawn(data_dir.root().to_path_buf());
    let (usage, usage_worker) = UsageWriter::spawn(UsageLedger::new(data_dir.usage_dir()));
    let history = SessionHistory::new(&data_dir, config.timezone, Some(recorder.clone()))
        .with_clock(clock.clone());
    let sessions = SessionStore::new(&data_dir, history);
    let pending = PendingUpdates::new(&data_dir, config.timezone).with_clock(clock.clone());
    let content_approvals = ContentApprovals::new(data_dir.content_approvals_file());
    install_approved_content(&data_dir, &content_approvals, &config);
    Ok(OpenedServices {
        services: Arc::new(Services {
            fork_messages: ForkMessageStore::new(&data_dir).with_clock(clock.clone()),
            routine_sessions: RoutineSessionStore::new(&data_dir),
            inquiries: InquiryStore::new(data_dir.inquiries_file()).with_clock(clock.clone()),
            held_webhooks: HeldWebhooks::new(data_dir.held_webhooks_file()),
            quiet: crate::state::quiet::QuietStore::new(data_dir.quiet_file()),
            nags: crate::state::nags::NagStore::new(data_dir.nags_file()),
            ping_budget: PingBudget::new(&data_dir, config.timezone).with_clock(clock.clone()),
            tool_policy: Arc::new(ToolPolicyWatch::new(data_dir.tool_policy_file())),
            tool_approvals: ToolApprovals::new(data_dir.tool_approvals_file()),
            content_approvals,
            untrusted: UntrustedSessions::new(data_dir.untrusted_sessions_file())
                .with_clock(clock.clone()),
            cli_start: Arc::default(),
            unfinished: UnfinishedWork::open(data_dir.unfinished_file()).with_clock(clock.clone()),
            runtime: Arc::new(RuntimeSettings::new(data_dir.config_file())),
            sandbox,
            google: GoogleClient::new(&data_dir, config.google_api_url.as_deref())
                .with_clock(clock.clone()),
            clock,
            config,
            data_dir,
            sessions,
            pending,
            git: recorder,
            usage,
        }),
        git_worker,
        usage_worker,
        initialised_git,
        cli_home_migration,
    })
}

/// Installs what the CLIs may load (BOX-2) now, as each CLI's start does again: a job that
/// fires before any CLI has started (the conversation's waits for the owner, REST-6) is judged
/// against the approved skills and commands on disk (a routine led by its skill, CTX-11).
fn install_approved_content(data_dir: &DataDir, approvals: &ContentApprovals, config: &Config) {
    let prepared = crate::content_approval::prepare(
        data_dir.root(),
        &data_dir.approved_dir(),
        &approvals.decisions(),
        (&config.user_name, &config.bot_name),
    );
    if let Err(error) = prepared {
        tracing::warn!(%error, "could not install the approved skills and commands");
    }
}

/// Sets `autoMemoryEnabled: false` in the data dir's project settings unless the owner chose a
/// value already (AGT-20): the bot keeps its own memory files, and the CLI's would compete.
fn disable_auto_memory(root: &std::path::Path) -> Result<(), StateError> {
    let path = root.join(".claude").join("settings.json");
    let mut settings = match std::fs::read_to_string(&path) {
        Ok(text) => {
            let Ok(serde_json::Value::Object(map)) =
                serde_json::from_str::<serde_json::Value>(&text)
            else {
                tracing::warn!(path = %path.display(), "settings.json is not a JSON object; leaving it alone");
                return Ok(());
            };
            map
        }
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => serde_json::Map::new(),
        Err(source) => return Err(StateError::Io { path, source }),
    };
    if settings.contains_key("autoMemoryEnabled") {
        return Ok(());
    }
    settings.insert("autoMemoryEnabled".into(), serde_json::Value::Bool(false));
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|source| StateError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
    }
    let text = serde_json::to_string_pretty(&settings).unwrap_or_default() + "\n";
    crate::state::atomic::write_atomic(&path, text.as_bytes())
}

/// Clears what writers killed mid-write left behind (issue 16): their temporary files in the
/// folders written atomically. A minute's margin spares a subcommand writing right now.
fn remove_stale_temp_files(data_dir: &DataDir) {
    let dirs = [
        data_dir.state_dir(),
        data_dir.routines_dir(),
        data_dir.reminders_dir(),
        data_dir.webhooks_dir(),
        data_dir.root().to_path_buf(),
    ];
    let removed: usize = dirs
        .iter()
        .map(|dir| {
            crate::state::atomic::remove_stale_temp_files(dir, std::time::Duration::from_secs(60))
        })
        .sum();
    if removed > 0 {
        tracing::info!(
            removed,
            "removed temporary files left by an interrupted write"
        );
    }
}

/// The agent's reference for routine and reminder files (BOOT-6, F-43), built into the binary.
const ROUTINE_REMINDER_SPEC: &str = include_str!("../../../docs/routine-reminder-spec.md");

/// The agent's reference for webhook specs (SYS-13, F-25), built into the binary.
const WEBHOOK_SPEC: &str = include_str!("../../../docs/webhook-spec.md");

/// Writes `routine-reminder-spec.md` and `webhook-spec.md` into the data dir.
fn write_agent_spec(root: &std::path::Path) -> Result<(), StateError> {
    write_reference(root, "routine-reminder-spec.md", ROUTINE_REMINDER_SPEC)?;
    write_reference(root, "webhook-spec.md", WEBHOOK_SPEC)
}

/// Writes one reference document into the data dir, replacing an older copy: it is the
/// bot's reference, kept in step with the binary.
fn write_reference(root: &std::path::Path, name: &str, text: &str) -> Result<(), StateError> {
    let path = root.join(name);
    match std::fs::read_to_string(&path) {
        Ok(current) if current == text => Ok(()),
        _ => {
            if path
                .symlink_metadata()
                .is_ok_and(|m| m.file_type().is_symlink())
            {
                // An owner-made link (e.g. to a project checkout) is left alone.
                return Ok(());
            }
            crate::state::atomic::write_atomic(&path, text.as_bytes())
        }
    }
}

/// Makes the owner's skills (`skills/`) visible to the CLI as project skills (SKL-1): a
/// `.claude/skills` link to `../skills`; an existing entry there is left alone.
fn link_skills(root: &std::path::Path) -> Result<(), StateError> {
    let io = |path: &std::path::Path| {
        let path = path.to_path_buf();
        move |source| StateError::Io { path, source }
    };
    let skills = root.join("skills");
    std::fs::create_dir_all(&skills).map_err(io(&skills))?;
    let link = root.join(".claude").join("skills");
    if link.symlink_metadata().is_ok() {
        return Ok(());
    }
    let claude_dir = root.join(".claude");
    std::fs::create_dir_all(&claude_dir).map_err(io(&claude_dir))?;
    std::os::unix::fs::symlink("../skills", &link).map_err(io(&link))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_memory_is_turned_off_once_and_owner_choices_kept() {
        let dir = tempfile::tempdir().unwrap();
        disable_auto_memory(dir.path()).unwrap();
        let path = dir.path().join(".claude/settings.json");
        let written: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(written["autoMemoryEnabled"], false);
        std::fs::write(&path, r#"{"autoMemoryEnabled": true, "hooks": {}}"#).unwrap();
        disable_auto_memory(dir.path()).unwrap();
        let kept: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(kept["autoMemoryEnabled"], true);
        assert!(kept.get("hooks").is_some());
    }

    #[test]
    fn the_agent_spec_is_written_and_kept_current() {
        let dir = tempfile::tempdir().unwrap();
        write_agent_spec(dir.path()).unwrap();
        let path = dir.path().join("routine-reminder-spec.md");
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            ROUTINE_REMINDER_SPEC
        );
        std::fs::write(&path, "stale").unwrap();
        write_agent_spec(dir.path()).unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            ROUTINE_REMINDER_SPEC
        );
        let webhooks = dir.path().join("webhook-spec.md");
        assert_eq!(std::fs::read_to_string(&webhooks).unwrap(), WEBHOOK_SPEC);
        assert!(WEBHOOK_SPEC.contains("{repo}") && !WEBHOOK_SPEC.contains("{{repo}}"));
    }

    #[test]
    fn skills_are_linked_once() {
        let dir = tempfile::tempdir().unwrap();
        link_skills(dir.path()).unwrap();
        link_skills(dir.path()).unwrap();
        let link = dir.path().join(".claude/skills");
        assert_eq!(
            std::fs::read_link(&link).unwrap(),
            std::path::PathBuf::from("../skills")
        );
        assert!(dir.path().join("skills").is_dir());
    }
}
