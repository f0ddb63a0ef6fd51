//! What the agent may do with each entry at the top of the data dir (its working directory).
//! Landlock grants whole trees, so the data dir itself is granted only listing, and each
//! top-level entry gets its own grant by what it is.

use std::ffi::OsStr;

/// How the box treats one top-level entry of the data dir.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChildKind {
    /// Never readable: the bot's private state and secrets (`state/`, `.env*`, key and token
    /// files).
    Private,
    /// Readable, never writable: the trust roots (hidden entries such as `.git/` and
    /// `.claude/`, `webhooks/`, `tool-policy.yaml`, `CLAUDE.md`).
    ReadOnly,
    /// Drafts the agent writes in folders of their own (`skills/<name>/`): nothing here is
    /// loaded until the owner approved its bytes (issue 23 §2).
    Drafts,
    /// The agent's own files: readable and writable in place; new files only inside folders.
    Writable,
}

/// Which kind of session a domain is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Confinement {
    /// The main session and its forks: the owner is in the conversation.
    Owner,
    /// Background runs and webhook screening, which may carry untrusted text: they also get
    /// the job folders (`routines/`, `reminders/`) read-only, so nothing they run can write a
    /// job that would put its text into the main session (issue 23 §4). They schedule
    /// through the `discord` tools, which refuse foreground jobs.
    Background,
}

/// The folders whose files the scheduler runs as jobs, whatever their case.
const JOB_FOLDERS: [&str; 2] = ["routines", "reminders"];

/// Whether the top-level entry `name` holds jobs the scheduler runs.
pub fn is_job_folder(name: &OsStr) -> bool {
    JOB_FOLDERS.contains(&name.to_string_lossy().to_lowercase().as_str())
}

/// Entries that are the bot's trust roots whatever their case.
const READ_ONLY_NAMES: [&str; 6] = [
    "routine-reminder-spec.md",
    "webhook-spec.md",
    "webhooks",
    "tool-policy.yaml",
    "claude.md",
    "claude.local.md",
];

/// Name endings of files that hold keys.
const KEY_SUFFIXES: [&str; 4] = [".pem", ".key", ".p12", ".pfx"];

/// Names of the Claude CLI's login and its global config (which can keep an API key).
const CLI_SECRET_NAMES: [&str; 2] = [".credentials.json", ".claude.json"];

/// Whether a file or folder named `name` holds secrets by its name: the bot's `state/`,
/// `.env*`, key files, OAuth client and token files, SSH keys, the CLI's login. The one
/// classification the box, `send_file` and `doctor` share (issue 39 §4). Case-insensitive.
pub fn is_private_name(name: &OsStr) -> bool {
    let lower = name.to_string_lossy().to_lowercase();
    lower == "state"
        || lower.starts_with(".env")
        || CLI_SECRET_NAMES.contains(&lower.as_str())
        || KEY_SUFFIXES.iter().any(|suffix| lower.ends_with(suffix))
        || (std::path::Path::new(&lower)
            .extension()
            .is_some_and(|extension| extension == "json")
            && ["credentials", "token", "client_secret"]
                .iter()
                .any(|stem| lower.starts_with(stem)))
        || lower.starts_with("id_rsa")
        || lower.starts_with("id_ed25519")
}

/// Classifies the top-level entry `name` of the data dir. Case-insensitive, so `State/` on a
/// case-insensitive filesystem is private too.
pub fn classify_child(name: &OsStr) -> ChildKind {
    let lower = name.to_string_lossy().to_lowercase();
    let private = is_private_name(name);
    if private {
        ChildKind::Private
    } else if lower == "skills" {
        ChildKind::Drafts
    } else if lower.starts_with('.') || READ_ONLY_NAMES.contains(&lower.as_str()) {
        ChildKind::ReadOnly
    } else {
        ChildKind::Writable
    }
}
