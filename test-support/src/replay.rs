//! Replays a recorded CLI transcript (`tests/fixtures/cli-transcripts/*.jsonl`) through the
//! driver's [`StreamConnection`]. The recorded `stdout` frames go into the driver as if the CLI
//! wrote them; the driver's handlers answer like the recorded host did, at the moment the
//! recording shows the answer; host prompts and requests go through the driver's own
//! [`ClientHandle`] where the recording shows the host sending them; and every line the driver
//! writes is checked against the recorded `stdin`. A mismatch panics naming transcript and `seq`.
//!
//! The recorded host (what the driver's handlers answer, and how an answer is compared) is in
//! `recorded_host`; stepping the frames through the driver and checking each line it writes
//! is in `run`.

use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use ollim_bot::claude::Message;
use serde_json::Value;

mod recorded_host;
mod run;

pub use recorded_host::served_by_bridge;
pub use run::replay_frames;

/// How long any single step may take before the replay fails.
const STEP: Duration = Duration::from_secs(2);

/// Checks one typed message against the stdout frame it came from; `Some(problem)` on mismatch.
pub type KindCheck = fn(&Value, &Message) -> Option<String>;

/// One `stdin` or `stdout` line of a transcript.
#[derive(Debug, Clone)]
pub struct Frame {
    pub seq: u64,
    pub from_cli: bool,
    pub msg: Value,
}

/// What a replay produced, for transcript-specific checks.
#[derive(Debug, Default)]
pub struct Replay {
    /// Every typed message `recv()` returned, with the `seq` of its stdout frame.
    pub messages: Vec<(u64, Message)>,
    /// Host control requests: recorded `seq`, subtype, and how the driver's call ended.
    pub host_requests: Vec<(u64, String, Result<Value, String>)>,
    /// CLI control requests the driver answered (exactly once each).
    pub answered: usize,
    /// CLI control requests the driver rightly never answered (cancelled by the CLI).
    pub unanswered: usize,
}

impl Replay {
    /// The typed messages alone.
    pub fn typed(&self) -> impl Iterator<Item = &Message> {
        self.messages.iter().map(|(_, message)| message)
    }
}

/// `tests/fixtures/cli-transcripts`.
pub fn transcript_dir() -> PathBuf {
    super::paths::repo_root().join("tests/fixtures/cli-transcripts")
}

/// The `stdin`/`stdout` lines of `<name>.jsonl`, in order.
pub fn load(name: &str) -> Vec<Frame> {
    let path = transcript_dir().join(format!("{name}.jsonl"));
    let text = std::fs::read_to_string(&path).expect("read the transcript");
    let lines = text.lines().filter(|line| !line.trim().is_empty());
    lines
        .filter_map(|line| {
            let line: Value = serde_json::from_str(line).expect("transcript lines are JSON");
            let from_cli = match line["dir"].as_str()? {
                "stdout" => true,
                "stdin" => false,
                _ => return None,
            };
            let (seq, msg) = (line["seq"].as_u64().expect("a seq"), line["msg"].clone());
            Some(Frame { seq, from_cli, msg })
        })
        .collect()
}

fn text(value: &Value) -> &str {
    value.as_str().unwrap_or_default()
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Replays `<name>.jsonl`, checking typed messages with `check`.
pub async fn replay(name: &str, check: KindCheck) -> Replay {
    replay_frames(name, load(name), check).await
}
