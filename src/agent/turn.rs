//! Streaming one turn: CLI frames in, [`TurnEvent`]s out, until the turn's `result`; with what
//! a turn shows: [`labels`] for the tools it runs, [`api_failure`] for a failed API call,
//! [`context_usage`] for how full the context got.

pub mod api_failure;
pub mod context_usage;
pub mod labels;
mod reader;
pub mod spend;
mod stream_state;
mod tool_progress;

use std::time::Duration;

use self::reader::TurnReader;
use crate::claude::{ClaudeClient, ClaudeError, ResultMessage, SubagentReport};
use crate::front_end::CurrentTurn;

/// A compaction seen during a turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompactionSeen {
    /// `manual` or `auto`.
    pub trigger: String,
    /// Context size before it, in tokens.
    pub pre_tokens: Option<u64>,
}

/// What a finished turn produced.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnReport {
    /// The CLI's `result` frame.
    pub result: ResultMessage,
    /// All text shown to the owner during the turn.
    pub text: String,
    /// The compaction that happened in the turn, if any.
    pub compaction: Option<CompactionSeen>,
    /// Whether the model produced anything after that compaction.
    pub answered_after_compaction: bool,
    /// Local-command output (`<local-command-stdout>`) and system texts, for passthroughs.
    pub command_output: Vec<String>,
    /// What the subagents that finished inside the turn used (USE-1).
    pub subagents: Vec<SubagentReport>,
    /// The model the conversation's client was set to for the turn (`None`: the CLI's
    /// default), for the context warning; filled by the session.
    pub model: Option<String>,
}

/// What the code around a turn learns while it streams, and may ask it to stop for.
pub(crate) trait TurnObserver: Sync {
    /// The CLI started (`true`) or finished (`false`) compacting the context.
    fn compacting(&self, _active: bool) {}

    /// Whether the turn should be cut short because the agent asked to enter a fork (AGT-18).
    fn fork_requested(&self) -> bool {
        false
    }
}

/// The observer of a turn nobody watches (background runs).
pub(crate) struct Unobserved;

impl TurnObserver for Unobserved {}

/// Reads frames until the turn's `result`, emitting events to `turn` (AGT-16: streamed deltas
/// first; text of assistant messages that were not streamed, e.g. synthetic API errors; the
/// result text only if nothing else was shown; never the same text twice); the folding is
/// [`reader::TurnReader`]'s.
///
/// When the agent calls `enter_fork` (the observer then reports a fork request), the client is
/// interrupted at the next frame and nothing more of the turn is shown; its `result` is still
/// read so the session id is saved (AGT-18).
pub(crate) async fn run_turn(
    client: &mut ClaudeClient,
    turn: &CurrentTurn,
    observer: &dyn TurnObserver,
    idle_limit: Option<Duration>,
) -> Result<TurnReport, ClaudeError> {
    let mut reader = TurnReader::new(turn, observer);
    loop {
        let next = match idle_limit {
            Some(limit) => {
                let Ok(next) = tokio::time::timeout(limit, client.recv()).await else {
                    observer.compacting(false);
                    return Err(ClaudeError::Silent {
                        secs: limit.as_secs(),
                    });
                };
                next
            }
            None => client.recv().await,
        };
        let Some(message) = next else {
            observer.compacting(false);
            if reader.cut_for_fork() {
                tracing::debug!("the CLI went away after the fork-entry interrupt");
            }
            return Err(client.exit_error().await);
        };
        let handle = client.handle();
        reader.check_fork_request(&handle);
        if let Some(report) = reader.on(message, &handle) {
            return Ok(report);
        }
    }
}
