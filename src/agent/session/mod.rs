//! The main session: one persistent Claude conversation, resumed across restarts, behind one
//! lock (SES-1…14, SES-18, CTX-1/2/5/6, AGT-6, AGT-14…17).
//!
//! Every turn, `/compact`, `/cost` and `/clear` takes the lock, so conversations are strictly
//! one at a time. Interrupting never takes it: it goes through a [`ClientHandle`] kept beside
//! the lock, so a new message can cut a reply short.

use std::{
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::Duration,
};

use parking_lot::Mutex;

use tokio::sync::Mutex as AsyncMutex;

mod commands;
mod connection;
mod exchange;
mod fork;

pub use exchange::ForkCommandError;
pub use fork::ForkStart;

use crate::agent::{
    AgentError,
    client::main_client::ClientTools,
    permissions::{live_rules::LiveRules, policy::PermissionState},
    prompt::context::{UpdatesView, compose_prompt},
    turn::{TurnObserver, TurnReport, context_usage::context_tokens, run_turn},
};
use crate::front_end::{CurrentTurn, FrontEnd, TurnEvent, TurnPlace, TurnSink};
use crate::services::Services;
use crate::{
    claude::{
        ClaudeClient, ClaudeError, ClientHandle, ImageAttachment, PermissionMode, Thinking,
        UserContent,
    },
    domain::fork_control::ForkControl,
    mcp::{ToolScope, availability::ScopeCell},
    scheduling::chain::ChainSlot,
    state::{history::SessionEventKind, sessions::SaveOutcome},
};

/// How long a disconnecting CLI may take to finish before it is killed.
const DISCONNECT_GRACE: Duration = Duration::from_secs(5);

/// The note shown when pending updates are folded into a prompt (CTX-6).
pub const CATCHING_UP_NOTE: &str = "catching up on background activity...";

/// A prompt from the owner: text plus optional images, and where the answer goes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Prompt {
    /// The text as typed.
    pub text: String,
    /// Attached images, sent as image blocks before the text.
    pub images: Vec<ImageAttachment>,
    /// Where the turn's output goes (the conversation's place unless said otherwise).
    pub place: TurnPlace,
}

impl Prompt {
    /// A text-only prompt, answered where the conversation is.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            images: Vec::new(),
            place: TurnPlace::Conversation,
        }
    }

    /// The same prompt, answered at `place`.
    #[must_use]
    pub fn answered_in(self, place: TurnPlace) -> Self {
        Self { place, ..self }
    }
}

/// Session settings that can change at run time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MainSettings {
    /// Model alias or name; `None` = the CLI's default.
    pub model: Option<String>,
    /// Thinking mode.
    pub thinking: Thinking,
    /// Permission mode (`dontAsk` is enforced by the bot, AGT-6).
    pub permission_mode: PermissionMode,
}

struct MainState {
    client: Option<ClaudeClient>,
    /// The built-in tools main's client was offered (`None`: the CLI's default set).
    offered: Option<Vec<String>>,
    settings: MainSettings,
    /// Owner turns since the last compaction, for the `/compact` stats line.
    turns_since_compaction: usize,
    /// Context size of the main session's last turn (IFK-16).
    last_input_tokens: Option<u64>,
    /// The open interactive fork's locked half; while it is open every turn goes to it (IFK-1).
    fork: fork::ForkSlot,
}

impl MainState {
    /// The client turns go to: the fork's while one is open, else main's.
    fn active_client(&mut self) -> Option<&mut ClaudeClient> {
        match self.fork.get_mut() {
            Some(fork) => Some(&mut fork.client),
            None => self.client.as_mut(),
        }
    }
}

/// The client interrupts go to, with its OS process id, taken together when it becomes live.
struct LiveClient {
    handle: ClientHandle,
    pid: Option<u32>,
}

/// Who a turn's prompt comes from; owner messages count as activity in a fork (IFK-11/17).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptSource {
    /// The owner typed it (a DM, the terminal) or clicked a button.
    Owner,
    /// The bot itself (fork-started, idle and report prompts).
    System,
}

/// The owner's main conversation.
pub struct MainSession {
    services: Arc<Services>,
    front_end: Arc<dyn FrontEnd>,
    permissions: Arc<PermissionState>,
    turn: CurrentTurn,
    state: AsyncMutex<MainState>,
    /// The client interrupts go to: the fork's while one is open, else main's.
    live: Mutex<Option<LiveClient>>,
    compacting: AtomicBool,
    fork_control: Arc<ForkControl>,
    main_scope: Arc<ScopeCell>,
    chain: Arc<ChainSlot>,
    /// The main session's tool set with its live rules (issue 23 §4).
    main_tools: ClientTools,
    live_rules: Arc<LiveRules>,
}

impl MainSession {
    /// A main session that connects lazily (call [`Self::connect`] to warm it up).
    pub fn new(
        services: Arc<Services>,
        front_end: Arc<dyn FrontEnd>,
        settings: MainSettings,
    ) -> Self {
        let dont_ask = settings.permission_mode == PermissionMode::DontAsk;
        let live_rules = Arc::new(LiveRules::new(Arc::clone(&services.tool_policy)));
        Self {
            services,
            front_end,
            permissions: Arc::new(PermissionState::new(dont_ask)),
            turn: CurrentTurn::default(),
            state: AsyncMutex::new(MainState {
                client: None,
                offered: None,
                settings,
                turns_since_compaction: 0,
                last_input_tokens: None,
                fork: fork::ForkSlot::default(),
            }),
            live: Mutex::new(None),
            compacting: AtomicBool::new(false),
            fork_control: Arc::new(ForkControl::default()),
            main_scope: Arc::new(ScopeCell::new(ToolScope::Main)),
            chain: Arc::new(ChainSlot::default()),
            main_tools: ClientTools::Main(Arc::clone(&live_rules)),
            live_rules,
        }
    }

    /// Whether an interactive fork is open, readable without waiting for the lock. It agrees
    /// with the locked state: a fork is opened and closed on both sides in one step (IFK-1).
    pub fn in_fork(&self) -> bool {
        self.fork_control.in_fork()
    }

    /// Starts the CLI now, so the first reply does not pay for its start-up.
    pub async fn connect(&self) -> Result<(), AgentError> {
        let mut state = self.state.lock().await;
        self.ensure_connected(&mut state, None).await
    }

    /// Runs one owner turn for `prompt`, streaming events to `sink`, in the open fork if there
    /// is one, else in the main session. Pending updates are consumed in main (CTX-2) and only
    /// peeked in a fork (CTX-3). Waits for any turn in progress first; fork transitions the
    /// turn asks for are left for [`Self::exchange`].
    pub async fn send(&self, prompt: Prompt, sink: TurnSink) -> Result<TurnReport, AgentError> {
        let mut state = self.state.lock().await;
        self.turn_locked(&mut state, prompt, sink, PromptSource::Owner)
            .await
    }

    async fn turn_locked(
        &self,
        state: &mut MainState,
        prompt: Prompt,
        sink: TurnSink,
        source: PromptSource,
    ) -> Result<TurnReport, AgentError> {
        let in_fork = state.fork.is_open();
        if !in_fork {
            self.ensure_connected(state, Some(&sink)).await?;
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
        if let (Some(fork), PromptSource::Owner) = (state.fork.get_mut(), source) {
            fork.idle.owner_activity();
            self.fork_control.owner_spoke();
        }
        let now = chrono::Utc::now().with_timezone(&self.services.config.timezone);
        let text = compose_prompt(&prompt.text, now, &updates, view);
        let content = UserContent::with_images(&text, &prompt.images);
        self.turn.begin(sink);
        let outcome = self.run_with_compaction_retry(state, &content).await;
        self.turn.end();
        if in_fork {
            return self.finish_fork_turn(state, outcome);
        }
        let report = self.finish_turn(state, outcome).await?;
        state.turns_since_compaction = if report.compaction.is_some() {
            1
        } else {
            state.turns_since_compaction + 1
        };
        Ok(report)
    }

    /// Interrupts the reply in progress, without waiting (AGT-14). Ignored while compacting.
    /// Returns whether an interrupt was sent.
    pub fn interrupt(&self) -> bool {
        if self.compacting.load(Ordering::Relaxed) {
            return false;
        }
        self.front_end.cancel_approvals();
        let handle = self.live.lock().as_ref().map(|live| live.handle.clone());
        handle.is_some_and(|handle| handle.interrupt_nowait().is_ok())
    }

    /// Whether a turn (or another locked operation) is in progress.
    pub fn is_busy(&self) -> bool {
        self.state.try_lock().is_err()
    }

    /// The fork switchboard shared with this session's tools.
    pub fn fork_control(&self) -> &Arc<ForkControl> {
        &self.fork_control
    }

    /// The main session's current settings.
    pub async fn settings(&self) -> MainSettings {
        self.state.lock().await.settings.clone()
    }

    /// The OS process id of the connected CLI, if any.
    pub fn cli_pid(&self) -> Option<u32> {
        self.live.lock().as_ref().and_then(|live| live.pid)
    }

    /// Ends the CLI cleanly, waiting for the turn in progress (callers bound this with a timeout).
    pub async fn shutdown(&self) {
        let mut state = self.state.lock().await;
        if let Some((fork, _)) = self.remove_fork(&mut state) {
            fork.client.disconnect(DISCONNECT_GRACE).await;
        }
        if let Some(client) = self.take_client(&mut state) {
            client.disconnect(DISCONNECT_GRACE).await;
        }
    }

    async fn run_with_compaction_retry(
        &self,
        state: &mut MainState,
        content: &UserContent,
    ) -> Result<TurnReport, ClaudeError> {
        let report = self.run_once(state, content).await?;
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
            let mut retry = self.run_once(state, content).await?;
            retry.compaction = report.compaction;
            return Ok(retry);
        }
        Ok(report)
    }

    async fn run_once(
        &self,
        state: &mut MainState,
        content: &UserContent,
    ) -> Result<TurnReport, ClaudeError> {
        let client = state.active_client().ok_or(ClaudeError::Closed)?;
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
    async fn finish_turn(
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

/// The mode the CLI runs in: `dontAsk` is enforced by the bot's own callback (AGT-6).
pub fn cli_permission_mode(mode: PermissionMode) -> PermissionMode {
    match mode {
        PermissionMode::DontAsk => PermissionMode::Default,
        other => other,
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
