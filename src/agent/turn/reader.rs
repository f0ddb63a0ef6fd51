//! One turn's frames folded into what the owner sees and what the session learns (AGT-16,
//! AGT-18, SES-14, issue 24 §2): a state machine fed one CLI message at a time, like the
//! streamer's. [`TurnReader::on`] is the only way in; the turn ends when it returns a report.

use std::{collections::HashSet, time::Instant};

use serde_json::Value;

use super::{
    CompactionSeen, TurnObserver, TurnReport,
    api_failure::ApiFailure,
    labels::tool_label,
    stream_state::{Compaction, Streamed},
    tool_progress::{HeldFailures, SubagentStatus},
};
use crate::{
    claude::{ClientHandle, ContentBlock, Message, StreamEvent, SubagentReport, SystemMessage},
    front_end::{CurrentTurn, TurnEvent},
};

/// Whether the turn's output still reaches the owner.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Output {
    /// Shown as it comes.
    Shown,
    /// The agent asked to enter a fork: nothing more is shown (AGT-18).
    CutForFork,
}

/// One turn being read.
pub(super) struct TurnReader<'a> {
    turn: &'a CurrentTurn,
    observer: &'a dyn TurnObserver,
    output: Output,
    shown: String,
    streamed: Streamed,
    compaction: Compaction,
    /// When the CLI said it started compacting, for the seconds it took.
    compacting_since: Option<Instant>,
    last_input_tokens: Option<u64>,
    command_output: Vec<String>,
    labelled: HashSet<String>,
    subagent_status: SubagentStatus,
    held_failures: HeldFailures,
    subagents: Vec<SubagentReport>,
    /// The CLI's own `API Error: …` text, held back for a plainer line at the result.
    api_error: Option<String>,
    /// A failure retrying can't fix: the turn was interrupted instead of retried.
    stopped: Option<ApiFailure>,
}

impl<'a> TurnReader<'a> {
    pub(super) fn new(turn: &'a CurrentTurn, observer: &'a dyn TurnObserver) -> Self {
        Self {
            turn,
            observer,
            output: Output::Shown,
            shown: String::new(),
            streamed: Streamed::Nothing,
            compaction: Compaction::None,
            compacting_since: None,
            last_input_tokens: None,
            command_output: Vec::new(),
            labelled: HashSet::new(),
            subagent_status: SubagentStatus::default(),
            held_failures: HeldFailures::default(),
            subagents: Vec::new(),
            api_error: None,
            stopped: None,
        }
    }

    /// Whether the turn was cut short for a fork.
    pub(super) fn cut_for_fork(&self) -> bool {
        self.output == Output::CutForFork
    }

    /// Before each message: when the agent asked to enter a fork, the CLI is interrupted and
    /// nothing more is shown (AGT-18).
    pub(super) fn check_fork_request(&mut self, handle: &ClientHandle) {
        if self.output == Output::Shown && self.observer.fork_requested() {
            self.turn.emit(TurnEvent::ForkRequested);
            self.output = Output::CutForFork;
            if let Err(error) = handle.interrupt_nowait() {
                tracing::debug!(%error, "could not interrupt for the fork");
            }
        }
    }

    fn emit(&self, event: TurnEvent) {
        if self.output == Output::Shown {
            self.turn.emit(event);
        }
    }

    fn show(&mut self, text: &str) {
        if !text.is_empty() && self.output == Output::Shown {
            self.shown.push_str(text);
            self.turn.emit(TurnEvent::TextDelta(text.to_owned()));
        }
    }

    /// Shows `text` on a line of its own after what was shown.
    fn show_line(&mut self, text: &str) {
        let separator = if self.shown.is_empty() { "" } else { "\n" };
        self.show(&format!("{separator}{text}"));
    }

    /// Takes one message; returns the report once the turn's `result` came.
    pub(super) fn on(&mut self, message: Message, handle: &ClientHandle) -> Option<TurnReport> {
        for id in self.held_failures.release(&message) {
            self.emit(TurnEvent::ToolFailed { id });
        }
        match message {
            Message::StreamEvent(StreamEvent::MessageStart { input_tokens }) => {
                self.streamed = self.streamed.message_started();
                self.last_input_tokens = input_tokens.or(self.last_input_tokens);
            }
            Message::StreamEvent(StreamEvent::TextDelta { text, .. }) => {
                self.streamed = Streamed::ThisMessage;
                self.compaction.answered();
                self.show(&text);
            }
            Message::Assistant(assistant) => {
                let synthetic = assistant.model == "<synthetic>";
                if synthetic && assistant.error.is_some() {
                    self.api_error = Some(assistant.text());
                    return None;
                }
                for block in &assistant.content {
                    match block {
                        ContentBlock::Text { text }
                            if synthetic || self.streamed == Streamed::Nothing =>
                        {
                            if synthetic && text == "(no content)" {
                                continue;
                            }
                            self.compaction.answered();
                            let separator = if self.shown.is_empty() || self.shown.ends_with('\n') {
                                ""
                            } else {
                                "\n"
                            };
                            self.show(&format!("{separator}{text}"));
                        }
                        ContentBlock::ToolUse { id, name, input }
                            if assistant.parent_tool_use_id.is_none()
                                && self.labelled.insert(id.clone()) =>
                        {
                            self.compaction.answered();
                            self.subagent_status.called(id, name, input);
                            self.emit(TurnEvent::ToolUse {
                                id: id.clone(),
                                label: tool_label(name, input),
                            });
                        }
                        ContentBlock::ToolUse { name, .. } => {
                            let parent = assistant.parent_tool_use_id.as_deref();
                            if let Some(label) = self.subagent_status.label(parent, name) {
                                self.emit(TurnEvent::SubagentActivity(label));
                            }
                        }
                        _ => {}
                    }
                }
            }
            Message::User(user) => {
                self.subagents.extend(user.subagent.clone());
                for block in &user.content {
                    if let ContentBlock::ToolResult {
                        tool_use_id,
                        is_error: true,
                        ..
                    } = block
                    {
                        self.held_failures.failed(tool_use_id);
                    }
                }
                if user.is_replay {
                    self.command_output.push(strip_command_tags(&user.text()));
                }
            }
            Message::System(system) => self.on_system(system, handle),
            Message::Result(result) => return Some(self.finish(result)),
            Message::Unknown { kind, .. } => {
                tracing::debug!(kind, "skipping an unknown CLI message");
            }
            _ => {}
        }
        None
    }

    /// The turn's `result` came: the failure line or the result text where nothing was
    /// shown, and the report.
    fn finish(&mut self, result: crate::claude::ResultMessage) -> TurnReport {
        self.observer.compacting(false);
        if let Some(failure) = self.stopped {
            tracing::warn!(?failure, "the model API refused the turn; not retrying");
            self.show_line(&failure.owner_text());
        } else if result.is_error && (self.api_error.is_some() || result.api_error_status.is_some())
        {
            let raw = self
                .api_error
                .take()
                .unwrap_or_else(|| result.error_summary());
            let failure = ApiFailure::classify(result.api_error_status, &raw);
            tracing::warn!(?failure, error = %raw, "the model API failed the turn");
            self.show_line(&failure.owner_text());
        } else if self.shown.is_empty()
            && !result.is_error
            && let Some(text) = result.result.as_deref()
        {
            self.show(text);
        }
        let (compaction, answered_after_compaction) =
            match std::mem::replace(&mut self.compaction, Compaction::None) {
                Compaction::None => (None, false),
                Compaction::Seen {
                    seen,
                    answered_after,
                } => (Some(seen), answered_after),
            };
        TurnReport {
            result,
            text: std::mem::take(&mut self.shown),
            compaction,
            answered_after_compaction,
            command_output: std::mem::take(&mut self.command_output),
            subagents: std::mem::take(&mut self.subagents),
            model: None,
        }
    }

    fn on_system(&mut self, system: SystemMessage, handle: &ClientHandle) {
        match system {
            SystemMessage::Status { status, .. } if status.as_deref() == Some("compacting") => {
                self.observer.compacting(true);
                self.compacting_since = Some(Instant::now());
                self.emit(TurnEvent::Compacting {
                    pre_tokens: self.last_input_tokens,
                });
            }
            SystemMessage::CompactBoundary(boundary) => {
                self.observer.compacting(false);
                let seconds = self.compacting_since.map_or(0, |t| t.elapsed().as_secs());
                self.emit(TurnEvent::Compacted {
                    pre_tokens: boundary.pre_tokens,
                    seconds,
                });
                self.compaction.boundary(CompactionSeen {
                    trigger: boundary.trigger,
                    pre_tokens: boundary.pre_tokens,
                });
                self.streamed = self.streamed.compacted();
            }
            SystemMessage::ApiRetry {
                attempt,
                max_retries,
                error_status,
            } => {
                if self.stopped.is_some() {
                    return;
                }
                tracing::info!(attempt, ?error_status, "the CLI retries the model API");
                if ApiFailure::is_permanent(error_status) {
                    self.stopped = Some(ApiFailure::classify(error_status, ""));
                    if let Err(error) = handle.interrupt_nowait() {
                        tracing::debug!(%error, "could not stop the retries");
                    }
                } else {
                    self.emit(TurnEvent::Retrying(ApiFailure::retry_line(
                        error_status,
                        attempt,
                        max_retries,
                    )));
                }
            }
            SystemMessage::Other { raw, .. } => {
                if let Some(text) = ["text", "message"]
                    .iter()
                    .find_map(|key| raw.get(*key).and_then(Value::as_str))
                {
                    self.command_output.push(text.to_owned());
                }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_is_shown_whole_only_when_nothing_of_it_streamed() {
        use Streamed::{BeforeCompaction, EarlierMessage, Nothing, ThisMessage};
        assert_eq!(Nothing.message_started(), Nothing);
        assert_eq!(ThisMessage.message_started(), EarlierMessage);
        assert_eq!(EarlierMessage.message_started(), EarlierMessage);
        // A compaction forgets earlier messages' deltas, not the message in progress's.
        assert_eq!(EarlierMessage.compacted(), Nothing);
        assert_eq!(ThisMessage.compacted(), BeforeCompaction);
        assert_eq!(BeforeCompaction.message_started(), Nothing);
    }

    #[test]
    fn an_answer_after_an_earlier_compaction_still_counts() {
        let seen = |trigger: &str| CompactionSeen {
            trigger: trigger.to_owned(),
            pre_tokens: None,
        };
        let mut compaction = Compaction::None;
        compaction.answered();
        assert_eq!(compaction, Compaction::None);
        compaction.boundary(seen("auto"));
        compaction.answered();
        compaction.boundary(seen("manual"));
        assert_eq!(
            compaction,
            Compaction::Seen {
                seen: seen("manual"),
                answered_after: true
            }
        );
    }
}
