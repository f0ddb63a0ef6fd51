//! Whole exchanges: a turn rendered by the front end, then every fork transition it asked for
//! (IFK-2, IFK-3, IFK-6, IFK-10, IFK-11, RPL-1, BTN-4), all under the session lock.

use tokio::sync::mpsc;

use super::{MainSession, MainState, Prompt, PromptSource, Target, fork::ForkStart};
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
        let mut state = self.state.lock().await;
        let report = self
            .rendered_turn(&mut state, prompt, PromptSource::Owner, Target::Active)
            .await;
        self.settle(&mut state).await;
        report
    }

    /// An owner exchange that came through a door of the main conversation (the DM, the home
    /// channel): main's while the open fork has a place of its own (a thread, CHN-6), else
    /// like [`Self::exchange`].
    pub async fn exchange_from_main(&self, prompt: Prompt) -> Result<TurnReport, AgentError> {
        let mut state = self.state.lock().await;
        let target = beside_the_fork(&state);
        let report = self
            .rendered_turn(&mut state, prompt, PromptSource::Owner, target)
            .await;
        self.settle(&mut state).await;
        report
    }

    /// A foreground routine or reminder (CTX-9): waits for the lock, so it never interrupts
    /// the owner, then runs like any turn (in the open fork if there is one). A chain
    /// reminder is available to `follow_up_chain` for the duration of the turn (REM-8), and
    /// so are the tools the owner granted the job (issue 23 §4).
    pub async fn scheduled(&self, job: ForegroundJob) -> Result<TurnReport, AgentError> {
        let mut state = self.state.lock().await;
        self.chain.set(job.chain);
        // The job's own tools, for its turn only (issue 23 §4).
        let grant = self.live_rules.grant_job_turn(job.granted);
        let target = beside_the_fork(&state);
        let report = self
            .rendered_turn(
                &mut state,
                Prompt::text(job.prompt).answered_in(TurnPlace::Unasked),
                PromptSource::System,
                target,
            )
            .await;
        drop(grant);
        self.chain.set(None);
        self.settle(&mut state).await;
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
        if state.fork.is_open() {
            return Err(ForkCommandError::AlreadyInFork);
        }
        let idle = self.services.runtime.current().fork_idle_timeout;
        let prompt = started_prompt(topic.as_deref());
        // The fork opens where the command was run (a thread there, in the home channel).
        self.front_end.answer_in(place, Branch::Main);
        self.open_fork(
            &mut state,
            ForkStart::Branch {
                topic,
                idle_timeout_minutes: idle,
            },
        )
        .await?;
        let outcome = self
            .rendered_turn(
                &mut state,
                Prompt::text(prompt).answered_in(place),
                PromptSource::System,
                Target::Active,
            )
            .await;
        self.settle(&mut state).await;
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
        if state.fork.is_open() {
            return Err(ForkCommandError::AlreadyInFork);
        }
        self.front_end.answer_in(prompt.place, Branch::Main);
        self.open_fork(&mut state, ForkStart::Resume { session_id, origin })
            .await?;
        let report = self
            .rendered_turn(&mut state, prompt, PromptSource::Owner, Target::Active)
            .await;
        self.settle(&mut state).await;
        Ok(report?)
    }

    /// A click on the fork entry embed's buttons (IFK-10), answered at `place`: Save promotes
    /// directly, Report asks the agent for a summary first, Exit discards.
    pub async fn fork_button(
        &self,
        action: ExitAction,
        place: TurnPlace,
    ) -> Result<(), ForkCommandError> {
        let mut state = self.state.lock().await;
        if !state.fork.is_open() {
            return Err(ForkCommandError::NoFork);
        }
        self.front_end.answer_in(place, Branch::Fork);
        let summary = if action == ExitAction::Report {
            let started = self.services.clock.now();
            let outcome = self
                .rendered_turn(
                    &mut state,
                    Prompt::text(REPORT_BUTTON_PROMPT),
                    PromptSource::Owner,
                    Target::Active,
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
            None
        };
        if state.fork.is_open() {
            self.close_fork(&mut state, action, summary).await;
        }
        self.settle(&mut state).await;
        Ok(())
    }

    /// The idle check (IFK-11, IFK-12): run every minute; skipped while a turn is running,
    /// since the owner is then active anyway.
    pub async fn check_idle(&self) {
        let Ok(mut state) = self.state.try_lock() else {
            return;
        };
        let Some(fork) = state.fork.get() else {
            return;
        };
        let minutes = fork.idle.timeout_minutes();
        let prompt = match fork.idle.step(self.services.clock.instant()) {
            IdleStep::Wait => return,
            IdleStep::CheckIn => {
                // In the fork's own place (its thread), whatever main did last (CHN-6).
                self.front_end
                    .answer_in(TurnPlace::Conversation, Branch::Fork);
                match self.front_end.send_text(IDLE_NOTE.to_owned()).await {
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
        let outcome = self
            .rendered_turn(
                &mut state,
                Prompt::text(prompt),
                PromptSource::System,
                Target::Active,
            )
            .await;
        if let Err(error) = outcome {
            tracing::warn!(%error, "the idle check-in failed");
        }
        if let Some(fork) = state.fork.get_mut() {
            fork.idle.checked_in(self.services.clock.instant());
        }
        self.settle(&mut state).await;
    }

    /// Runs one turn with the front end rendering it, and records the fork's messages.
    pub(super) async fn rendered_turn(
        &self,
        state: &mut MainState,
        prompt: Prompt,
        source: PromptSource,
        target: Target,
    ) -> Result<TurnReport, AgentError> {
        self.front_end.answer_in(prompt.place, state.branch(target));
        let (events, rendered) = mpsc::unbounded_channel();
        let render = self.front_end.render_turn(rendered);
        let turn = self.turn_locked(state, prompt, events, source, target);
        let (report, message_ids) = tokio::join!(turn, render);
        self.record_fork_messages(state, message_ids);
        report
    }

    /// Acts on what the last turn asked for until nothing is left: exits first, then a fork
    /// entry with its first reply; a fork whose CLI died is closed.
    async fn settle(&self, state: &mut MainState) {
        for _ in 0..8 {
            if let Some(action) = self.fork_control.take_exit()
                && state.fork.is_open()
            {
                self.close_fork(state, action, None).await;
                continue;
            }
            if let Some(request) = self.fork_control.take_enter() {
                if state.fork.is_open() {
                    continue;
                }
                let topic = request.topic.clone();
                let start = ForkStart::Branch {
                    topic: request.topic,
                    idle_timeout_minutes: request.idle_timeout_minutes,
                };
                if let Err(error) = self.open_fork(state, start).await {
                    tracing::warn!(%error, "could not open the fork");
                    let text = format!("could not open the fork: {error}");
                    let _ = self.front_end.send_text(text).await;
                    return;
                }
                let prompt = Prompt::text(started_prompt(topic.as_deref()));
                if let Err(error) = self
                    .rendered_turn(state, prompt, PromptSource::System, Target::Active)
                    .await
                {
                    tracing::warn!(%error, "the fork's first turn failed");
                }
                continue;
            }
            if state.fork.get().is_some_and(|fork| fork.cli.is_lost()) {
                let note = Some("the fork's connection was lost.".to_owned());
                self.close_fork(state, ExitAction::Exit, note).await;
            }
            return;
        }
        tracing::warn!("too many fork transitions in one exchange; stopping here");
    }
}

/// Where a turn from a door of the main conversation goes: main while the open fork has a
/// place of its own, else the open fork (IFK-1) or main.
pub(super) fn beside_the_fork(state: &MainState) -> Target {
    if state.fork.get().is_some_and(|fork| fork.beside_main) {
        Target::Main
    } else {
        Target::Active
    }
}
