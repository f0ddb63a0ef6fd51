//! Running one turn on a conversation under its own lock (SES-4, SES-14, SES-18, CTX-2,
//! CTX-3, issue 41 §1): on main, with pending updates consumed, or on an open fork, with them
//! only peeked; the CLI's auto-compaction retried once, and a dead client dropped so the next
//! turn resumes.
//!
//! Forks with a place of their own (a Discord thread, CHN-6) leave main reachable beside
//! them: a message from a door of main then goes to main while each fork answers in its
//! thread.

use std::time::Duration;

use tokio::sync::MutexGuard;

use super::{
    MainSession, MainState, Phase, Prompt, PromptSource, StartFor, fork_registry::HeldFork,
};
use crate::{
    agent::{
        AgentError,
        prompt::context::{UpdatesView, command_first, compose_prompt},
        turn::{
            TurnObserver, TurnReport,
            context_usage::context_tokens,
            run_turn,
            spend::{usage_record, with_subagents},
        },
    },
    claude::{ClaudeClient, ClaudeError, StartUp, UserContent},
    front_end::{Branch, CurrentTurn, ForkId, TurnEvent, TurnSink},
    state::{history::SessionEventKind, sessions::SaveOutcome, unfinished::excerpt},
    usage::UsageKind,
};

/// Where a message, a click or a command is addressed (issue 41 §1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// A door of main (the DM, the home channel, the terminal): main, or the fork without a
    /// place of its own while one is open (IFK-1).
    MainDoor,
    /// A fork's own place (its thread): that fork while it is open, else main.
    Fork(ForkId),
}

/// The lock of the one conversation a turn runs on.
pub(super) enum Held<'a> {
    /// Main's.
    Main(MutexGuard<'a, MainState>),
    /// An open fork's (it is open while it is held).
    Fork(HeldFork),
}

impl Held<'_> {
    /// The conversation held.
    pub(super) fn branch(&self) -> Branch {
        match self {
            Held::Main(_) => Branch::Main,
            Held::Fork(fork) => Branch::Fork(fork.id()),
        }
    }
}

impl MainSession {
    /// The conversation `target` lands on now; stable while main's lock is held, since a fork
    /// opens and closes under it.
    pub fn branch_for(&self, target: Target) -> Branch {
        match target {
            Target::Fork(id) if self.fork_control.is_open(id) => Branch::Fork(id),
            Target::Fork(_) | Target::MainDoor => self
                .fork_control
                .in_place()
                .map_or(Branch::Main, Branch::Fork),
        }
    }

    /// Takes the lock of the conversation `target` lands on, and only that one: a fork's
    /// turn never waits for main's or another fork's, nor main's for a fork's. Where a fork
    /// opened or ended while it waited, it asks again.
    pub(super) async fn hold(&self, target: Target) -> Held<'_> {
        loop {
            let Branch::Fork(id) = self.branch_for(target) else {
                let main = self.state.lock().await;
                if self.branch_for(target) == Branch::Main {
                    return Held::Main(main);
                }
                continue;
            };
            let Some(entry) = self.forks.get(id) else {
                tokio::task::yield_now().await;
                continue;
            };
            let fork = entry.lock().await;
            if fork.is_open() && self.branch_for(target) == Branch::Fork(id) {
                return Held::Fork(fork);
            }
        }
    }

    /// Runs one turn for `prompt` on the held conversation, streaming events to `sink`.
    pub(super) async fn turn_held(
        &self,
        held: &mut Held<'_>,
        prompt: Prompt,
        sink: TurnSink,
        source: PromptSource,
    ) -> Result<TurnReport, AgentError> {
        match held {
            Held::Main(state) => self.main_turn(state, prompt, sink).await,
            Held::Fork(fork) => self.fork_turn(fork, prompt, sink, source).await,
        }
    }

    /// A turn of main: pending updates consumed (CTX-2), the session id saved after it.
    async fn main_turn(
        &self,
        state: &mut MainState,
        prompt: Prompt,
        sink: TurnSink,
    ) -> Result<TurnReport, AgentError> {
        self.ensure_connected(state, StartFor::Turn(&sink)).await?;
        let updates = self.services.pending.pop().unwrap_or_else(|error| {
            tracing::warn!(%error, "could not read pending updates");
            Vec::new()
        });
        if !updates.is_empty() {
            let _ = sink.send(TurnEvent::CatchingUp);
        }
        let content = self.content(&prompt, &updates, UpdatesView::Consume);
        let model = state.settings.model.clone();
        let turn = state.turn.clone();
        let on = (state.client.as_mut(), Branch::Main);
        let outcome = self.streamed(on, &turn, sink, &content, model).await;
        // The idle time counts from the end of the reply (issue 29).
        self.touch();
        let report = self.finish_turn(state, outcome).await?;
        let forks = self.forks.all();
        if !forks.is_empty() {
            // Main went on beside the forks' threads: kept for a Save of each (CHN-7).
            let line = self.exchange_line(&prompt, &report);
            for fork in forks {
                fork.meanwhile.lock().push(line.clone());
            }
        }
        state.turns_since_compaction = if report.compaction.is_some() {
            1
        } else {
            state.turns_since_compaction + 1
        };
        Ok(report)
    }

    /// One exchange as a line of a note: what the owner said and what was answered.
    fn exchange_line(&self, prompt: &Prompt, report: &TurnReport) -> String {
        format!(
            "{} said: {} — you answered: {}",
            self.services.config.user_name,
            excerpt(prompt.words()),
            excerpt(&report.text)
        )
    }

    /// A turn of an open fork: pending updates only peeked (CTX-3); the owner's prompts count
    /// as activity (IFK-11, IFK-17).
    async fn fork_turn(
        &self,
        held: &mut HeldFork,
        prompt: Prompt,
        sink: TurnSink,
        source: PromptSource,
    ) -> Result<TurnReport, AgentError> {
        self.ensure_fork_connected(held, StartUp::TurnFirst).await?;
        let updates = self.services.pending.peek();
        let id = held.id();
        let Some(fork) = held.get_mut() else {
            return Err(ClaudeError::Closed.into());
        };
        if source == PromptSource::Owner {
            fork.idle.owner_activity(self.services.clock.instant());
            self.fork_control.owner_spoke(id);
        }
        let content = self.content(&prompt, &updates, UpdatesView::Peek);
        let model = fork.settings.model.clone();
        let turn = fork.turn.clone();
        let on = (fork.cli.client_mut(), Branch::Fork(id));
        let outcome = self.streamed(on, &turn, sink, &content, model).await;
        fork.touch(self.services.clock.instant());
        if let Ok(report) = &outcome
            && source == PromptSource::Owner
        {
            // Kept for the other forks, should this one be saved (CHN-7).
            let line = self.exchange_line(&prompt, report);
            held.entry.said.lock().push(line);
        }
        self.finish_fork_turn(held, outcome)
    }

    /// Runs `content` on `branch`'s client with its events going to `sink` meanwhile, and
    /// books the spend; the report names `model`, the one the client was set to.
    async fn streamed(
        &self,
        (client, branch): (Option<&mut ClaudeClient>, Branch),
        turn: &CurrentTurn,
        sink: TurnSink,
        content: &UserContent,
        model: Option<String>,
    ) -> Result<TurnReport, ClaudeError> {
        turn.begin(sink);
        let outcome = match client {
            Some(client) => {
                self.run_with_compaction_retry(client, turn, content, branch)
                    .await
            }
            None => Err(ClaudeError::Closed),
        };
        turn.end();
        let outcome = outcome.map(|report| TurnReport { model, ..report });
        let kind = match branch {
            Branch::Main => UsageKind::Main,
            Branch::Fork(_) => UsageKind::Fork,
        };
        self.record_usage(kind, &outcome);
        outcome
    }

    /// The prompt as the CLI gets it: the owner's text with the time and updates (CTX-2/3),
    /// images first, a job's slash command before it all (CTX-11).
    fn content(
        &self,
        prompt: &Prompt,
        updates: &[crate::state::pending::PendingUpdate],
        view: UpdatesView,
    ) -> UserContent {
        let now = self
            .services
            .clock
            .now()
            .with_timezone(&self.services.config.timezone);
        let text = compose_prompt(&prompt.text, now, updates, view);
        let text = match &prompt.lead {
            Some(command) => command_first(command, &text),
            None => text,
        };
        UserContent::with_images(&text, &prompt.images)
    }

    /// Books a finished turn's spend, its subagents' with it.
    fn record_usage(&self, kind: UsageKind, outcome: &Result<TurnReport, ClaudeError>) {
        if let Ok(report) = outcome {
            let record = usage_record(kind, None, &report.result, self.services.clock.now());
            for record in with_subagents(record, &report.subagents) {
                self.services.usage.record(record);
            }
        }
    }

    async fn run_with_compaction_retry(
        &self,
        client: &mut ClaudeClient,
        turn: &CurrentTurn,
        content: &UserContent,
        branch: Branch,
    ) -> Result<TurnReport, ClaudeError> {
        let report = self.run_once(client, turn, content, branch).await?;
        let unanswered_auto_compaction = report
            .compaction
            .as_ref()
            .is_some_and(|c| c.trigger == "auto" && !report.answered_after_compaction);
        let cut_for_fork = branch == Branch::Main && self.fork_control.enter_requested();
        if unanswered_auto_compaction && !report.result.was_interrupted() && !cut_for_fork {
            // SES-14: the CLI compacted and ended the turn without answering; ask again once.
            tracing::info!("auto-compaction ended the turn unanswered; sending the message again");
            let mut retry = self.run_once(client, turn, content, branch).await?;
            retry.compaction = report.compaction;
            return Ok(retry);
        }
        Ok(report)
    }

    /// Sends `content` to `branch`'s client and runs the turn; interrupts addressed to
    /// `branch` go to that client meanwhile.
    pub(super) async fn run_once(
        &self,
        client: &mut ClaudeClient,
        turn: &CurrentTurn,
        content: &UserContent,
        branch: Branch,
    ) -> Result<TurnReport, ClaudeError> {
        self.set_live(branch, Some(client));
        let _replying = self.replying(branch);
        // What the CLI does for this turn (tool calls, approvals) logs under the turn.
        let handle = client.handle();
        handle.serve_under(Some(tracing::Span::current()));
        let _served = ServedTurn(handle);
        client.send(content)?;
        tracing::debug!(target: "ollim_bot::latency", "prompt written to the CLI");
        run_turn(
            client,
            turn,
            &TurnWatch {
                session: self,
                branch,
            },
            Some(self.services.config.turn_idle_limit),
        )
        .await
    }

    /// Saves the session id after a turn (SES-4), or drops a dead client so the next message
    /// resumes the same session in a new process (SES-18).
    pub(super) async fn finish_turn(
        &self,
        state: &mut MainState,
        outcome: Result<TurnReport, ClaudeError>,
    ) -> Result<TurnReport, AgentError> {
        match outcome {
            Ok(report) => {
                if let Some(usage) = &report.result.usage {
                    state.last_input_tokens = Some(context_tokens(usage));
                }
                if let Some(id) = state.client.as_ref().and_then(|c| c.session_id().cloned()) {
                    let saved = self.services.sessions.save(&id)?;
                    if report.compaction.is_some() && saved == SaveOutcome::Unchanged {
                        // CLIs 2.1.197 to 2.1.332 keep the id on compaction; log it here (F-32:
                        // exactly one `compacted` per compaction, manual or automatic).
                        self.services
                            .sessions
                            .log(&id, SessionEventKind::Compacted, Some(&id))?;
                    }
                }
                Ok(report)
            }
            Err(error) => {
                tracing::warn!(%error, "the CLI connection was lost; the next message resumes the session");
                if let Some(client) = self.take_client(state) {
                    client.disconnect(Duration::ZERO).await;
                }
                Err(error.into())
            }
        }
    }
}

/// How a conversation watches its turns: it remembers compaction (interrupts are ignored
/// meanwhile, AGT-14), and main's turn is cut short when the agent asked to enter a fork
/// (AGT-18).
struct TurnWatch<'a> {
    session: &'a MainSession,
    branch: Branch,
}

impl TurnObserver for TurnWatch<'_> {
    fn compacting(&self, active: bool) {
        self.session.with_live(self.branch, |side| {
            // Only inside a reply: a late frame after it ended leaves the conversation idle.
            if side.phase != Phase::Idle {
                side.phase = if active {
                    Phase::Compacting
                } else {
                    Phase::Replying
                };
            }
        });
    }

    fn fork_requested(&self) -> bool {
        self.branch == Branch::Main && self.session.fork_control.enter_requested()
    }
}

/// Puts a client back to serving under the span that connected it when a turn ends.
struct ServedTurn(crate::claude::ClientHandle);

impl Drop for ServedTurn {
    fn drop(&mut self) {
        self.0.serve_under(None);
    }
}
