//! The baselines recall is compared with, over the same files:
//!
//! - today's `ollim-bot history --grep <question>`: every message of every session (the
//!   owner's, the replies, a tool's name or result) holding the whole question,
//!   case-insensitively, sessions newest first (by their last message) and each session's
//!   messages in order; its first five lines are the top 5. `history`'s own matcher is private
//!   to `cli::history`, so its rule is repeated here;
//! - a generous grep: each content word of the question on its own, longest first, the
//!   messages holding it newest first, the first five found over all the words; over the
//!   transcripts (what `history --grep` reads), and over the transcripts and the data dir's
//!   markdown (what `grep -ri` in the data dir would add).

use std::path::Path;

use chrono::{DateTime, Utc};
use ollim_bot::transcripts::{Content, TranscriptDir, for_each_message, summarize};

/// One thing a grep can find: a message or a note file.
pub(crate) struct Found {
    pub(crate) at: DateTime<Utc>,
    /// Lower-cased, as the match is made.
    pub(crate) text: String,
    pub(crate) note: bool,
}

/// Everything the baselines search, in `history`'s order (newest session first).
pub(crate) struct Haystack {
    pub(crate) items: Vec<Found>,
    /// `items`' indexes, newest first.
    newest: Vec<usize>,
}

/// Words a question is made of that say nothing about what is looked for.
const STOP: &[&str] = &[
    "about", "again", "and", "any", "are", "aside", "away", "been", "but", "can", "could", "did",
    "does", "doing", "ever", "for", "from", "get", "going", "had", "has", "have", "her", "his",
    "how", "i'd", "i'm", "into", "its", "it's", "mine", "much", "now", "often", "our", "out",
    "say", "she", "should", "still", "that", "the", "their", "them", "there", "they", "this",
    "was", "were", "what", "what's", "when", "when's", "where", "where's", "which", "who", "who's",
    "why", "will", "with", "you", "your",
];

impl Haystack {
    /// The messages of every session for the data dir, and (when `notes`) its markdown.
    pub(crate) fn read(claude_dir: &Path, data_dir: &Path, notes: bool) -> Self {
        let dir = TranscriptDir::for_cwd_in(claude_dir, &[], data_dir);
        let mut sessions: Vec<_> = dir
            .sessions()
            .expect("the sessions")
            .into_iter()
            .map(|file| (summarize(&file).expect("a summary").end, file))
            .collect();
        sessions.sort_by(|(a, x), (b, y)| b.cmp(a).then_with(|| x.id.cmp(&y.id)));
        let mut items = Vec::new();
        for (_, file) in &sessions {
            for_each_message(file, |message| {
                let text = match message.content {
                    Content::Text(text) | Content::ToolResult { text, .. } => text,
                    Content::ToolCall { name, .. } => name,
                };
                items.push(Found {
                    at: message.time,
                    text: text.to_lowercase(),
                    note: false,
                });
            })
            .expect("a transcript");
        }
        if notes {
            for entry in walkdir::WalkDir::new(data_dir).into_iter().flatten() {
                let path = entry.path();
                if path.extension().is_some_and(|ext| ext == "md") && !path.starts_with(claude_dir)
                {
                    let text = std::fs::read_to_string(path).expect("a note");
                    let modified = entry.metadata().expect("a note").modified().expect("mtime");
                    items.push(Found {
                        at: DateTime::<Utc>::from(modified),
                        text: text.to_lowercase(),
                        note: true,
                    });
                }
            }
        }
        let mut newest: Vec<usize> = (0..items.len()).collect();
        newest.sort_by(|&a, &b| items[b].at.cmp(&items[a].at));
        Self { items, newest }
    }

    /// `history --grep <question>`: the first five messages holding the whole question.
    pub(crate) fn history_grep(&self, question: &str) -> Vec<&Found> {
        let needle = question.to_lowercase();
        self.items
            .iter()
            .filter(|found| !found.note && found.text.contains(&needle))
            .take(5)
            .collect()
    }

    /// The generous grep: each content word, longest first, newest first; the first five.
    pub(crate) fn word_grep(&self, question: &str) -> Vec<&Found> {
        let mut out: Vec<usize> = Vec::new();
        for word in content_words(question) {
            for &i in &self.newest {
                if out.len() == 5 {
                    return out.iter().map(|&i| &self.items[i]).collect();
                }
                if self.items[i].text.contains(&word) && !out.contains(&i) {
                    out.push(i);
                }
            }
        }
        out.iter().map(|&i| &self.items[i]).collect()
    }
}

/// The question's words that say what is looked for, longest first.
pub(crate) fn content_words(question: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    let lower = question.to_lowercase();
    for word in lower.split(|c: char| !(c.is_alphanumeric() || c == '\'')) {
        let word = word.trim_matches('\'');
        let word = word.strip_suffix("'s").unwrap_or(word);
        if word.chars().count() >= 3 && !STOP.contains(&word) && !words.iter().any(|w| w == word) {
            words.push(word.to_owned());
        }
    }
    words.sort_by_key(|word| std::cmp::Reverse(word.chars().count()));
    words
}
