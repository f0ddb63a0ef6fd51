//! Opening, running and closing the interactive fork (IFK-1…21, SES-8, SES-10, SES-16).
//!
//! All of it runs under the session lock, so a fork changes hands between turns only.

use crate::front_end::Branch;
use std::sync::Arc;

use super::{
    MainSession, MainSettings, MainState, fork_cli::ForkCli, fork_save::saved_description,
};
use crate::{
    agent::interactive_fork::{
        IdleClock, NOTHING_TO_SAVE, entry_embed, exit_embed, resumed_run_embed,
    },
    agent::{
        AgentError,
        client::main_client::{ClientTools, MainClientParts},
        turn::context_usage::HAIKU_CONTEXT_LIMIT,
    },
    claude::{ClaudeError, PermissionMode, SessionId, StartUp},
    domain::fork_control::{ExitAction, ForkBegin, ForkFacts},
    mcp::{ToolScope, availability::ScopeCell},
    state::{
        fork_messages::{RecordedSession, SessionOrigin},
        history::SessionEventKind,
    },
};

/// The half of the open interactive fork that needs the session lock. Its other half, the
/// facts the tools read without the lock (owner turns, resumed, main at start, newest update
/// at start, unrecorded messages), lives only in [`ForkControl`](crate::domain::fork_control).
pub(super) struct ActiveFork {
    /// Its CLI, up or asleep (REST-1).
    pub(super) cli: ForkCli,
    /// When the fork last did something: its CLI sleeps once this is the idle time ago.
    last_active: tokio::time::Instant,
    /// The scope cell its tools read; switched to main when the fork is saved (SES-10).
    pub(super) scope: Arc<ScopeCell>,
    /// Whether `interactive_fork` was logged for it yet (SES-8).
    logged: bool,
    pub(super) idle: IdleClock,
    /// Model, thinking and permission mode its client runs with.
    pub(super) settings: MainSettings,
    /// Whose session it is: the main session's tools or a background run's (issue 23 §4).
    pub(super) origin: SessionOrigin,
    /// The fork has a place of its own (a Discord thread), so main stays reachable (CHN-6).
    pub(super) beside_main: bool,
    /// What happened in main meanwhile, one line per exchange, for a Save (CHN-7).
    pub(super) main_meanwhile: Vec<String>,
}

/// Where the open fork's locked half is kept in [`MainState`]. Only
/// [`MainSession::install_fork`] and [`MainSession::remove_fork`] fill or empty it, and they
/// open and close the switchboard's facts in the same step, so the session's view (this slot)
/// and the tools' view ([`MainSession::in_fork`]) never disagree (IFK-1).
#[derive(Default)]
pub(super) struct ForkSlot(Option<ActiveFork>);

impl ActiveFork {
    /// Notes activity at `now`: the fork's idle time counts from here.
    pub(super) fn touch(&mut self, now: tokio::time::Instant) {
        self.last_active = now;
    }

    /// How long the fork has had nothing to do at `now`.
    pub(super) fn idle_for(&self, now: tokio::time::Instant) -> std::time::Duration {
        now.saturating_duration_since(self.last_active)
    }
}

impl ForkSlot {
    /// Whether a fork is open.
    pub(super) fn is_open(&self) -> bool {
        self.0.is_some()
    }

    /// The open fork.
    pub(super) fn get(&self) -> Option<&ActiveFork> {
        self.0.as_ref()
    }

    /// The open fork, to run a turn in it or move its idle clock.
    pub(super) fn get_mut(&mut self) -> Option<&mut ActiveFork> {
        self.0.as_mut()
    }
}

/// How a fork begins.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ForkStart {
    /// A branch of the main session (`/fork`, `enter_fork`).
    Branch {
        /// What it is about.
        topic: Option<String>,
        /// Minutes before the idle check-in.
        idle_timeout_minutes: u64,
    },
    /// A finished fork session resumed by a reply or a button (RPL-1, BTN-4).
    Resume {
        /// The session to continue.
        session_id: SessionId,
        /// Whose it was: a background run's keeps that run's tools (issue 23 §4).
        origin: SessionOrigin,
    },
}

impl MainSession {
    /// Opens an interactive fork and posts its entry embed (IFK-2, IFK-3, AGT-11, IFK-16).
    pub(super) async fn open_fork(
        &self,
        state: &mut MainState,
        start: ForkStart,
    ) -> Result<(), AgentError> {
        let runtime = self.services.runtime.current();
        let mut model = runtime.model_fork.clone().or(state.settings.model.clone());
        let mut note = None;
        let is_haiku = model.as_deref().is_some_and(|m| m.contains("haiku"));
        if is_haiku
            && state
                .last_input_tokens
                .is_some_and(|t| t > HAIKU_CONTEXT_LIMIT)
        {
            model = Some("sonnet".to_owned());
            note = Some("context exceeds haiku limit — using sonnet");
        }
        let settings = MainSettings {
            model,
            thinking: runtime.thinking_fork,
            permission_mode: state.settings.permission_mode,
        };
        let fork_settings = settings.clone();
        let main_at_start = self.services.sessions.load();
        let (resume, fork_session, topic, idle_minutes, origin) = match start {
            ForkStart::Branch {
                topic,
                idle_timeout_minutes,
            } => (
                main_at_start.clone(),
                true,
                topic,
                idle_timeout_minutes,
                None,
            ),
            ForkStart::Resume { session_id, origin } => (
                Some(session_id),
                false,
                None,
                runtime.fork_idle_timeout,
                Some(origin),
            ),
        };
        let begin = match &origin {
            None => ForkBegin::Branch,
            Some(SessionOrigin::Owner) => ForkBegin::ResumedOwn,
            Some(SessionOrigin::Background { .. }) => ForkBegin::ResumedRun,
        };
        let origin = origin.unwrap_or(SessionOrigin::Owner);
        let scope = Arc::new(ScopeCell::new(ToolScope::InteractiveFork));
        let tools = self.tools_of(&origin);
        let parts = MainClientParts {
            services: &self.services,
            front_end: &self.front_end,
            permissions: &self.permissions,
            turn: &self.turn,
            settings: &settings,
            fork_control: &self.fork_control,
            chain: &self.chain,
            scope: Arc::clone(&scope),
            fork_session,
            tools: &tools,
            start_up: StartUp::TurnFirst,
        };
        let client = parts.connect(resume).await?;
        let facts = ForkFacts {
            begin,
            main_session_at_start: main_at_start.map(|id| id.as_str().to_owned()),
            newest_update_at_start: self.services.pending.peek().last().map(|u| u.ts),
            ..ForkFacts::default()
        };
        self.set_live(Branch::Fork, Some(&client));
        // Where it is from the home channel, the fork gets a thread of its own (CHN-6).
        let thread_topic = match &origin {
            SessionOrigin::Background { job, title, .. } => {
                Some(title.clone().unwrap_or_else(|| job.clone()))
            }
            SessionOrigin::Owner => topic.clone(),
        };
        let beside_main = self.front_end.fork_opened(thread_topic).await;
        let fork = ActiveFork {
            cli: ForkCli::Up(Box::new(client)),
            last_active: self.services.clock.instant(),
            scope,
            logged: false,
            idle: IdleClock::new(idle_minutes, self.services.clock.instant()),
            settings: fork_settings,
            origin,
            beside_main,
            main_meanwhile: Vec::new(),
        };
        let embed = match &fork.origin {
            SessionOrigin::Background {
                job, allowed_tools, ..
            } => resumed_run_embed(job, allowed_tools),
            SessionOrigin::Owner => entry_embed(topic.as_deref(), note),
        };
        self.install_fork(state, fork, facts);
        match self.front_end.send_embed(embed).await {
            Ok(id) => self.fork_control.note_message_opt(id),
            Err(error) => tracing::warn!(%error, "could not post the fork entry embed"),
        }
        Ok(())
    }

    /// After a fork turn: log `interactive_fork` once (SES-8) and record the fork's messages
    /// for reply tracking (SES-16). A dead fork client is reported like a main one.
    pub(super) fn finish_fork_turn(
        &self,
        state: &mut MainState,
        outcome: Result<crate::agent::TurnReport, ClaudeError>,
    ) -> Result<crate::agent::TurnReport, AgentError> {
        let Some(fork) = state.fork.get_mut() else {
            return outcome.map_err(AgentError::from);
        };
        if let Some(id) = fork.cli.session_id().cloned()
            && !fork.logged
        {
            fork.logged = true;
            let parent = self
                .fork_control
                .main_session_at_start()
                .and_then(|id| SessionId::parse(&id).ok());
            self.services
                .sessions
                .log(&id, SessionEventKind::InteractiveFork, parent.as_ref())?;
        }
        Ok(outcome?)
    }

    /// Records the fork's sent messages under its session id (SES-16), once that id is known.
    pub(super) fn record_fork_messages(&self, state: &MainState, extra: Vec<u64>) {
        let Some(fork) = state.fork.get() else {
            return;
        };
        for id in extra {
            self.fork_control.note_message(id);
        }
        let Some(session) = fork.cli.session_id() else {
            return;
        };
        let ids = self.fork_control.take_messages();
        let parent = self.fork_control.main_session_at_start();
        self.record_messages(&ids, session, parent.as_deref(), &fork.origin);
    }

    /// Writes `ids` to `fork_messages.json` under the fork's session (SES-16), with its
    /// origin, so a reply resumes it with the same tools (issue 23 §4).
    fn record_messages(
        &self,
        ids: &[u64],
        session: &SessionId,
        parent: Option<&str>,
        origin: &SessionOrigin,
    ) {
        let session = RecordedSession {
            id: session.as_str(),
            parent,
            origin,
        };
        if let Err(error) = self.services.fork_messages.record(ids, &session) {
            tracing::warn!(%error, "could not record the fork's messages");
        }
    }

    /// The tools a fork of `origin` runs with: the main session's for the owner's own, the
    /// run's own for a background run's session (issue 23 §4).
    pub(super) fn tools_of(&self, origin: &SessionOrigin) -> ClientTools {
        match origin {
            SessionOrigin::Owner => self.main_tools.clone(),
            SessionOrigin::Background { allowed_tools, .. } => {
                ClientTools::Run(allowed_tools.as_slice().into())
            }
        }
    }

    /// Opens a fork: its locked half into the slot, its facts onto the switchboard. With
    /// [`Self::remove_fork`], the only code that changes whether a fork is open (IFK-1).
    fn install_fork(&self, state: &mut MainState, fork: ActiveFork, facts: ForkFacts) {
        self.fork_control.fork_opened(facts);
        state.fork.0 = Some(fork);
    }

    /// Closes the open fork, both halves at once: returns its locked half and its facts (with
    /// the messages not recorded yet, SES-16), or `None` if no fork was open.
    pub(super) fn remove_fork(&self, state: &mut MainState) -> Option<(ActiveFork, ForkFacts)> {
        let fork = state.fork.0.take()?;
        let facts = self.fork_control.fork_closed().unwrap_or_default();
        Some((fork, facts))
    }

    /// Ends the open fork: saved (promoted to main, SES-10), reported or discarded; posts the
    /// exit embed and restores the main session's permission mode (IFK-6…9).
    pub(super) async fn close_fork(
        &self,
        state: &mut MainState,
        action: ExitAction,
        summary: Option<String>,
    ) {
        let Some((fork_id, beside_main, meanwhile)) = state.fork.get_mut().map(|fork| {
            let meanwhile = std::mem::take(&mut fork.main_meanwhile);
            (fork.cli.session_id().cloned(), fork.beside_main, meanwhile)
        }) else {
            return;
        };
        self.front_end.cancel_approvals();
        if beside_main {
            // The outcome goes to the channel; the thread is archived (CHN-7).
            self.front_end.fork_closing().await;
        }
        let (shown, description, keep_client) = match (action, fork_id.clone()) {
            (ExitAction::Save, Some(id)) => {
                let said = saved_description(&meanwhile);
                (ExitAction::Save, Some(said), Some(id))
            }
            (ExitAction::Save, None) => (ExitAction::Exit, Some(NOTHING_TO_SAVE.to_owned()), None),
            (ExitAction::Report, _) => (
                ExitAction::Report,
                summary.or_else(|| {
                    self.services
                        .pending
                        .peek()
                        .last()
                        .map(|u| u.message.clone())
                }),
                None,
            ),
            (ExitAction::Exit, _) => (ExitAction::Exit, summary, None),
        };
        let embed = self
            .front_end
            .send_embed(exit_embed(shown, description))
            .await;
        match &embed {
            Ok(id) => self.fork_control.note_message_opt(*id),
            Err(error) => tracing::warn!(%error, "could not post the fork exit embed"),
        }
        let Some((fork, facts)) = self.remove_fork(state) else {
            return;
        };
        self.permissions
            .set_dont_ask(state.settings.permission_mode == PermissionMode::DontAsk);
        if let Some(id) = keep_client {
            self.promote(state, fork, &id).await;
            self.carry_over(&meanwhile);
            return;
        }
        if let Some(session) = &fork_id {
            self.record_messages(
                &facts.unrecorded_messages,
                session,
                facts.main_session_at_start.as_deref(),
                &fork.origin,
            );
        }
        self.set_live(Branch::Fork, None);
        fork.cli.disconnect().await;
    }

    /// Discards an open fork without a turn (`/clear`, `/thinking`, IFK-15, IFK-21). Returns
    /// whether one was open.
    pub(super) async fn discard_fork(&self, state: &mut MainState) -> bool {
        if !state.fork.is_open() {
            return false;
        }
        self.close_fork(state, ExitAction::Exit, None).await;
        true
    }
}
