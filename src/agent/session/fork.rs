//! Opening, running and closing interactive forks (IFK-1…21, SES-8, SES-10, SES-16).
//!
//! Opening and closing run under main's lock and then the fork's, so a fork changes hands
//! between turns only; a fork's turns take its lock alone (issue 41 §1). Several forks may be
//! open, each in a place of its own (a thread); one without a place of its own is the only one.

use std::sync::Arc;

use super::{
    DISCONNECT_GRACE, ForkCommandError, MainSession, MainSettings, MainState, NoRoom,
    fork_cli::ForkCli,
    fork_registry::{ForkEntry, HeldFork},
    fork_save::saved_description,
};
use crate::front_end::CurrentTurn;
use crate::scheduling::chain::ChainSlot;
use crate::{
    agent::interactive_fork::{
        IdleClock, NOTHING_TO_SAVE, RUN_NOT_SAVED, entry_embed, exit_embed, resumed_run_embed,
    },
    agent::{
        client::main_client::{ClientTools, MainClientParts},
        permissions::{live_rules::LiveRules, policy::PermissionState},
        turn::context_usage::HAIKU_CONTEXT_LIMIT,
    },
    claude::{PermissionMode, SessionId, StartUp},
    domain::fork_control::{ExitAction, ForkBegin, ForkFacts},
    mcp::{ToolScope, availability::ScopeCell},
    state::fork_messages::SessionOrigin,
};

/// The half of an open interactive fork behind its lock. Its other half, the
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
    pub(super) logged: bool,
    pub(super) idle: IdleClock,
    /// Model, thinking and permission mode its client runs with.
    pub(super) settings: MainSettings,
    /// Whose session it is: the main session's tools or a background run's (issue 23 §4).
    pub(super) origin: SessionOrigin,
    /// The sink its client's callbacks emit into while a fork turn runs.
    pub(super) turn: CurrentTurn,
    /// The chain reminder a foreground fire in the fork is running (REM-8).
    pub(super) chain: Arc<ChainSlot>,
    /// Its `dontAsk` flag (PRM-7: `/permissions` in it changes it only), with the session
    /// allowances every conversation shares.
    pub(super) permissions: Arc<PermissionState>,
    /// Its tool set: the owner's fork has live rules of its own (a job's grant in another
    /// conversation never reaches it), a resumed run's keeps that run's set (issue 23 §4).
    pub(super) tools: ClientTools,
}

/// Where an open fork's locked half is kept, behind its lock. Only
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
    /// Opens an interactive fork and posts its entry embed (IFK-2, IFK-3, AGT-11, IFK-16), and
    /// returns it held for its first turn. Refused when no other fork may open (issue 41 §1):
    /// one without a place of its own is the only one, and three at most have theirs.
    pub(super) async fn open_fork(
        &self,
        state: &mut MainState,
        start: ForkStart,
    ) -> Result<HeldFork, ForkCommandError> {
        self.fork_control.room().map_err(ForkCommandError::NoRoom)?;
        let alone = !self.fork_control.in_fork();
        let runtime = self.services.runtime.current();
        let (settings, note) = fork_settings(state, &runtime);
        let dont_ask = settings.permission_mode == PermissionMode::DontAsk;
        let permissions = Arc::new(state.permissions.beside(dont_ask));
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
            ForkStart::Resume { session_id, origin } => {
                let idle = runtime.fork_idle_timeout;
                (Some(session_id), false, None, idle, Some(origin))
            }
        };
        let begin = begin_of(origin.as_ref());
        let origin = origin.unwrap_or(SessionOrigin::Owner);
        let scope = Arc::new(ScopeCell::new(ToolScope::InteractiveFork));
        let tools = self.tools_of(&origin);
        let id = self.forks.next_id();
        // Its output goes to a place of its own where the front end has one per fork.
        let front_end = self
            .front_end
            .fork_side(id)
            .unwrap_or_else(|| Arc::clone(&self.front_end));
        let mut held = ForkEntry::opening(id, Arc::clone(&front_end));
        let turn = CurrentTurn::default();
        let chain = Arc::new(ChainSlot::default());
        let parts = MainClientParts {
            services: &self.services,
            front_end: &front_end,
            permissions: &permissions,
            turn: &turn,
            settings: &settings,
            fork_control: &self.fork_control,
            fork: Some(id),
            chain: &chain,
            scope: Arc::clone(&scope),
            fork_session,
            tools: &tools,
            start_up: StartUp::TurnFirst,
        };
        let client = parts.connect(resume).await?;
        held.entry.live.lock().set_client(Some(&client));
        // Where it is from the home channel, the fork gets a thread of its own (CHN-6).
        let thread_topic = match &origin {
            SessionOrigin::Background { job, title, .. } => {
                Some(title.clone().unwrap_or_else(|| job.clone()))
            }
            SessionOrigin::Owner => topic.clone(),
        };
        let own_place = front_end.fork_opened(thread_topic, alone).await;
        if !own_place && !alone {
            // Beside another fork only in a thread of its own.
            self.retire(client.disconnect(DISCONNECT_GRACE));
            return Err(ForkCommandError::NoRoom(NoRoom::NeedsThread));
        }
        let facts = ForkFacts {
            begin,
            main_session_at_start: main_at_start.map(|id| id.as_str().to_owned()),
            newest_update_at_start: self.services.pending.peek().last().map(|u| u.ts),
            own_place,
            ..ForkFacts::default()
        };
        let fork = ActiveFork {
            cli: ForkCli::Up(Box::new(client)),
            last_active: self.services.clock.instant(),
            scope,
            logged: false,
            idle: IdleClock::new(idle_minutes, self.services.clock.instant()),
            settings: fork_settings,
            origin,
            turn,
            chain,
            tools,
            permissions,
        };
        let embed = match &fork.origin {
            SessionOrigin::Background {
                job, allowed_tools, ..
            } => resumed_run_embed(job, allowed_tools),
            SessionOrigin::Owner => entry_embed(topic.as_deref(), note),
        };
        self.install_fork(&mut held, fork, facts);
        match front_end.send_embed(embed).await {
            Ok(message) => self.fork_control.note_message_opt(id, message),
            Err(error) => tracing::warn!(%error, "could not post the fork entry embed"),
        }
        Ok(held)
    }

    /// The tools a new fork of `origin` runs with: the main session's set with live rules of
    /// its own for the owner's own, the run's own for a background run's session (issue 23
    /// §4).
    pub(super) fn tools_of(&self, origin: &SessionOrigin) -> ClientTools {
        match origin {
            SessionOrigin::Owner => ClientTools::Main(Arc::new(LiveRules::new(Arc::clone(
                &self.services.tool_policy,
            )))),
            SessionOrigin::Background { allowed_tools, .. } => {
                ClientTools::Run(allowed_tools.as_slice().into())
            }
        }
    }

    /// Opens a fork: its entry into the registry, its facts onto the switchboard, its locked
    /// half into its slot. With [`Self::remove_fork`], the only code that changes whether a
    /// fork is open (IFK-1). Runs under main's lock and the fork's.
    fn install_fork(&self, held: &mut HeldFork, fork: ActiveFork, facts: ForkFacts) {
        self.forks.insert(Arc::clone(&held.entry));
        self.fork_control.fork_opened(held.id(), facts);
        held.0 = Some(fork);
    }

    /// Closes the held fork, every part at once: returns its locked half and its facts (with
    /// the messages not recorded yet, SES-16), or `None` if it was closed already. Runs under
    /// main's lock and the fork's.
    pub(super) fn remove_fork(&self, held: &mut HeldFork) -> Option<(ActiveFork, ForkFacts)> {
        let fork = held.0.take()?;
        let facts = self.fork_control.fork_closed(held.id()).unwrap_or_default();
        self.forks.remove(held.id());
        Some((fork, facts))
    }

    /// Ends the held fork: saved (promoted to main, SES-10), reported or discarded; posts the
    /// exit embed where main is and restores the main session's permission mode (IFK-6…9).
    pub(super) async fn close_fork(
        &self,
        state: &mut MainState,
        held: &mut HeldFork,
        action: ExitAction,
        summary: Option<String>,
    ) {
        let Some(session_id) = held.get().map(|fork| fork.cli.session_id().cloned()) else {
            return;
        };
        let entry = Arc::clone(&held.entry);
        let meanwhile = std::mem::take(&mut *entry.meanwhile.lock());
        entry.front_end.cancel_approvals();
        // Closed first, so nothing sees it open once its thread is gone (a `/fork` right after
        // the archive has its room).
        let Some((fork, mut facts)) = self.remove_fork(held) else {
            return;
        };
        entry.live.lock().set_client(None);
        if facts.own_place {
            // The outcome goes to the channel; the thread is archived (CHN-7).
            entry.front_end.fork_closing().await;
        }
        let others = self.fork_control.open_forks().len();
        // A background run's session never becomes main, whatever asks (issue 23 §4): an
        // old Save button in the same place is an Exit for it.
        let run = facts.begin == ForkBegin::ResumedRun;
        let (shown, description, keep_client) = match (action, session_id.clone()) {
            (ExitAction::Save, _) if run => {
                (ExitAction::Exit, Some(RUN_NOT_SAVED.to_owned()), None)
            }
            (ExitAction::Save, Some(id)) => {
                let said = saved_description(&meanwhile, others);
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
        match embed {
            Ok(message) => facts.unrecorded_messages.extend(message),
            Err(error) => tracing::warn!(%error, "could not post the fork exit embed"),
        }
        if let Some(id) = keep_client {
            self.hand_on_said(&entry);
            self.promote(state, fork, &id);
            self.carry_over(&meanwhile);
            return;
        }
        if let Some(session) = &session_id {
            self.record_messages(
                &facts.unrecorded_messages,
                session,
                facts.main_session_at_start.as_deref(),
                &fork.origin,
            );
        }
        self.retire(fork.cli.disconnect());
    }

    /// Discards open forks without a turn: every one (`/clear`, IFK-15), or only the one in
    /// main's own place (`/thinking`, IFK-21; forks in threads of their own go on beside
    /// main). Returns how many were open.
    pub(super) async fn discard_forks(&self, state: &mut MainState, every: bool) -> usize {
        let mut discarded = 0;
        for entry in self.forks.all() {
            if !every && self.fork_control.in_place() != Some(entry.id) {
                continue;
            }
            let mut held = entry.lock().await;
            if held.is_open() {
                self.close_fork(state, &mut held, ExitAction::Exit, None)
                    .await;
                discarded += 1;
            }
        }
        discarded
    }
}

/// How a fork resuming a session of `origin` (none: a branch of main) began.
fn begin_of(origin: Option<&SessionOrigin>) -> ForkBegin {
    match origin {
        None => ForkBegin::Branch,
        Some(SessionOrigin::Owner) => ForkBegin::ResumedOwn,
        Some(SessionOrigin::Background { .. }) => ForkBegin::ResumedRun,
    }
}

/// The settings a fork runs with (IFK-16): the fork's model and thinking where set, else
/// main's; a haiku fork of a context too big for haiku runs on sonnet, with the note saying so.
fn fork_settings(
    state: &MainState,
    runtime: &crate::config::runtime::RuntimeConfig,
) -> (MainSettings, Option<&'static str>) {
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
    (settings, note)
}
