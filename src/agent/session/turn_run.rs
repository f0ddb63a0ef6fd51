//! Running one turn under the session lock (SES-4, SES-14, SES-18, CTX-2, CTX-3): on the open
//! fork or on main, with pending updates consumed on main and peeked in a fork, the CLI's
//! auto-compaction retried once, and a dead client dropped so the next turn resumes.
//!
//! A fork with a place of its own (a Discord thread, CHN-6) leaves main reachable beside it:
//! a turn may then target main while the fork is open.

use std::{sync::atomic::Ordering, time::Duration};

use super::{CATCHING_UP_NOTE, MainSession, MainState, Prompt, PromptSource, StartFor};
use crate::{
    agent::{
        AgentError,
        prompt::context::{UpdatesView, compose_prompt},
        turn::{
            TurnObserver, TurnReport,
            context_usage::context_tokens,
            run_turn,
            spend::{usage_record, with_subagents},
        },
    },
    claude::{ClaudeClient, ClaudeError, StartUp, UserContent},
    front_end::{Branch, TurnEvent, TurnSink},
    state::{history::SessionEventKind, sessions::SaveOutcome, unfinished::excerpt},
    usage::UsageKind,
};

/// Which side a turn is meant for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Target {
    /// The open fork if there is one, else main (IFK-1).
    Active,
    /// Main, even while a fork with a place of its own is open (CHN-6).
    Main,
}

impl MainState {
    /// The side `target` lands on now.
    pub(super) fn branch(&self, target: Target) -> Branch {
        if target == Target::Active && self.fork.is_open() {
            Branch::Fork
        } else {
            Branch::Main
        }
    }

    /// The client of `branch`.
    pub(super) fn client_on(&mut self, branch: Branch) -> Option<&mut ClaudeClient> {
        match branch {
            Branch::Fork => self.fork.get_mut().and_then(|fork| fork.cli.client_mut()),
            Branch::Main => self.client.as_mut(),
        }
    }
}

impl MainSession {
    /// Runs one turn for `prompt` on the side `target` lands on, streaming events to `sink`.
    pub(super) async fn turn_locked(
        &self,
        state: &mut MainState,
        prompt: Prompt,
        sink: TurnSink,
        source: PromptSource,
        target: Target,
    ) -> Result<TurnReport, AgentError> {
        let branch = state.branch(target);
        let in_fork = branch == Branch::Fork;
        if in_fork {
            self.ensure_fork_connected(state, StartUp::TurnFirst)
                .await?;
        } else {
            self.ensure_connected(state, StartFor::Turn(&sink)).await?;
        }
        let (updates, view) = if in_fork {
            (self.services.pending.peek(), UpdatesView::Peek)
        } else {
            let popped = self.services.pending.pop().unwrap_or_else(|error| {
                tracing::warn!(%error, "could not read pending updates");
                Vec::new()
            });
            (popped, UpdatesView::Consume)
        };
        if !in_fork && !updates.is_empty() {
            let _ = sink.send(TurnEvent::Notice(CATCHING_UP_NOTE.to_owned()));
        }
        if let (Some(fork), PromptSource::Owner, true) = (state.fork.get_mut(), source, in_fork) {
            fork.idle.owner_activity(self.services.clock.instant());
            self.fork_control.owner_spoke();
        }
        let now = self
            .services
            .clock
            .now()
            .with_timezone(&self.services.config.timezone);
        let text = compose_prompt(&prompt.text, now, &updates, view);
        let content = UserContent::with_images(&text, &prompt.images);
        self.turn.begin(sink);
        let outcome = self
            .run_with_compaction_retry(state, &content, branch)
            .await;
        self.turn.end();
        // The idle time counts from the end of the reply (issue 29).
        match state.fork.get_mut().filter(|_| in_fork) {
            Some(fork) => fork.touch(self.services.clock.instant()),
            None => self.touch(),
        }
        if let Ok(report) = &outcome {
            let kind = if in_fork {
                UsageKind::Fork
            } else {
                UsageKind::Main
            };
            let record = usage_record(kind, None, &report.result, self.services.clock.now());
            for record in with_subagents(record, &report.subagents) {
                self.services.usage.record(record);
            }
        }
        if in_fork {
            return self.finish_fork_turn(state, outcome);
        }
        let report = self.finish_turn(state, outcome).await?;
        if let Some(fork) = state.fork.get_mut() {
            // Main went on beside the fork's thread: kept for a Save (CHN-7).
            fork.main_meanwhile.push(format!(
                "{} said: {} — you answered: {}",
                self.services.config.user_name,
                excerpt(&prompt.text),
                excerpt(&report.text)
            ));
        }
        state.turns_since_compaction = if report.compaction.is_some() {
            1
        } else {
            state.turns_since_compaction + 1
        };
        Ok(report)
    }

    async fn run_with_compaction_retry(
        &self,
        state: &mut MainState,
        content: &UserContent,
        branch: Branch,
    ) -> Result<TurnReport, ClaudeError> {
        let report = self.run_once(state, content, branch).await?;
        let unanswered_auto_compaction = report
            .compaction
            .as_ref()
            .is_some_and(|c| c.trigger == "auto" && !report.answered_after_compaction);
        if unanswered_auto_compaction
            && !report.result.was_interrupted()
            && !self.fork_control.enter_requested()
        {
            // SES-14: the CLI compacted and ended the turn without answering; ask again once.
            tracing::info!("auto-compaction ended the turn unanswered; sending the message again");
            let mut retry = self.run_once(state, content, branch).await?;
            retry.compaction = report.compaction;
            return Ok(retry);
        }
        Ok(report)
    }

    /// Sends `content` to `branch`'s client and runs the turn; interrupts go to that client
    /// meanwhile.
    pub(super) async fn run_once(
        &self,
        state: &mut MainState,
        content: &UserContent,
        branch: Branch,
    ) -> Result<TurnReport, ClaudeError> {
        let client = state.client_on(branch).ok_or(ClaudeError::Closed)?;
        self.set_live(branch, Some(client));
        let _replying = self.replying(branch);
        client.send(content)?;
        tracing::debug!(target: "ollim_bot::latency", "prompt written to the CLI");
        run_turn(
            client,
            &self.turn,
            &MainTurnObserver(self),
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

/// How the main session watches its turns: it remembers compaction (interrupts are ignored
/// meanwhile, AGT-14) and cuts a turn short when the agent asked to enter a fork (AGT-18).
struct MainTurnObserver<'a>(&'a MainSession);

impl TurnObserver for MainTurnObserver<'_> {
    fn compacting(&self, active: bool) {
        self.0.compacting.store(active, Ordering::Relaxed);
    }

    fn fork_requested(&self) -> bool {
        self.0.fork_control.enter_requested()
    }
}
