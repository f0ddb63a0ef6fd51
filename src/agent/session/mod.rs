//! The main session: one persistent Claude conversation, resumed across restarts (SES-1…14,
//! SES-18, CTX-1/2/5/6, AGT-6, AGT-14…17), and the interactive fork open beside it.
//!
//! Each conversation has a lock of its own (issue 41 §1): main's turns, `/compact` and the
//! settings take main's; the open fork's turns take the fork's; what changes both (opening,
//! saving or ending a fork, `/clear`, `/thinking`) takes main's first, then the fork's, and
//! nothing holds the fork's lock while it waits for main's. A fork with a thread of its own
//! answers there while main answers in the channel, each in its own time. Interrupting takes
//! no lock: it goes through the [`ClientHandle`] of each conversation's CLI, kept beside the
//! locks, so a new message cuts short the reply of the conversation it is addressed to only.

use std::{
    sync::{Arc, atomic::AtomicBool},
    time::Duration,
};

use parking_lot::Mutex;

use tokio::sync::Mutex as AsyncMutex;

mod commands;
mod connection;
mod exchange;
mod fork;
mod fork_cli;
mod fork_record;
mod fork_save;
mod rest;
mod slow_commands;
mod turn_run;

use connection::StartFor;
pub use exchange::ForkCommandError;
pub use fork::ForkStart;
pub use rest::WakeAt;
use turn_run::{Held, Target};

use crate::agent::{
    AgentError,
    client::main_client::{ClientTools, MainSettings, cli_permission_mode},
    permissions::{live_rules::LiveRules, policy::PermissionState},
    turn::TurnReport,
};
use crate::front_end::{Branch, CurrentTurn, FrontEnd, TurnPlace, TurnSink};
use crate::services::Services;
use crate::{
    claude::{ClaudeClient, ClientHandle, ImageAttachment, PermissionMode},
    domain::fork_control::ForkControl,
    mcp::{ToolScope, availability::ScopeCell},
    scheduling::chain::ChainSlot,
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

struct MainState {
    client: Option<ClaudeClient>,
    /// The sink main's client's callbacks emit into while a main turn runs (a saved fork's
    /// client brings its own along).
    turn: CurrentTurn,
    /// The chain reminder a foreground fire on main is running, for `follow_up_chain`
    /// (REM-8); like the sink, a saved fork's client brings its own.
    chain: Arc<ChainSlot>,
    /// The built-in tools main's client was offered (`None`: the CLI's default set).
    offered: Option<Vec<String>>,
    settings: MainSettings,
    /// Owner turns since the last compaction, for the `/compact` stats line.
    turns_since_compaction: usize,
    /// Context size of the main session's last turn (IFK-16).
    last_input_tokens: Option<u64>,
}

/// A conversation's client as interrupts reach it, with its OS process id, taken together
/// when it becomes live.
struct LiveClient {
    handle: ClientHandle,
    pid: Option<u32>,
}

/// Where a conversation's reply is, as interrupts see it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Phase {
    /// No reply in progress: nothing to interrupt.
    #[default]
    Idle,
    /// A reply is in progress: an interrupt cuts it short.
    Replying,
    /// The CLI is compacting inside the reply: interrupts are ignored (AGT-14).
    Compacting,
}

/// One conversation as interrupts see it: its live client and where its reply is.
#[derive(Default)]
struct LiveSide {
    client: Option<LiveClient>,
    phase: Phase,
}

/// Main's and the open fork's [`LiveSide`].
#[derive(Default)]
struct LiveClients {
    main: LiveSide,
    fork: LiveSide,
}

impl LiveClients {
    fn of(&mut self, branch: Branch) -> &mut LiveSide {
        match branch {
            Branch::Main => &mut self.main,
            Branch::Fork => &mut self.fork,
        }
    }
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
    /// Main's lock.
    state: AsyncMutex<MainState>,
    /// The open interactive fork's lock; taken after main's when both are needed (IFK-1).
    fork: AsyncMutex<fork::ForkSlot>,
    /// Each conversation's client, as interrupts reach it.
    live: Mutex<LiveClients>,
    /// The open fork has a place of its own (a Discord thread), so main stays reachable beside
    /// it (CHN-6). Set and cleared with the fork, under both locks.
    beside_main: AtomicBool,
    /// What main said beside such a fork, one line per exchange, for a Save (CHN-7).
    meanwhile: Mutex<Vec<String>>,
    /// Where the open (or last) fork's output goes: a front end of its own where the front end
    /// has one per fork (a Discord thread's), else main's.
    fork_front_end: Mutex<Arc<dyn FrontEnd>>,
    fork_control: Arc<ForkControl>,
    main_scope: Arc<ScopeCell>,
    /// The main session's tool set with its live rules (issue 23 §4).
    main_tools: ClientTools,
    live_rules: Arc<LiveRules>,
    /// When the session last did something (a turn ended, a command connected): its CLI
    /// sleeps once this is long enough ago (issue 29).
    last_active: Mutex<tokio::time::Instant>,
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
        let last_active = Mutex::new(services.clock.instant());
        let fork_front_end = Mutex::new(Arc::clone(&front_end));
        Self {
            services,
            front_end,
            permissions: Arc::new(PermissionState::new(dont_ask)),
            state: AsyncMutex::new(MainState {
                client: None,
                turn: CurrentTurn::default(),
                chain: Arc::default(),
                offered: None,
                settings,
                turns_since_compaction: 0,
                last_input_tokens: None,
            }),
            fork: AsyncMutex::default(),
            live: Mutex::default(),
            beside_main: AtomicBool::new(false),
            meanwhile: Mutex::default(),
            fork_front_end,
            fork_control: Arc::new(ForkControl::default()),
            main_scope: Arc::new(ScopeCell::new(ToolScope::Main)),
            main_tools: ClientTools::Main(Arc::clone(&live_rules)),
            live_rules,
            last_active,
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
        self.ensure_connected(&mut state, StartFor::Command).await
    }

    /// Runs one owner turn for `prompt`, streaming events to `sink`, in the open fork if there
    /// is one, else in the main session. Pending updates are consumed in main (CTX-2) and only
    /// peeked in a fork (CTX-3). Waits for any turn in progress first; fork transitions the
    /// turn asks for are left for [`Self::exchange`].
    pub async fn send(&self, prompt: Prompt, sink: TurnSink) -> Result<TurnReport, AgentError> {
        let mut held = self.hold(Target::Active).await;
        self.turn_held(&mut held, prompt, sink, PromptSource::Owner)
            .await
    }

    /// Interrupts every reply in progress, whichever conversation's, without waiting (AGT-14).
    /// Ignored while compacting. Returns whether an interrupt was sent.
    pub fn interrupt(&self) -> bool {
        let main = self.interrupt_in(Branch::Main);
        let fork = self.interrupt_in(Branch::Fork);
        main || fork
    }

    /// Interrupts `branch`'s reply if it is the one in progress (MSG-3): a message addressed to
    /// one conversation never cuts another's reply short (issue 41 §1). Ignored while
    /// compacting. Returns whether an interrupt was sent.
    pub fn interrupt_in(&self, branch: Branch) -> bool {
        let handle = {
            let mut live = self.live.lock();
            let side = live.of(branch);
            if side.phase != Phase::Replying {
                return false;
            }
            side.client.as_ref().map(|live| live.handle.clone())
        };
        // Approvals wait only inside the reply in progress: they are that reply's.
        self.front_end_of(branch).cancel_approvals();
        handle.is_some_and(|handle| handle.interrupt_nowait().is_ok())
    }

    /// Whether a turn (or another locked operation) is in progress, in main or the fork.
    pub fn is_busy(&self) -> bool {
        self.state.try_lock().is_err() || self.fork.try_lock().is_err()
    }

    /// Where `branch`'s output goes.
    fn front_end_of(&self, branch: Branch) -> Arc<dyn FrontEnd> {
        match branch {
            Branch::Main => Arc::clone(&self.front_end),
            Branch::Fork => Arc::clone(&self.fork_front_end.lock()),
        }
    }

    /// The fork switchboard shared with this session's tools.
    pub fn fork_control(&self) -> &Arc<ForkControl> {
        &self.fork_control
    }

    /// The main session's current settings.
    pub async fn settings(&self) -> MainSettings {
        self.state.lock().await.settings.clone()
    }

    /// The OS process id of the main conversation's connected CLI, if any.
    pub fn cli_pid(&self) -> Option<u32> {
        self.live
            .lock()
            .main
            .client
            .as_ref()
            .and_then(|live| live.pid)
    }

    /// Ends the CLI cleanly, waiting for the turn in progress (callers bound this with a timeout).
    pub async fn shutdown(&self) {
        let mut state = self.state.lock().await;
        let mut slot = self.fork.lock().await;
        if let Some((fork, _, beside_main)) = self.remove_fork(&mut slot) {
            if beside_main {
                // A fork does not outlive the process: its thread is archived (CHN-7).
                self.front_end_of(Branch::Fork).fork_closing().await;
            }
            fork.cli.disconnect().await;
        }
        if let Some(client) = self.take_client(&mut state) {
            client.disconnect(DISCONNECT_GRACE).await;
        }
    }
}
