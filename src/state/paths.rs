//! The data-dir layout (sections D.1/D.2) and the `state/` write guard (PRM-2, PRM-3, HKS-3).

use std::fs;
use std::path::{Component, Path, PathBuf};

use super::StateError;

/// The bot's data directory (`~/.ollim-bot` or `OLLIM_DATA_DIR`, BOOT-9) and the well-known
/// paths inside it. Only computes paths; nothing touches the disk except
/// [`DataDir::ensure_layout`] and the symlink check in [`DataDir::is_inside_state_dir`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataDir {
    root: PathBuf,
}

impl DataDir {
    /// Wraps a data-dir root. Relative roots are kept as given (resolved against the current
    /// directory only where a comparison needs it).
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    /// The data-dir root (agent cwd, git repo root).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `state/`: code-only files the agent may never write (D.2).
    pub fn state_dir(&self) -> PathBuf {
        self.root.join("state")
    }

    /// `state/usage/`: the usage ledger's monthly files (USE-2).
    pub fn usage_dir(&self) -> PathBuf {
        self.state_dir().join("usage")
    }

    /// `state/sessions.json`: the main session id as a bare string (SES-1).
    pub fn sessions_file(&self) -> PathBuf {
        self.state_dir().join("sessions.json")
    }

    /// `state/session_history.jsonl`: the append-only lifecycle log (SES-6).
    pub fn history_file(&self) -> PathBuf {
        self.state_dir().join("session_history.jsonl")
    }

    /// `state/pending_updates.json` (PUP-1).
    pub fn pending_updates_file(&self) -> PathBuf {
        self.state_dir().join("pending_updates.json")
    }

    /// `state/fork_messages.json`: Discord message → fork session records (SES-15).
    pub fn fork_messages_file(&self) -> PathBuf {
        self.state_dir().join("fork_messages.json")
    }

    /// `state/inquiries.json`: button inquiry prompts (BTN-3).
    pub fn inquiries_file(&self) -> PathBuf {
        self.state_dir().join("inquiries.json")
    }

    /// `state/ping_budget.json` (PNG).
    pub fn ping_budget_file(&self) -> PathBuf {
        self.state_dir().join("ping_budget.json")
    }

    /// `state/scheduler.json`: when the scheduler last ran, for missed-fire reports.
    pub fn scheduler_file(&self) -> PathBuf {
        self.state_dir().join("scheduler.json")
    }

    /// `state/config.json`: runtime configuration (CFG).
    pub fn config_file(&self) -> PathBuf {
        self.state_dir().join("config.json")
    }

    /// `state/bot.pid`: the single-instance pid file (PID).
    pub fn pid_file(&self) -> PathBuf {
        self.state_dir().join("bot.pid")
    }

    /// `state/credentials.json`: the owner's Google OAuth client file (GOO).
    pub fn credentials_file(&self) -> PathBuf {
        self.state_dir().join("credentials.json")
    }

    /// `state/token.json`: the Google authorized-user token (GOO).
    pub fn token_file(&self) -> PathBuf {
        self.state_dir().join("token.json")
    }

    /// `state/content_approvals.json`: the owner's approvals of executable content by its
    /// bytes (issue 23 §2).
    pub fn content_approvals_file(&self) -> PathBuf {
        self.state_dir().join("content_approvals.json")
    }

    /// `state/approved/`: what the owner approved, as the CLI loads it (a plugin with the
    /// skills and commands); readable, never writable, inside the agent's box.
    pub fn approved_dir(&self) -> PathBuf {
        self.state_dir().join("approved")
    }

    /// The skills the CLI may load, as approved: `state/approved/plugin/skills/<name>/`.
    /// Jobs, the system prompt and `/setup` read skills from here, never from the drafts.
    pub fn approved_skills_dir(&self) -> PathBuf {
        self.approved_dir().join("plugin").join("skills")
    }

    /// The commands the CLI may load, as approved: `state/approved/plugin/commands/<name>.md`.
    pub fn approved_commands_dir(&self) -> PathBuf {
        self.approved_dir().join("plugin").join("commands")
    }

    /// `state/tool_approvals.json`: the owner's approvals of declared tool patterns.
    pub fn tool_approvals_file(&self) -> PathBuf {
        self.state_dir().join("tool_approvals.json")
    }

    /// `state/cli_homes/`: one Claude CLI config dir per container (issue 39): the homes of
    /// the sessions, never shared between sessions of different trust.
    pub fn cli_homes_dir(&self) -> PathBuf {
        self.state_dir().join("cli_homes")
    }

    /// `state/cli_homes.json`: which home holds each session's transcript (issue 39).
    pub fn cli_homes_file(&self) -> PathBuf {
        self.state_dir().join("cli_homes.json")
    }

    /// `state/untrusted_sessions.json`: sessions that have read untrusted text (issue 23 §4).
    pub fn untrusted_sessions_file(&self) -> PathBuf {
        self.state_dir().join("untrusted_sessions.json")
    }

    /// `state/recall_forgotten.json`: the passages the owner told recall to forget (issue 42).
    pub fn recall_forgotten_file(&self) -> PathBuf {
        self.state_dir().join("recall_forgotten.json")
    }

    /// `state/recall/`: recall's index, rebuilt from its sources whenever it is damaged or
    /// gone (issue 42). Never inside a container's view: the whole `state/` is hidden from
    /// the agent's CLI.
    pub fn recall_index_dir(&self) -> PathBuf {
        self.state_dir().join("recall")
    }

    /// `state/told.json`: what the owner was told unasked, and for which occasion (issue 40).
    pub fn told_file(&self) -> PathBuf {
        self.state_dir().join("told.json")
    }

    /// `state/nags.json`: reminders open until answered (issue 28 §1).
    pub fn nags_file(&self) -> PathBuf {
        self.state_dir().join("nags.json")
    }

    /// `state/quiet.json`: the owner's "quiet for …" and what waits for its end (issue 28).
    pub fn quiet_file(&self) -> PathBuf {
        self.state_dir().join("quiet.json")
    }

    /// `state/held_webhooks.json`: webhook requests the screening could not clear (WHK-12).
    pub fn held_webhooks_file(&self) -> PathBuf {
        self.state_dir().join("held_webhooks.json")
    }

    /// `state/unfinished.json`: work started and not finished yet (issue 16).
    pub fn unfinished_file(&self) -> PathBuf {
        self.state_dir().join("unfinished.json")
    }

    /// `tool-policy.yaml`: the owner's additions to the tool sets (PRM-11).
    pub fn tool_policy_file(&self) -> PathBuf {
        self.root.join("tool-policy.yaml")
    }

    /// `state/google_auth_revoked`: empty marker consumed by the scheduler (GOO).
    pub fn google_auth_revoked_file(&self) -> PathBuf {
        self.state_dir().join("google_auth_revoked")
    }

    /// `state/routine_sessions/`: one bare session id file per persistent routine (PRS-2).
    pub fn routine_sessions_dir(&self) -> PathBuf {
        self.state_dir().join("routine_sessions")
    }

    /// `routines/`: routine markdown files (E.1).
    pub fn routines_dir(&self) -> PathBuf {
        self.root.join("routines")
    }

    /// `reminders/`: reminder markdown files (E.2).
    pub fn reminders_dir(&self) -> PathBuf {
        self.root.join("reminders")
    }

    /// `webhooks/`: webhook spec files (E.3).
    pub fn webhooks_dir(&self) -> PathBuf {
        self.root.join("webhooks")
    }

    /// `skills/`: skill folders (E.5).
    pub fn skills_dir(&self) -> PathBuf {
        self.root.join("skills")
    }

    /// `notes/`: where the agent adds new files of its own; the data dir's top level is the
    /// bot's (issue 23).
    pub fn notes_dir(&self) -> PathBuf {
        self.root.join("notes")
    }

    /// `downloads/`: attachments saved by message intake (MSG-5).
    pub fn downloads_dir(&self) -> PathBuf {
        self.root.join("downloads")
    }

    /// Creates the root, `state/`, `routines/`, `reminders/`, `webhooks/` and `notes/` if
    /// missing.
    pub fn ensure_layout(&self) -> Result<(), StateError> {
        for dir in [
            self.root.clone(),
            self.state_dir(),
            self.routines_dir(),
            self.reminders_dir(),
            self.webhooks_dir(),
            self.notes_dir(),
        ] {
            fs::create_dir_all(&dir).map_err(|e| StateError::io(&dir, e))?;
        }
        Ok(())
    }

    /// Whether `path` names `state/` itself or anything below it (PRM-2/PRM-3, HKS-3, AGT-5).
    ///
    /// Relative paths are taken relative to the data-dir root (the agent's cwd). `.` and `..`
    /// are resolved lexically, so `state/../state/x` and `./state/x` are caught while
    /// `statefile.md` or `states/x` are not. As a second line of defence, symlinks in the
    /// existing part of the path are resolved and compared with the real `state/` directory,
    /// so a link pointing into `state/` is caught too.
    pub fn is_inside_state_dir(&self, path: &Path) -> bool {
        let root = normalize(&absolute(&self.root));
        let state = root.join("state");
        let target = if path.is_absolute() {
            normalize(path)
        } else {
            normalize(&root.join(path))
        };
        if target.starts_with(&state) {
            return true;
        }
        // `State/` is `state/` on a case-insensitive filesystem (issue 23 §5).
        let first = target
            .strip_prefix(&root)
            .ok()
            .and_then(|rest| rest.components().next());
        if first.is_some_and(|c| {
            c.as_os_str()
                .to_string_lossy()
                .eq_ignore_ascii_case("state")
        }) {
            return true;
        }
        match (
            fs::canonicalize(&state),
            canonicalize_existing_prefix(&target),
        ) {
            (Ok(real_state), Some(real_target)) => real_target.starts_with(real_state),
            _ => false,
        }
    }
}

/// `path` made absolute against the current directory, with `.` and `..` resolved, without
/// touching the filesystem.
pub fn absolute_normalized(path: &Path) -> PathBuf {
    normalize(&absolute(path))
}

/// Makes `path` absolute against the current directory (lexically; no symlink resolution).
fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Resolves `.` and `..` components without touching the filesystem. `..` at the root stays
/// at the root, as the OS does.
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::Prefix(_) | Component::RootDir => out.push(component.as_os_str()),
            Component::CurDir => {}
            Component::ParentDir => {
                if matches!(out.components().next_back(), Some(Component::Normal(_))) {
                    out.pop();
                } else if !out.has_root() {
                    out.push("..");
                }
            }
            Component::Normal(name) => out.push(name),
        }
    }
    out
}

/// Canonicalizes the longest existing ancestor of a normalized absolute path and re-appends
/// the not-yet-existing remainder.
pub fn canonicalize_existing_prefix(path: &Path) -> Option<PathBuf> {
    let mut rest = Vec::new();
    let mut current = path;
    loop {
        if let Ok(real) = fs::canonicalize(current) {
            let mut out = real;
            out.extend(rest.iter().rev());
            return Some(out);
        }
        rest.push(current.file_name()?);
        current = current.parent()?;
    }
}

#[cfg(test)]
#[path = "paths_tests.rs"]
mod tests;
