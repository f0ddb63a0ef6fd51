//! Whole exchanges: a turn rendered by the front end, then every fork transition it asked for
//! (IFK-2, IFK-3, IFK-6, IFK-10, IFK-11, RPL-1, BTN-4): each turn under its conversation's
//! lock, each transition under main's and then the fork's.

use std::sync::Arc;

use tokio::sync::mpsc;

use super::{Held, MainSession, Prompt, PromptSource, Target, fork::ForkStart};
use crate::{
    agent::interactive_fork::{
        IDLE_NOTE, IdleStep, REPORT_BUTTON_PROMPT, escalated_idle_prompt, idle_prompt,
        started_prompt,
    },
    agent::{AgentError, TurnReport},
    domain::fork_control::ExitAction,
    front_end::{Branch, TurnPlace},
    scheduling::job_sink::ForegroundJob,
    state::fork_messages::SessionOrigin,
};

/// Why a fork command could not run.
#[derive(Debug, thiserror::Error)]
pub enum ForkCommandError {
    /// A fork is already open (`/fork`, resume).
    #[error("already in a fork.")]
    AlreadyInFork,
    /// No fork is open (fork buttons).
    #[error("fork already ended.")]
    NoFork,
    /// The fork could not be started.
    #[error(transparent)]
    Agent(#[from] AgentError),
}

impl MainSession {
    /// One owner exchange: the turn (in the open fork, else in main), rendered by the front
    /// end, then any fork entry or exit it asked for. Returns the owner turn's report.
    pub async fn exchange(&self, prompt: Prompt) -> Result<TurnReport, AgentError> {
        let mut held = self.hold(Target::Active).await;
        let report = self
            .rendered_turn(&mut held, prompt, PromptSource::Owner)
            .await;
        drop(held);
        self.settle().await;
        report
    }

    /// An owner exchange that came through a door of the main conversation (the DM, the home
    /// channel): main's while the open fork has a place of its own (a thread, CHN-6), else
    /// like [`Self::exchange`].
    pub async fn exchange_from_main(&self, prompt: Prompt) -> Result<TurnReport, AgentError> {
        let mut held = self.hold(Target::MainDoor).await;
        let report = self
            .rendered_turn(&mut held, prompt, PromptSource::Owner)
            .await;
        drop(held);
        self.settle().await;
        report
    }

    /// A foreground routine or reminder (CTX-9): waits for the lock, so it never interrupts
    /// the owner, then runs like any turn (in the open fork if there is one). A chain
    /// reminder is available to `follow_up_chain` for the duration of the turn (REM-8), and
    /// so are the tools the owner granted the job (issue 23 §4).
    pub async fn scheduled(&self, job: ForegroundJob) -> Result<TurnReport, AgentError> {
        let mut held = self.hold(Target::MainDoor).await;
        // The chain is the running conversation's: a fork turn beside it never sees it.
        let chain = match &held {
            Held::Main(state) => Arc::clone(&state.chain),
            Held::Fork(slot) => match slot.get() {
                Some(fork) => Arc::clone(&fork.chain),
                None => Arc::default(),
            },
        };
        chain.set(job.chain);
        // The job's own tools, for its turn only (issue 23 §4).
        let grant = self.live_rules.grant_job_turn(job.granted);
        let report = self
            .rendered_turn(
                &mut held,
                Prompt::text(job.prompt).answered_in(TurnPlace::Unasked),
                PromptSource::System,
            )
            .await;
        drop(grant);
        chain.set(None);
        drop(held);
        self.settle().await;
        report
    }

    /// `/fork [topic]`: opens a fork, streams its first reply (at `place`, where the command
    /// was run), then settles (IFK-2).
    pub async fn open_fork_command(
        &self,
        topic: Option<String>,
        place: TurnPlace,
    ) -> Result<(), ForkCommandError> {
        let mut state = self.state.lock().await;
        let mut slot = self.fork.lock().await;
        if slot.is_open() {
            return Err(ForkCommandError::AlreadyInFork);
        }
        let idle = self.services.runtime.current().fork_idle_timeout;
        let prompt = started_prompt(topic.as_deref());
        // The fork opens where the command was run (a thread there, in the home channel).
        self.front_end.answer_in(place, Branch::Main);
        let start = ForkStart::Branch {
            topic,
            idle_timeout_minutes: idle,
        };
        self.open_fork(&mut state, &mut slot, start).await?;
        drop(state);
        let outcome = self
            .rendered_turn(
                &mut Held::Fork(slot),
                Prompt::text(prompt).answered_in(place),
                PromptSource::System,
            )
            .await;
        self.settle().await;
        outcome.map(drop).map_err(ForkCommandError::from)
    }

    /// Resumes a finished fork session as an interactive fork and sends `prompt` in it: a
    /// reply to one of its messages (RPL-1) or a button on one (BTN-4).
    pub async fn resume_fork(
        &self,
        session_id: crate::claude::SessionId,
        origin: SessionOrigin,
        prompt: Prompt,
    ) -> Result<TurnReport, ForkCommandError> {
        let mut state = self.state.lock().await;
        let mut slot = self.fork.lock().await;
        if slot.is_open() {
            return Err(ForkCommandError::AlreadyInFork);
        }
        self.front_end.answer_in(prompt.place, Branch::Main);
        let start = ForkStart::Resume { session_id, origin };
        self.open_fork(&mut state, &mut slot, start).await?;
        drop(state);
        let report = self
            .rendered_turn(&mut Held::Fork(slot), prompt, PromptSource::Owner)
            .await;
        self.settle().await;
        Ok(report?)
    }

    /// A click on the fork entry embed's buttons (IFK-10), answered at `place`: Save promotes
    /// directly, Report asks the agent for a summary first, Exit discards.
    pub async fn fork_button(
        &self,
        action: ExitAction,
        place: TurnPlace,
    ) -> Result<(), ForkCommandError> {
        let slot = self.fork.lock().await;
        if !slot.is_open() {
            return Err(ForkCommandError::NoFork);
        }
        let summary = if action == ExitAction::Report {
            let started = self.services.clock.now();
            let outcome = self
                .rendered_turn(
                    &mut Held::Fork(slot),
                    Prompt::text(REPORT_BUTTON_PROMPT).answered_in(place),
                    PromptSource::Owner,
                )
                .await;
            if let Err(error) = outcome {
                tracing::warn!(%error, "the report turn failed");
            }
            self.fork_control.take_exit();
            let written = self
                .services
                .pending
                .peek()
                .into_iter()
                .rev()
                .find(|update| update.ts >= started)
                .map(|update| update.message);
            Some(written.unwrap_or_else(|| "no summary reported".to_owned()))
        } else {
            drop(slot);
            None
        };
        let mut state = self.state.lock().await;
        let mut slot = self.fork.lock().await;
        if slot.is_open() {
            self.front_end_of(Branch::Fork)
                .answer_in(place, Branch::Fork);
            self.close_fork(&mut state, &mut slot, action, summary)
                .await;
        }
        drop((state, slot));
        self.settle().await;
        Ok(())
    }

    /// The idle check (IFK-11, IFK-12): run every minute. It waits for a fork turn or a stop
    /// of the fork's CLI in progress rather than skip the minute: after a turn the owner's
    /// activity is fresh and nothing is due; after a stop the check-in wakes the CLI.
    pub async fn check_idle(&self) {
        let slot = self.fork.lock().await;
        let Some(fork) = slot.get() else {
            return;
        };
        let minutes = fork.idle.timeout_minutes();
        let prompt = match fork.idle.step(self.services.clock.instant()) {
            IdleStep::Wait => return,
            IdleStep::CheckIn => {
                // In the fork's own place (its thread), whatever main did last (CHN-6).
                let front_end = self.front_end_of(Branch::Fork);
                front_end.answer_in(TurnPlace::Conversation, Branch::Fork);
                match front_end.send_text(IDLE_NOTE.to_owned()).await {
                    Ok(id) => self.fork_control.note_message_opt(id),
                    Err(error) => tracing::warn!(%error, "could not post the idle note"),
                }
                idle_prompt(minutes)
            }
            IdleStep::Escalate => {
                // The escalation asks the agent to end the fork, which the exit tools allow
                // only once the owner has spoken (IFK-17): it speaks for the owner here.
                self.fork_control.owner_spoke();
                escalated_idle_prompt(minutes)
            }
        };
        let mut held = Held::Fork(slot);
        let outcome = self
            .rendered_turn(&mut held, Prompt::text(prompt), PromptSource::System)
            .await;
        if let Err(error) = outcome {
            tracing::warn!(%error, "the idle check-in failed");
        }
        if let Held::Fork(slot) = &mut held
            && let Some(fork) = slot.get_mut()
        {
            fork.idle.checked_in(self.services.clock.instant());
        }
        drop(held);
        self.settle().await;
    }

    /// Runs one turn on the held conversation with its front end rendering it, and records
    /// the fork's messages.
    pub(super) async fn rendered_turn(
        &self,
        held: &mut Held<'_>,
        prompt: Prompt,
        source: PromptSource,
    ) -> Result<TurnReport, AgentError> {
        let branch = held.branch();
        let front_end = self.front_end_of(branch);
        front_end.answer_in(prompt.place, branch);
        let (events, rendered) = mpsc::unbounded_channel();
        let render = front_end.render_turn(rendered);
        let turn = self.turn_held(held, prompt, events, source);
        let (report, message_ids) = tokio::join!(turn, render);
        if let Held::Fork(slot) = held {
            self.record_fork_messages(slot, message_ids);
        }
        report
    }

    /// Acts on what the last turn asked for until nothing is left: exits first, then a fork
    /// entry with its first reply; a fork whose CLI died is closed. Takes main's lock, then
    /// the fork's, only when there is something to do.
    async fn settle(&self) {
        for _ in 0..8 {
            if let Some(action) = self.fork_control.take_exit() {
                let mut state = self.state.lock().await;
                let mut slot = self.fork.lock().await;
                if slot.is_open() {
                    self.close_fork(&mut state, &mut slot, action, None).await;
                }
                continue;
            }
            if let Some(request) = self.fork_control.take_enter() {
                let mut state = self.state.lock().await;
                let mut slot = self.fork.lock().await;
                if slot.is_open() {
                    continue;
                }
                let topic = request.topic.clone();
                let start = ForkStart::Branch {
                    topic: request.topic,
                    idle_timeout_minutes: request.idle_timeout_minutes,
                };
                if let Err(error) = self.open_fork(&mut state, &mut slot, start).await {
                    tracing::warn!(%error, "could not open the fork");
                    let text = format!("could not open the fork: {error}");
                    let _ = self.front_end.send_text(text).await;
                    return;
                }
                drop(state);
                let prompt = Prompt::text(started_prompt(topic.as_deref()));
                if let Err(error) = self
                    .rendered_turn(&mut Held::Fork(slot), prompt, PromptSource::System)
                    .await
                {
                    tracing::warn!(%error, "the fork's first turn failed");
                }
                continue;
            }
            let lost = self
                .fork
                .try_lock()
                .is_ok_and(|slot| slot.get().is_some_and(|fork| fork.cli.is_lost()));
            if lost {
                let mut state = self.state.lock().await;
                let mut slot = self.fork.lock().await;
                if slot.get().is_some_and(|fork| fork.cli.is_lost()) {
                    let note = Some("the fork's connection was lost.".to_owned());
                    self.close_fork(&mut state, &mut slot, ExitAction::Exit, note)
                        .await;
                }
            }
            return;
        }
        tracing::warn!("too many fork transitions in one exchange; stopping here");
    }
}
