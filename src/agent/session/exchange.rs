//! Whole exchanges: a turn rendered by the front end, then every fork transition it asked for
//! (IFK-2, IFK-3, IFK-6, IFK-10, IFK-11, RPL-1, BTN-4): each turn under its conversation's
//! lock, each transition under main's and then that fork's.

use std::sync::Arc;

use tokio::sync::mpsc;
use tracing::Instrument;

use super::{
    Held, MainSession, NoRoom, Prompt, PromptSource, Target, fork::ForkStart,
    fork_registry::HeldFork,
};
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
    /// No other fork may open now (`/fork`, resume, issue 41 §1).
    #[error("{}", .0.owner_text())]
    NoRoom(NoRoom),
    /// No fork is open (fork buttons).
    #[error("fork already ended.")]
    NoFork,
    /// The fork could not be started.
    #[error(transparent)]
    Agent(#[from] AgentError),
}

impl MainSession {
    /// One owner exchange through a door of main (the DM, the home channel, the terminal):
    /// the turn (in main, or in the fork without a place of its own, IFK-1), rendered by the
    /// front end, then any fork entry or exit it asked for. Returns the owner turn's report.
    pub async fn exchange(&self, prompt: Prompt) -> Result<TurnReport, AgentError> {
        self.exchange_in(Target::MainDoor, prompt).await
    }

    /// [`Self::exchange`] addressed to `target`: a fork's own place (its thread, CHN-6) talks
    /// to that fork.
    pub async fn exchange_in(
        &self,
        target: Target,
        prompt: Prompt,
    ) -> Result<TurnReport, AgentError> {
        self.owner_exchange(target, prompt, false).await
    }

    /// A button's prompt (BTN-4), like [`Self::exchange_in`]; in main, an `enter_fork` call of
    /// its turn is dropped and the turn goes on.
    pub async fn button_exchange(
        &self,
        target: Target,
        prompt: Prompt,
    ) -> Result<TurnReport, AgentError> {
        self.owner_exchange(target, prompt, true).await
    }

    /// One owner turn in `target`, then what it led to (forks opened or ended); `button`: a
    /// button's turn, which opens no fork from main.
    async fn owner_exchange(
        &self,
        target: Target,
        prompt: Prompt,
        button: bool,
    ) -> Result<TurnReport, AgentError> {
        let mut held = self.hold(target).await;
        // Only main's own button turn sets the flag (a turn in a fork's thread beside it
        // must not clear it): main's lock is held meanwhile.
        let no_forks = button && matches!(held, Held::Main(_));
        if no_forks {
            self.fork_control.set_button_turn(true);
        }
        let report = self
            .rendered_turn(&mut held, prompt, PromptSource::Owner)
            .await;
        if no_forks {
            self.fork_control.set_button_turn(false);
        }
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
        // The chain and the job's own tools are the running conversation's: a turn of another
        // beside it never sees them.
        let (chain, rules) = match &held {
            Held::Main(state) => (Arc::clone(&state.chain), Some(Arc::clone(&state.rules))),
            Held::Fork(fork) => match fork.get() {
                Some(fork) => (Arc::clone(&fork.chain), fork.tools.rules()),
                None => (Arc::default(), None),
            },
        };
        chain.set(job.chain);
        // The job's own tools, for its turn only (issue 23 §4); a resumed run's fork keeps its
        // run's set, which nothing widens.
        let grant = rules
            .as_ref()
            .map(|rules| rules.grant_job_turn(job.granted));
        let report = self
            .rendered_turn(
                &mut held,
                Prompt {
                    lead: job.prompt.lead,
                    ..Prompt::text(job.prompt.text).answered_in(TurnPlace::Unasked)
                },
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
        let idle = self.services.runtime.current().fork_idle_timeout;
        let prompt = started_prompt(topic.as_deref());
        // The fork opens where the command was run (a thread there, in the home channel).
        self.front_end.answer_in(place, Branch::Main);
        let start = ForkStart::Branch {
            topic,
            idle_timeout_minutes: idle,
        };
        let fork = self.open_fork(&mut state, start).await?;
        drop(state);
        let outcome = self
            .rendered_turn(
                &mut Held::Fork(fork),
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
        self.front_end.answer_in(prompt.place, Branch::Main);
        let start = ForkStart::Resume { session_id, origin };
        let fork = self.open_fork(&mut state, start).await?;
        drop(state);
        let report = self
            .rendered_turn(&mut Held::Fork(fork), prompt, PromptSource::Owner)
            .await;
        self.settle().await;
        Ok(report?)
    }

    /// A click on a fork entry embed's buttons (IFK-10), given in `branch` (the fork's thread,
    /// or main's place for a fork without one) and answered at `place`: Save promotes
    /// directly, Report asks the agent for a summary first, Exit discards.
    pub async fn fork_button(
        &self,
        action: ExitAction,
        place: TurnPlace,
        branch: Branch,
    ) -> Result<(), ForkCommandError> {
        let Branch::Fork(id) = branch else {
            return Err(ForkCommandError::NoFork);
        };
        let Some(entry) = self.forks.get(id) else {
            return Err(ForkCommandError::NoFork);
        };
        let held = entry.lock().await;
        if !held.is_open() {
            return Err(ForkCommandError::NoFork);
        }
        let summary = if action == ExitAction::Report {
            let started = self.services.clock.now();
            let outcome = self
                .rendered_turn(
                    &mut Held::Fork(held),
                    Prompt::text(REPORT_BUTTON_PROMPT).answered_in(place),
                    PromptSource::Owner,
                )
                .await;
            if let Err(error) = outcome {
                tracing::warn!(%error, "the report turn failed");
            }
            self.fork_control.take_exit_of(id);
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
            drop(held);
            None
        };
        let mut state = self.state.lock().await;
        let mut held = entry.lock().await;
        if held.is_open() {
            entry.front_end.answer_in(place, branch);
            self.close_fork(&mut state, &mut held, action, summary)
                .await;
        }
        drop((state, held));
        self.settle().await;
        Ok(())
    }

    /// The idle check (IFK-11, IFK-12): run every minute, for each open fork. It waits for a
    /// fork turn or a stop of the fork's CLI in progress rather than skip the minute: after a
    /// turn the owner's activity is fresh and nothing is due; after a stop the check-in wakes
    /// the CLI. The forks are checked side by side: one fork's long turn never delays
    /// another's.
    pub async fn check_idle(self: &Arc<Self>) {
        let mut checks = tokio::task::JoinSet::new();
        for entry in self.forks.all() {
            let session = Arc::clone(self);
            let check = async move {
                let held = entry.lock().await;
                session.check_idle_of(held).await;
            };
            checks.spawn(check.in_current_span());
        }
        // Dropped (shutdown), the set stops the checks with it.
        while checks.join_next().await.is_some() {}
    }

    /// The idle check of the held fork.
    async fn check_idle_of(&self, held: HeldFork) {
        let id = held.id();
        let Some(fork) = held.get() else {
            return;
        };
        let minutes = fork.idle.timeout_minutes();
        let prompt = match fork.idle.step(self.services.clock.instant()) {
            IdleStep::Wait => return,
            IdleStep::CheckIn => {
                // In the fork's own place (its thread), whatever main did last (CHN-6).
                let front_end = Arc::clone(&held.entry.front_end);
                front_end.answer_in(TurnPlace::Conversation, Branch::Fork(id));
                match front_end.send_text(IDLE_NOTE.to_owned()).await {
                    Ok(message) => self.fork_control.note_message_opt(id, message),
                    Err(error) => tracing::warn!(%error, "could not post the idle note"),
                }
                idle_prompt(minutes)
            }
            IdleStep::Escalate => {
                // The escalation asks the agent to end the fork, which the exit tools allow
                // only once the owner has spoken (IFK-17): it speaks for the owner here.
                self.fork_control.owner_spoke(id);
                escalated_idle_prompt(minutes)
            }
        };
        let mut held = Held::Fork(held);
        let outcome = self
            .rendered_turn(&mut held, Prompt::text(prompt), PromptSource::System)
            .await;
        if let Err(error) = outcome {
            tracing::warn!(%error, "the idle check-in failed");
        }
        if let Held::Fork(held) = &mut held
            && let Some(fork) = held.get_mut()
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
        if let Held::Fork(fork) = held {
            self.record_fork_messages(fork, message_ids);
        }
        report
    }

    /// Acts on what the last turn asked for until nothing is left: exits first, then a fork
    /// entry with its first reply; a fork whose CLI died is closed. Takes main's lock, then
    /// the fork's, only when there is something to do.
    async fn settle(&self) {
        for _ in 0..8 {
            if let Some((id, action)) = self.fork_control.take_exit() {
                let mut state = self.state.lock().await;
                if let Some(entry) = self.forks.get(id) {
                    let mut held = entry.lock().await;
                    self.close_fork(&mut state, &mut held, action, None).await;
                }
                continue;
            }
            if let Some(request) = self.fork_control.take_enter() {
                self.enter_requested(request).await;
                continue;
            }
            for entry in self.forks.all() {
                let lost = entry
                    .try_lock()
                    .is_some_and(|held| held.get().is_some_and(|fork| fork.cli.is_lost()));
                if !lost {
                    continue;
                }
                let mut state = self.state.lock().await;
                let mut held = entry.lock().await;
                if held.get().is_some_and(|fork| fork.cli.is_lost()) {
                    let note = Some("the fork's connection was lost.".to_owned());
                    self.close_fork(&mut state, &mut held, ExitAction::Exit, note)
                        .await;
                }
            }
            return;
        }
        tracing::warn!("too many fork transitions in one exchange; stopping here");
    }

    /// Opens the fork an `enter_fork` call asked for and runs its first reply (IFK-3); the
    /// owner hears why where none could open.
    async fn enter_requested(&self, request: crate::domain::fork_control::EnterRequest) {
        let mut state = self.state.lock().await;
        let topic = request.topic.clone();
        let start = ForkStart::Branch {
            topic: request.topic,
            idle_timeout_minutes: request.idle_timeout_minutes,
        };
        let fork = match self.open_fork(&mut state, start).await {
            Ok(fork) => fork,
            Err(error) => {
                tracing::warn!(%error, "could not open the fork");
                let text = format!("could not open the fork: {error}");
                let _ = self.front_end.send_text(text).await;
                return;
            }
        };
        drop(state);
        let prompt = Prompt::text(started_prompt(topic.as_deref()));
        if let Err(error) = self
            .rendered_turn(&mut Held::Fork(fork), prompt, PromptSource::System)
            .await
        {
            tracing::warn!(%error, "the fork's first turn failed");
        }
    }
}
