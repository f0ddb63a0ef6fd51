//! The Claude Code CLI's session transcripts, read for `ollim-bot history` (SUB-4…6) and
//! rewound for `ollim-bot counterfactual` ([`rewind`], [`session_ref`], CMD-10).
//!
//! The CLI appends every session to `<config dir>/projects/<cwd key>/<session id>.jsonl`, one
//! JSON object per line (prompts, assistant content blocks, tool results, bookkeeping). This
//! module turns those lines into [`Message`]s and per-session [`SessionSummary`]s. Parsing is
//! pure ([`parse_line`], [`SessionSummary::add`], [`parse_window`]); [`TranscriptDir`] is the
//! file edge, and streams files line by line with a cap on the length of one line.

mod entry;
mod files;
pub mod rewind;
pub mod session_ref;
mod summary;
mod window;

pub use entry::{Content, Message, ParsedLine, Role, parse_line};
pub use files::{
    MAX_LINE_BYTES, ReadStats, SessionFile, TranscriptDir, project_key, read_file, read_lines,
};
pub use summary::{SessionSummary, shorten};
pub use window::parse_window;

/// Reading transcripts failed.
#[derive(Debug, thiserror::Error)]
pub enum TranscriptError {
    /// A filesystem operation failed on `path`.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: std::path::PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}

/// Reads a whole session file into its summary; unparsable lines are ignored.
pub fn summarize(file: &SessionFile) -> Result<SessionSummary, TranscriptError> {
    let mut summary = SessionSummary::new(file.id.clone());
    read_file(&file.path, |line| {
        if let Some(parsed) = parse_line(line) {
            summary.add(&parsed);
        }
    })?;
    Ok(summary)
}

/// Streams the messages of a session file, in order, into `each`. The returned stats count
/// lines that are not transcript entries (garbage, a torn last line) as skipped too.
pub fn for_each_message(
    file: &SessionFile,
    mut each: impl FnMut(Message),
) -> Result<ReadStats, TranscriptError> {
    let mut unparsable = 0;
    let mut stats = read_file(&file.path, |line| match parse_line(line) {
        Some(parsed) => parsed.messages.into_iter().for_each(&mut each),
        None => unparsable += 1,
    })?;
    stats.lines -= unparsable;
    stats.skipped += unparsable;
    Ok(stats)
}

#[cfg(test)]
mod tests;
