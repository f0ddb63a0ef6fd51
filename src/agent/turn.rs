//! Streaming one turn: CLI frames in, [`TurnEvent`]s out, until the turn's `result`; with what
//! a turn shows: [`labels`] for the tools it runs, [`api_failure`] for a failed API call,
//! [`context_usage`] for how full the context got.

pub mod api_failure;
pub mod context_usage;
pub mod labels;
pub mod spend;

use std::{
    collections::HashSet,
    sync::atomic::{AtomicBool, Ordering},
    time::{Duration, Instant},
};

use serde_json::Value;

use self::{api_failure::ApiFailure, labels::tool_label};
use crate::claude::{
    ClaudeClient, ClaudeError, ContentBlock, Message, ResultMessage, StreamEvent, SubagentReport,
    SystemMessage,
};
use crate::front_end::{CurrentTurn, TurnEvent};

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
/// result text only if nothing else was shown; never the same text twice).
///
/// When the agent calls `enter_fork` (the observer then reports a fork request), the client is
/// interrupted at the next frame and nothing more of the turn is shown; its `result` is still
/// read so the session id is saved (AGT-18).
#[allow(clippy::too_many_lines)] // one loop over the CLI's message kinds, each handled in place
pub(crate) async fn run_turn(
    client: &mut ClaudeClient,
    turn: &CurrentTurn,
    observer: &dyn TurnObserver,
    idle_limit: Option<Duration>,
) -> Result<TurnReport, ClaudeError> {
    let mut shown = String::new();
    let mut streamed_in_message = false;
    let mut streamed_any = false;
    let mut compaction: Option<CompactionSeen> = None;
    let mut compaction_started: Option<Instant> = None;
    let mut answered_after_compaction = false;
    let mut last_input_tokens: Option<u64> = None;
    let mut command_output = Vec::new();
    let mut labelled: HashSet<String> = HashSet::new();
    let mut subagents: Vec<SubagentReport> = Vec::new();
    // The CLI's own `API Error: …` text, held back for a plainer line at the result.
    let mut api_error: Option<String> = None;
    // A failure retrying can't fix: the turn was interrupted instead of retried (issue 24 §2).
    let mut stopped: Option<ApiFailure> = None;

    let cut_short = AtomicBool::new(false);
    let emit = |event: TurnEvent| {
        if !cut_short.load(Ordering::Relaxed) {
            turn.emit(event);
        }
    };
    let show = |text: &str, shown: &mut String| {
        if !text.is_empty() && !cut_short.load(Ordering::Relaxed) {
            shown.push_str(text);
            turn.emit(TurnEvent::TextDelta(text.to_owned()));
        }
    };

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
            if cut_short.load(Ordering::Relaxed) {
                tracing::debug!("the CLI went away after the fork-entry interrupt");
            }
            return Err(client.exit_error().await);
        };
        if !cut_short.load(Ordering::Relaxed) && observer.fork_requested() {
            turn.emit(TurnEvent::ForkRequested);
            cut_short.store(true, Ordering::Relaxed);
            if let Err(error) = client.handle().interrupt_nowait() {
                tracing::debug!(%error, "could not interrupt for the fork");
            }
        }
        match message {
            Message::StreamEvent(StreamEvent::MessageStart { input_tokens }) => {
                streamed_in_message = false;
                last_input_tokens = input_tokens.or(last_input_tokens);
            }
            Message::StreamEvent(StreamEvent::TextDelta { text, .. }) => {
                streamed_in_message = true;
                streamed_any = true;
                answered_after_compaction |= compaction.is_some();
                show(&text, &mut shown);
            }
            Message::Assistant(assistant) => {
                let synthetic = assistant.model == "<synthetic>";
                if synthetic && assistant.error.is_some() {
                    api_error = Some(assistant.text());
                    continue;
                }
                for block in &assistant.content {
                    match block {
                        ContentBlock::Text { text }
                            if synthetic || !streamed_in_message && !streamed_any =>
                        {
                            if synthetic && text == "(no content)" {
                                continue;
                            }
                            answered_after_compaction |= compaction.is_some();
                            let separator = if shown.is_empty() || shown.ends_with('\n') {
                                ""
                            } else {
                                "\n"
                            };
                            show(&format!("{separator}{text}"), &mut shown);
                        }
                        ContentBlock::ToolUse { id, name, input }
                            if assistant.parent_tool_use_id.is_none()
                                && labelled.insert(id.clone()) =>
                        {
                            answered_after_compaction |= compaction.is_some();
                            emit(TurnEvent::ToolUse {
                                id: id.clone(),
                                label: tool_label(name, input),
                            });
                        }
                        _ => {}
                    }
                }
            }
            Message::User(user) => {
                subagents.extend(user.subagent.clone());
                for block in &user.content {
                    if let ContentBlock::ToolResult {
                        tool_use_id,
                        is_error: true,
                        ..
                    } = block
                    {
                        emit(TurnEvent::ToolFailed {
                            id: tool_use_id.clone(),
                        });
                    }
                }
                if user.is_replay {
                    command_output.push(strip_command_tags(&user.text()));
                }
            }
            Message::System(SystemMessage::Status { status, .. })
                if status.as_deref() == Some("compacting") =>
            {
                observer.compacting(true);
                compaction_started = Some(Instant::now());
                emit(TurnEvent::Compacting {
                    pre_tokens: last_input_tokens,
                });
            }
            Message::System(SystemMessage::CompactBoundary(boundary)) => {
                observer.compacting(false);
                let seconds = compaction_started.map_or(0, |t| t.elapsed().as_secs());
                emit(TurnEvent::Compacted {
                    pre_tokens: boundary.pre_tokens,
                    seconds,
                });
                compaction = Some(CompactionSeen {
                    trigger: boundary.trigger,
                    pre_tokens: boundary.pre_tokens,
                });
                streamed_any = false;
            }
            Message::System(SystemMessage::ApiRetry {
                attempt,
                max_retries,
                error_status,
            }) => {
                if stopped.is_some() {
                    continue;
                }
                tracing::info!(attempt, ?error_status, "the CLI retries the model API");
                if ApiFailure::is_permanent(error_status) {
                    stopped = Some(ApiFailure::classify(error_status, ""));
                    if let Err(error) = client.handle().interrupt_nowait() {
                        tracing::debug!(%error, "could not stop the retries");
                    }
                } else {
                    emit(TurnEvent::Retrying(ApiFailure::retry_line(
                        error_status,
                        attempt,
                        max_retries,
                    )));
                }
            }
            Message::System(SystemMessage::Other { raw, .. }) => {
                if let Some(text) = ["text", "message"]
                    .iter()
                    .find_map(|key| raw.get(*key).and_then(Value::as_str))
                {
                    command_output.push(text.to_owned());
                }
            }
            Message::Result(result) => {
                observer.compacting(false);
                if let Some(failure) = stopped {
                    tracing::warn!(?failure, "the model API refused the turn; not retrying");
                    let separator = if shown.is_empty() { "" } else { "\n" };
                    show(&format!("{separator}{}", failure.owner_text()), &mut shown);
                } else if result.is_error
                    && (api_error.is_some() || result.api_error_status.is_some())
                {
                    let raw = api_error.take().unwrap_or_else(|| result.error_summary());
                    let failure = ApiFailure::classify(result.api_error_status, &raw);
                    tracing::warn!(?failure, error = %raw, "the model API failed the turn");
                    let separator = if shown.is_empty() { "" } else { "\n" };
                    show(&format!("{separator}{}", failure.owner_text()), &mut shown);
                } else if shown.is_empty()
                    && !result.is_error
                    && let Some(text) = result.result.as_deref()
                {
                    show(text, &mut shown);
                }
                return Ok(TurnReport {
                    result,
                    text: shown,
                    compaction,
                    answered_after_compaction,
                    command_output,
                    subagents,
                });
            }
            Message::Unknown { kind, .. } => {
                tracing::debug!(kind, "skipping an unknown CLI message");
            }
            _ => {}
        }
    }
}

fn strip_command_tags(text: &str) -> String {
    text.replace("<local-command-stdout>", "")
        .replace("</local-command-stdout>", "")
        .replace("<local-command-stderr>", "")
        .replace("</local-command-stderr>", "")
        .trim()
        .to_owned()
}
