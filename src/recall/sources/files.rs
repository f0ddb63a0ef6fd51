//! Passages from the markdown the agent and the owner keep in the data dir: `notes/`, the
//! routines and reminders, reflections, `USER.md` and any other `*.md` written there. Only what
//! the container's own classification calls writable (`sandbox::classify_child`): never the
//! bot's state or anything private by its name (`.env*`, keys, tokens — also deeper down), the
//! trust roots (the reference specs, `CLAUDE.md`, webhook specs), dot-folders (`.git`,
//! `.claude`), the skills (instructions, not memory), or downloads. Recall runs in the bot, not
//! in the box: it must not read what the box hides. A file is cut at its headings; each
//! passage is dated by the file's last change.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

use super::passages;
use crate::{
    recall::entry::{Entry, Kind, Origin},
    sandbox::{ChildKind, classify_child, is_private_name},
};

/// Writable folders of the data dir that hold no memory of the owner's.
const SKIPPED: [&str; 2] = ["downloads", "node_modules"];

/// The biggest file read whole (a larger one is not a note).
const LARGEST: u64 = 1024 * 1024;

/// Every markdown file of the data dir recall reads, with its path relative to the root.
pub fn markdown_files(root: &Path) -> Vec<(PathBuf, String)> {
    let walk = walkdir::WalkDir::new(root)
        .follow_links(false)
        .into_iter()
        .filter_entry(|entry| {
            let name = entry.file_name();
            match entry.depth() {
                0 => true,
                1 => {
                    classify_child(name) == ChildKind::Writable
                        && !name.to_str().is_some_and(|name| SKIPPED.contains(&name))
                }
                _ => !is_private_name(name),
            }
        });
    let mut files: Vec<(PathBuf, String)> = walk
        .flatten()
        .filter(|entry| entry.file_type().is_file())
        .filter(|entry| entry.path().extension().is_some_and(|ext| ext == "md"))
        .filter_map(|entry| {
            let rel = entry.path().strip_prefix(root).ok()?.to_str()?.to_owned();
            Some((entry.path().to_path_buf(), rel))
        })
        .collect();
    files.sort_by(|a, b| a.1.cmp(&b.1));
    files
}

/// The passages of the file at `path` (`rel` to the data dir), written at `at`; `None` when
/// it can't be read (too large, not UTF-8, gone).
pub fn file_entries(path: &Path, rel: &str, at: DateTime<Utc>) -> Option<Vec<Entry>> {
    let meta = std::fs::metadata(path).ok()?;
    if meta.len() > LARGEST {
        return None;
    }
    let text = std::fs::read_to_string(path).ok()?;
    Some(text_entries(&text, rel, at))
}

/// The passages of a file's `text` (pure).
pub fn text_entries(text: &str, rel: &str, at: DateTime<Utc>) -> Vec<Entry> {
    let kind = if rel.starts_with("routines/") || rel.starts_with("reminders/") {
        Kind::Job
    } else {
        Kind::Note
    };
    let mut entries = Vec::new();
    for section in sections(text) {
        for text in passages(&section) {
            entries.push(Entry {
                at,
                kind,
                origin: Origin::File(rel.to_owned()),
                untrusted: false,
                text,
            });
        }
    }
    entries
}

/// `text` cut before each heading, the heading kept with what follows it.
fn sections(text: &str) -> Vec<String> {
    let mut sections = vec![String::new()];
    for line in text.lines() {
        if line.starts_with('#') && sections.last().is_some_and(|s| !s.trim().is_empty()) {
            sections.push(String::new());
        }
        if let Some(last) = sections.last_mut() {
            last.push_str(line);
            last.push('\n');
        }
    }
    sections.retain(|section| !section.trim().is_empty());
    sections
}
