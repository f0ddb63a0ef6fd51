//! Executable content runs only as the owner approved it, byte for byte (issue 23 §2, BOX-2).
//!
//! Skills, slash commands, subagents and the project settings can make the Claude CLI run
//! things (hooks, `` !`command` `` markers, granted tools, MCP servers). The CLI is started
//! with no setting sources at all, so it loads none of them from disk by itself; the bot
//! hands it only what the owner approved:
//!
//! - [`scan`] reads the drafts where the owner and the agent write them (`skills/<name>/`,
//!   `.claude/agents/`, `.claude/commands/`, `.claude/settings.json`) into [`ContentItem`]s,
//!   each with a hash of its exact bytes;
//! - an item is loadable when the owner approved that hash, or when it is the bot's own
//!   bundled text ([`trust`]);
//! - [`install`] writes the loadable skills and commands into a plugin under
//!   `state/approved/` (which the box lets the CLI read and nobody inside it write) and
//!   returns the subagents and settings to pass on the command line;
//! - [`Reach`] reads what a draft can make the CLI run, and [`approval_embed`] shows it to the
//!   owner with the draft itself (issue 39 §4).
//!
//! The bot never has to understand the CLI's formats for this to hold: bytes nobody
//! approved never reach a place the CLI loads from. An edit changes the hash, so the item
//! stops loading until approved again.

mod ask;
mod install;
mod reach;
mod scan;
mod trust;

#[cfg(test)]
mod tests;

use std::{fmt, path::PathBuf};

pub use ask::{APPROVE_ACTION, DENY_ACTION, approval_embed, ask_owner};
pub use install::{Delivery, PLUGIN_NAME, install};
pub use reach::{NOTHING_RUNS, Reach};
pub use scan::{ScanLimits, scan};
pub use trust::{Trust, loadable};

/// The kinds of content the CLI can load and run things from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ContentKind {
    /// `skills/<name>/` (its `SKILL.md` and every file beside it).
    Skill,
    /// `.claude/commands/<name>.md`.
    Command,
    /// `.claude/agents/<name>.md`.
    Subagent,
    /// `.claude/settings.json` (hooks, permissions, MCP servers…).
    Settings,
}

impl ContentKind {
    /// The key prefix and the word used for the owner.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Skill => "skill",
            Self::Command => "command",
            Self::Subagent => "subagent",
            Self::Settings => "settings",
        }
    }
}

impl fmt::Display for ContentKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One file of an item: its path inside the item and its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContentFile {
    /// Relative to the item's folder (a single-file item: the file name).
    pub relative: PathBuf,
    /// The exact bytes.
    pub bytes: Vec<u8>,
}

/// One piece of executable content as it is on disk now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContentItem {
    /// What it is.
    pub kind: ContentKind,
    /// Its name (the skill's folder, the file stem; `project` for the settings).
    pub name: String,
    /// Where it is, relative to the data dir.
    pub path: PathBuf,
    /// Its files, sorted by path.
    pub files: Vec<ContentFile>,
    /// SHA-256 over every file's path and bytes, hex.
    pub hash: String,
}

#[cfg(test)]
impl ContentItem {
    /// A draft of `kind` named `name` under `skills/`, holding `files` (name, text), for tests.
    pub(crate) fn of_texts(kind: ContentKind, name: &str, files: &[(&str, &str)]) -> Self {
        Self {
            kind,
            name: name.into(),
            path: PathBuf::from("skills").join(name),
            files: files
                .iter()
                .map(|(relative, text)| ContentFile {
                    relative: PathBuf::from(relative),
                    bytes: text.as_bytes().to_vec(),
                })
                .collect(),
            hash: "ab".repeat(32),
        }
    }
}

impl ContentItem {
    /// The approval key: `<kind>:<name>`.
    pub fn key(&self) -> String {
        format!("{}:{}", self.kind, self.name)
    }

    /// The first 12 hex digits of the hash, for the owner.
    pub fn short_hash(&self) -> &str {
        self.hash.get(..12).unwrap_or(&self.hash)
    }

    /// The main file's text (`SKILL.md` for a skill), lossily.
    pub fn main_text(&self) -> String {
        let main = self
            .files
            .iter()
            .find(|f| f.relative.as_os_str() == crate::skills::SKILL_FILE)
            .or_else(|| self.files.first());
        main.map(|f| String::from_utf8_lossy(&f.bytes).into_owned())
            .unwrap_or_default()
    }

    /// What the item can make the CLI do, verdict first, one line each, for
    /// `ollim-bot approve` ([`Reach`]). Informative only: safety never depends on this reading.
    pub fn capabilities(&self) -> Vec<String> {
        Reach::of(self).lines()
    }
}

/// What one CLI start gets, and what waits for the owner.
#[derive(Debug, Clone)]
pub struct Prepared {
    /// The loadable content, installed.
    pub delivery: Delivery,
    /// Items that are neither approved nor bundled and not denied: the owner is asked.
    pub pending: Vec<ContentItem>,
}

/// Scans the data dir, installs what may be loaded under `approved_dir` and lists what
/// waits. Problems (a draft too large, a subagent without a description) are logged.
pub fn prepare(
    data_dir: &std::path::Path,
    approved_dir: &std::path::Path,
    decisions: &crate::state::content_approvals::ContentDecisions,
    names: (&str, &str),
) -> std::io::Result<Prepared> {
    let (items, problems) = scan(data_dir, ScanLimits::default());
    let mut loadable_items = Vec::new();
    let mut pending = Vec::new();
    for item in &items {
        match loadable(item, decisions, names.0, names.1) {
            Trust::Approved | Trust::Bundled => loadable_items.push(item),
            Trust::Pending => pending.push(item.clone()),
            Trust::Denied => {}
        }
    }
    let delivery = install(approved_dir, &loadable_items)?;
    for problem in problems.iter().chain(&delivery.problems) {
        tracing::warn!(%problem, "executable content not loaded");
    }
    Ok(Prepared { delivery, pending })
}
