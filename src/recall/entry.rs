//! One passage the owner's assistant knows, as recall indexes it: what it says, when, what
//! kind of thing it is, where it came from, and whether untrusted text wrote it. Pure.

use std::fmt::{self, Write as _};

use chrono::{DateTime, Utc};
use sha2::{Digest, Sha256};

/// What kind of passage it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// Something the owner said (or a prompt sent on their behalf).
    Said,
    /// The assistant's reply.
    Answer,
    /// A tool's result, summarised.
    ToolResult,
    /// A note the agent keeps (`notes/`, other markdown of the data dir).
    Note,
    /// A routine's or reminder's file.
    Job,
    /// A pending update or a background run's report waiting for main.
    Update,
}

impl Kind {
    /// Every kind, in the order `--kind` lists them.
    pub const ALL: [Kind; 6] = [
        Kind::Said,
        Kind::Answer,
        Kind::ToolResult,
        Kind::Note,
        Kind::Job,
        Kind::Update,
    ];

    /// The name used on the command line, in the tool and in the index.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Said => "said",
            Kind::Answer => "answer",
            Kind::ToolResult => "tool",
            Kind::Note => "note",
            Kind::Job => "job",
            Kind::Update => "update",
        }
    }

    /// The kind named `name`, if any.
    pub fn from_name(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|kind| kind.name() == name)
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where a passage came from: a session (its id) or a file (relative to the data dir).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Origin {
    /// A Claude session's transcript.
    Session(String),
    /// A file under the data dir.
    File(String),
}

impl Origin {
    /// How the owner or the agent opens the whole of it: `session:<id>` (for
    /// `ollim-bot history --session`) or `file:<path>`.
    pub fn handle(&self) -> String {
        match self {
            Origin::Session(id) => format!("session:{id}"),
            Origin::File(path) => format!("file:{path}"),
        }
    }

    /// The origin a [`Self::handle`] names.
    pub fn from_handle(handle: &str) -> Option<Origin> {
        if let Some(id) = handle.strip_prefix("session:") {
            return Some(Origin::Session(id.to_owned()));
        }
        handle
            .strip_prefix("file:")
            .map(|path| Origin::File(path.to_owned()))
    }
}

/// One passage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// When it was said or written.
    pub at: DateTime<Utc>,
    /// What kind of passage it is.
    pub kind: Kind,
    /// Where it came from.
    pub origin: Origin,
    /// Whether untrusted text (mail, a webhook's payload) wrote or fed it.
    pub untrusted: bool,
    /// What it says.
    pub text: String,
}

impl Entry {
    /// The fingerprint of what the passage says, whatever its origin: the same words
    /// forgotten once stay forgotten wherever they turn up again. Whitespace and case don't
    /// count.
    pub fn fingerprint(&self) -> String {
        fingerprint(&self.text)
    }
}

/// The fingerprint of `text` (see [`Entry::fingerprint`]): SHA-256 of its words, lower-cased,
/// single-spaced, in hex.
pub fn fingerprint(text: &str) -> String {
    let words: Vec<String> = text.split_whitespace().map(str::to_lowercase).collect();
    let digest = Sha256::digest(words.join(" ").as_bytes());
    digest
        .iter()
        .fold(String::with_capacity(64), |mut hex, byte| {
            let _ = write!(hex, "{byte:02x}");
            hex
        })
}
