//! The main session: one persistent Claude conversation, resumed across restarts (SES-1…14,
//! SES-18, CTX-1/2/5/6, AGT-6, AGT-14…17), and the interactive fork open beside it.
//!
//! Each conversation has a lock of its own (issue 41 §1): main's turns, `/compact` and the
//! settings take main's; each open fork's turns take that fork's; what changes main and a
//! fork (opening, saving or ending it, `/clear`, `/thinking`) takes main's first, then the
//! fork's, one fork at a time, and nothing holds a fork's lock while it waits for main's.
//! Forks with a thread of their own (up to three) answer there while main answers in the
//! channel, each in its own time. Interrupting takes no lock: it goes through the
//! [`ClientHandle`] of each conversation's CLI, kept beside the locks, so a new message cuts
//! short the reply of the conversation it is addressed to only.

use std::{sync::Arc, time::Duration};

use parking_lot::Mutex;

use tokio::sync::Mutex as AsyncMutex;

mod commands;
mod connection;
mod exchange;
mod fork;
mod fork_cli;
mod fork_record;
mod fork_registry;
mod fork_save;
mod rest;
mod slow_commands;
mod turn_run;

use connection::StartFor;
pub use exchange::ForkCommandError;
pub use fork::ForkStart;
use fork_registry::Forks;
use turn_run::Held;
pub use turn_run::Target;

use crate::agent::{
    AgentError,
    client::main_client::{MainSettings, cli_permission_mode},
    permissions::{live_rules::LiveRules, policy::PermissionState},
    turn::TurnReport,
};
pub use crate::domain::fork_control::NoRoom;
use crate::front_end::{Branch, CurrentTurn, FrontEnd, TurnPlace, TurnSink};
use crate::services::Services;
use crate::{
    claude::{ClaudeClient, ClientHandle, ImageAttachment, PermissionMode},
    domain::fork_control::ForkControl,
    mcp::{ToolScope, availability::ScopeCell},
    scheduling::chain::ChainSlot,
    skills::leading_command,
    state::paths::DataDir,
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
    /// A slash command sent before the time stamp and the updates, for the CLI to run: a
    /// job's body or the owner's words that start with an approved skill or command (CTX-11).
    pub lead: Option<String>,
}

impl Prompt {
    /// A text-only prompt, answered where the conversation is.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            images: Vec::new(),
            place: TurnPlace::Conversation,
            lead: None,
        }
    }

    /// The same prompt, answered at `place`.
    #[must_use]
    pub fn answered_in(self, place: TurnPlace) -> Self {
        Self { place, ..self }
    }

    /// The owner's typed words as the CLI should get them: words starting with a skill or
    /// command the CLI loads as approved (`/improve-routine routines/x.md`) lead, so the CLI
    /// runs it with the rest as its arguments and the time and updates after them (CTX-11, as
    /// for a job's body); other words, a built-in (`/clear`) or an unknown name among them,
    /// stay text after the time.
    #[must_use]
    pub fn led_by_its_command(self, data_dir: &DataDir) -> Self {
        if self.lead.is_some() || leading_command(&self.text, data_dir).is_none() {
            return self;
        }
        Self {
            lead: Some(self.text.trim().to_owned()),
            text: String::new(),
            ..self
        }
    }

    /// The words this prompt carries, for a line about it: its command when one leads.
    pub fn words(&self) -> &str {
        self.lead.as_deref().unwrap_or(&self.text)
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
    /// Main's `dontAsk` flag, with the session allowances every conversation shares; a saved
    /// fork's client brings its own along.
    permissions: Arc<PermissionState>,
    /// What widens main's tools while its client runs (issue 23 §4): each conversation has
    /// its own, so a foreground job's grant reaches only the conversation running it; a saved
    /// fork's client brings its own along.
    rules: Arc<LiveRules>,
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
    /// Main's lock.
    state: AsyncMutex<MainState>,
    /// Main's client, as interrupts reach it.
    main_live: Mutex<LiveSide>,
    /// The open interactive forks, each with its lock, taken after main's when both are
    /// needed (IFK-1).
    forks: Forks,
    fork_control: Arc<ForkControl>,
    main_scope: Arc<ScopeCell>,
    /// When the session last did something (a turn ended, a command connected): its CLI
    /// sleeps once this is long enough ago (issue 29).
    last_active: Mutex<tokio::time::Instant>,
    /// The owner began to type while main's CLI was being put to sleep (its lock held): it
    /// starts again once asleep (REST-2).
    wake_missed: std::sync::atomic::AtomicBool,
    /// Marked while main's CLI is put to sleep under its lock (BGF-2).
    main_rest_stop: rest::RestStop,
    /// CLIs no conversation uses any more (an ended fork's, main's old one after a Save),
    /// finishing without holding a lock; shutdown waits for them.
    retiring: tokio_util::task::TaskTracker,
}

impl MainSession {
    /// A main session that connects lazily (call [`Self::connect`] to warm it up).
    pub fn new(
        services: Arc<Services>,
        front_end: Arc<dyn FrontEnd>,
        settings: MainSettings,
    ) -> Self {
        let dont_ask = settings.permission_mode == PermissionMode::DontAsk;
        let rules = Arc::new(LiveRules::new(Arc::clone(&services.tool_policy)));
        let last_active = Mutex::new(services.clock.instant());
        Self {
            services,
            front_end,
            state: AsyncMutex::new(MainState {
                client: None,
                turn: CurrentTurn::default(),
                chain: Arc::default(),
                offered: None,
                permissions: Arc::new(PermissionState::new(dont_ask)),
                rules,
                settings,
                turns_since_compaction: 0,
                last_input_tokens: None,
            }),
            main_live: Mutex::default(),
            forks: Forks::default(),
            fork_control: Arc::new(ForkControl::default()),
            main_scope: Arc::new(ScopeCell::new(ToolScope::Main)),
            last_active,
            wake_missed: std::sync::atomic::AtomicBool::new(false),
            main_rest_stop: rest::RestStop::default(),
            retiring: tokio_util::task::TaskTracker::new(),
        }
    }

    /// Stops a CLI no conversation uses any more, without holding a lock while it finishes
    /// (up to [`DISCONNECT_GRACE`]): an ended fork's turn-taking doors are free at once.
    fn retire<T: Send + 'static>(&self, stopping: impl Future<Output = T> + Send + 'static) {
        self.retiring.spawn(async move {
            stopping.await;
        });
    }

    /// Whether an interactive fork is open, readable without waiting for a lock. It agrees
    /// with the locked state: a fork is opened and closed on both sides in one step (IFK-1).
    pub fn in_fork(&self) -> bool {
        self.fork_control.in_fork()
    }

    /// Whether another fork may open now (issue 41 §1); where it opens decides the rest.
    pub fn fork_room(&self) -> Result<(), NoRoom> {
        self.fork_control.room()
    }

    /// Starts the CLI now, so the first reply does not pay for its start-up.
    pub async fn connect(&self) -> Result<(), AgentError> {
        let mut state = self.state.lock().await;
        self.ensure_connected(&mut state, StartFor::Command).await
    }

    /// Runs one owner turn for `prompt`, streaming events to `sink`, through main's door: in
    /// the fork without a place of its own if one is open, else in the main session. Pending
    /// updates are consumed in main (CTX-2) and only peeked in a fork (CTX-3). Waits for any
    /// turn in progress there first; fork transitions the turn asks for are left for
    /// [`Self::exchange`].
    pub async fn send(&self, prompt: Prompt, sink: TurnSink) -> Result<TurnReport, AgentError> {
        let mut held = self.hold(Target::MainDoor).await;
        self.turn_held(&mut held, prompt, sink, PromptSource::Owner)
            .await
    }

    /// Interrupts every reply in progress, whichever conversation's, without waiting (AGT-14).
    /// Ignored while compacting. Returns whether an interrupt was sent.
    pub fn interrupt(&self) -> bool {
        let main = self.interrupt_in(Branch::Main);
        let forks = self.forks.all().into_iter().map(|fork| fork.id);
        forks.fold(main, |sent, fork| {
            self.interrupt_in(Branch::Fork(fork)) || sent
        })
    }

    /// Interrupts `branch`'s reply if it is the one in progress (MSG-3): a message addressed to
    /// one conversation never cuts another's reply short (issue 41 §1). Ignored while
    /// compacting. Returns whether an interrupt was sent.
    pub fn interrupt_in(&self, branch: Branch) -> bool {
        let handle = self.with_live(branch, |side| {
            (side.phase == Phase::Replying).then(|| side.client.as_ref().map(|l| l.handle.clone()))
        });
        let Some(Some(handle)) = handle else {
            return false;
        };
        // Approvals wait only inside the reply in progress: they are that reply's.
        self.front_end_of(branch).cancel_approvals();
        handle.is_some_and(|handle| handle.interrupt_nowait().is_ok())
    }

    /// Whether a turn (or another locked operation) is in progress, in main or a fork.
    pub fn is_busy(&self) -> bool {
        self.state.try_lock().is_err() || self.forks.all().iter().any(|fork| fork.is_busy())
    }

    /// Whether the owner is mid-conversation (BGF-2): a turn, a command or a start for them
    /// holds main's or a fork's lock. A CLI being put to sleep holds it too, but that is the
    /// bot's own housekeeping: a run starting meanwhile still pings.
    pub fn owner_mid_conversation(&self) -> bool {
        (self.state.try_lock().is_err() && !self.main_rest_stop.active())
            || self.forks.all().iter().any(|fork| fork.in_conversation())
    }

    /// Where `branch`'s output goes (main's place for a fork closed since).
    fn front_end_of(&self, branch: Branch) -> Arc<dyn FrontEnd> {
        match branch {
            Branch::Fork(id) => self.forks.get(id).map_or_else(
                || Arc::clone(&self.front_end),
                |fork| Arc::clone(&fork.front_end),
            ),
            Branch::Main => Arc::clone(&self.front_end),
        }
    }

    /// Runs `f` on `branch`'s [`LiveSide`]; `None` for a fork closed since.
    fn with_live<R>(&self, branch: Branch, f: impl FnOnce(&mut LiveSide) -> R) -> Option<R> {
        match branch {
            Branch::Main => Some(f(&mut self.main_live.lock())),
            Branch::Fork(id) => self.forks.get(id).map(|fork| f(&mut fork.live.lock())),
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
        self.main_live
            .lock()
            .client
            .as_ref()
            .and_then(|live| live.pid)
    }

    /// Ends the CLI cleanly, waiting for the turn in progress (callers bound this with a timeout).
    pub async fn shutdown(&self) {
        let mut state = self.state.lock().await;
        for entry in self.forks.all() {
            let mut held = entry.lock().await;
            if let Some((fork, facts)) = self.remove_fork(&mut held) {
                if facts.own_place {
                    // A fork does not outlive the process: its thread is archived (CHN-7).
                    entry.front_end.fork_closing().await;
                }
                fork.cli.disconnect().await;
            }
        }
        if let Some(client) = self.take_client(&mut state) {
            client.disconnect(DISCONNECT_GRACE).await;
        }
        self.retiring.close();
        self.retiring.wait().await;
    }
}
