//! The CLI's stderr, drained as long as the process lives so it can never block on a full
//! pipe (issue 16: a CLI flooding stderr). Kept bounded whatever arrives: the last
//! [`TAIL_LINES`] lines for error reports, each cut to [`MAX_LINE_BYTES`]; bytes that aren't
//! UTF-8 are shown as replacement characters, never a reason to stop reading.

use std::{collections::VecDeque, sync::Arc};

use parking_lot::Mutex;
use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};

/// How many stderr lines are kept for error reports.
pub(crate) const TAIL_LINES: usize = 20;
/// Longest stderr line kept, in bytes; the rest of the line is dropped.
pub(crate) const MAX_LINE_BYTES: usize = 4096;

/// The last stderr lines, shared with the reader.
pub(crate) type Tail = Arc<Mutex<VecDeque<String>>>;

/// A fresh, empty tail.
pub(crate) fn new_tail() -> Tail {
    Arc::new(Mutex::new(VecDeque::with_capacity(TAIL_LINES)))
}

/// Reads `stderr` to its end, logging each line at debug level and keeping the tail.
pub(crate) async fn drain(stderr: impl AsyncRead + Unpin, tail: Tail) {
    let mut reader = BufReader::new(stderr);
    let mut line: Vec<u8> = Vec::with_capacity(256);
    let mut cut = false;
    loop {
        let (consumed, ended_line) = match reader.fill_buf().await {
            Ok([]) | Err(_) => break,
            Ok(buf) => {
                let newline = memchr::memchr(b'\n', buf);
                let chunk = &buf[..newline.unwrap_or(buf.len())];
                let room = MAX_LINE_BYTES.saturating_sub(line.len());
                cut |= chunk.len() > room;
                line.extend_from_slice(&chunk[..chunk.len().min(room)]);
                (newline.map_or(buf.len(), |at| at + 1), newline.is_some())
            }
        };
        reader.consume(consumed);
        if ended_line {
            keep(&tail, &line, cut);
            line.clear();
            cut = false;
        }
    }
    if !line.is_empty() {
        keep(&tail, &line, cut);
    }
}

fn keep(tail: &Tail, line: &[u8], cut: bool) {
    let mut text = String::from_utf8_lossy(line).into_owned();
    if cut {
        text.push('…');
    }
    tracing::debug!(target: "ollim_bot::claude::stderr", "{text}");
    let mut tail = tail.lock();
    if tail.len() == TAIL_LINES {
        tail.pop_front();
    }
    tail.push_back(text);
}

#[cfg(test)]
#[path = "stderr_tail_tests.rs"]
mod tests;
