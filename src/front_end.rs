//! The seam between the agent core and a front end (Discord, the terminal): the events of a
//! streamed turn, and the few things the core asks of a front end.

use std::{path::PathBuf, sync::Arc};

use parking_lot::Mutex;

use tokio::sync::mpsc::{self, UnboundedReceiver};

use crate::{claude::BoxFuture, domain::embed::Embed};

pub use crate::domain::fork_control::ForkId;

/// Something that happened during a turn, in order, for the front end to render.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum TurnEvent {
    /// Text streamed from the model.
    TextDelta(String),
    /// The model called a tool; `label` is the display form (STR-8).
    ToolUse {
        /// Tool use id.
        id: String,
        /// Display label, e.g. `Read(reminders/foo.md)`.
        label: String,
    },
    /// The permission system refused that tool call.
    ToolDenied {
        /// Tool use id.
        id: String,
    },
    /// The owner allowed that tool call through its approval question, which shows its label
    /// already (STR-7).
    ToolApproved {
        /// Tool use id.
        id: String,
    },
    /// The tool ran and reported an error.
    ToolFailed {
        /// Tool use id.
        id: String,
    },
    /// The CLI started compacting the context (`pre_tokens` when known).
    Compacting {
        /// Context size before compaction.
        pre_tokens: Option<u64>,
    },
    /// Compaction finished.
    Compacted {
        /// Context size before compaction.
        pre_tokens: Option<u64>,
        /// How long it took.
        seconds: u64,
    },
    /// A short note for the owner that stays (e.g. a fresh conversation started).
    Notice(String),
    /// The turn reads the background updates that came in meanwhile first: a note for the
    /// owner while it does, gone once the turn is over (its reply says what came in).
    CatchingUp,
    /// The model API failed and the CLI is trying again (issue 24 §2): the line the owner
    /// reads while it waits, e.g. `the Claude API isn't answering — retrying (2/10)`.
    Retrying(String),
    /// A subagent called a tool (STR-12): the status line reads this label,
    /// `<agent>(<description>) · <tool>`, its timer running on.
    SubagentActivity(String),
    /// The agent called `enter_fork`: the rest of this turn is cut short and the fork
    /// continues it, so an empty reply is not a failure (AGT-18, STR-10).
    ForkRequested,
}

/// A place the owner reached the conversation through, in the front end's own terms (a
/// Discord channel or thread id); the agent core only hands it back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ReplyPlace(pub u64);

/// Where the output of a turn (its streamed reply, embeds, approval questions, notes) goes,
/// for front ends with more than one door into the conversation (CHN-1, CHN-5).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum TurnPlace {
    /// Back where the owner asked: a message, a click, a command.
    AskedIn(ReplyPlace),
    /// Where the conversation's last turn went: the bot's own follow-ups (a fork's first
    /// reply, the idle check-in, the report a button asked for).
    #[default]
    Conversation,
    /// Where the owner wants what they didn't ask for: a scheduled job's turn.
    Unasked,
}

/// Which side of the conversation a turn runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Branch {
    /// The main conversation.
    Main,
    /// An open interactive fork.
    Fork(ForkId),
}

/// The sending half of a turn's event stream.
pub type TurnSink = mpsc::UnboundedSender<TurnEvent>;

/// The owner's answer to a tool-approval request (PRM-4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Approval {
    /// Run it this once.
    AllowOnce,
    /// Run it, and allow this tool for the rest of the session.
    AllowAlways,
    /// Refuse it.
    Deny,
    /// Nobody answered in time.
    TimedOut,
    /// The question was withdrawn (an interrupt, `/clear`, leaving a fork) (PRM-6).
    Cancelled,
    /// The question could not be posted: the call is refused (PRM-4).
    Unsent,
}

impl Approval {
    /// The reason the model reads for a call refused without the owner's answer (PRM-4):
    /// `None` for an answer (allowed, or refused with the front end's own reason).
    pub fn unanswered_reason(self) -> Option<&'static str> {
        match self {
            Self::TimedOut => Some("approval timed out"),
            Self::Cancelled => Some("approval cancelled"),
            Self::Unsent => Some("failed to send approval request"),
            Self::AllowOnce | Self::AllowAlways | Self::Deny => None,
        }
    }
}

/// Why a front end could not deliver something.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct FrontEndError(pub String);

/// What the agent core needs from a front end.
pub trait FrontEnd: Send + Sync {
    /// Shows an embed to the owner (MCP-1/2). Returns the sent message's id where the front
    /// end has one (Discord), for reply tracking.
    fn send_embed(&self, embed: Embed) -> BoxFuture<'_, Result<Option<u64>, FrontEndError>>;

    /// Sends the owner a plain message (`ping_user`, notes such as the fork idle check-in).
    /// Returns the sent message's id where the front end has one.
    fn send_text(&self, text: String) -> BoxFuture<'_, Result<Option<u64>, FrontEndError>>;

    /// Sends the owner a file with an optional message (`send_file`, MCP-5).
    fn send_file(
        &self,
        path: PathBuf,
        message: Option<String>,
    ) -> BoxFuture<'_, Result<Option<u64>, FrontEndError>>;

    /// Says where the output of the locked operation that starts now goes, until the next
    /// call: asked at `place`, on `branch` (CHN-1, CHN-5, CHN-6). Front ends with one door
    /// ignore it.
    fn answer_in(&self, place: TurnPlace, branch: Branch) {
        let _ = (place, branch);
    }

    /// A front end for the interactive fork `fork`, about to open, where the front end gives
    /// each fork a place of its own (a Discord thread, issue 41 §1); `None`: the fork's output
    /// goes where main's does, through this one.
    fn fork_side(&self, fork: ForkId) -> Option<std::sync::Arc<dyn FrontEnd>> {
        let _ = fork;
        None
    }

    /// An interactive fork about `topic` just opened where the conversation is. Returns
    /// whether the fork got a place of its own (a Discord thread, CHN-6): then the main
    /// conversation stays reachable beside it. Front ends without one return `false`.
    /// `alone`: no other fork is open, so without a place of its own it runs where the
    /// conversation is; else it needs one, and does not start without it.
    fn fork_opened(&self, topic: Option<String>, alone: bool) -> BoxFuture<'_, bool> {
        let _ = (topic, alone);
        Box::pin(async { false })
    }

    /// The fork with a place of its own is ending: what follows (its outcome) goes to the
    /// main conversation's place, and the fork's place is closed (CHN-7).
    fn fork_closing(&self) -> BoxFuture<'_, ()> {
        Box::pin(async {})
    }

    /// Renders one streamed turn until `events` closes; returns the ids of the messages it
    /// left, for reply tracking (SES-16).
    fn render_turn(&self, events: UnboundedReceiver<TurnEvent>) -> BoxFuture<'_, Vec<u64>>;

    /// Asks the owner to approve a tool call shown as `label` (PRM-4).
    fn ask_approval(&self, label: String) -> BoxFuture<'_, Approval>;

    /// The reason the model reads when the owner refuses a tool here.
    fn denial_reason(&self) -> &'static str {
        "denied via Discord"
    }

    /// Withdraws every open approval question (an interrupt or `/clear`, PRM-6).
    fn cancel_approvals(&self) {}
}

/// The event sink of the turn in progress, shared with the callbacks (permissions, tools) that
/// run while it streams. Events sent while no turn runs are dropped.
#[derive(Clone, Default)]
pub struct CurrentTurn(Arc<Mutex<Option<TurnSink>>>);

impl CurrentTurn {
    /// Routes events to `sink` until [`Self::end`].
    pub fn begin(&self, sink: TurnSink) {
        *self.slot() = Some(sink);
    }

    /// Stops routing events.
    pub fn end(&self) {
        *self.slot() = None;
    }

    /// Sends `event` to the turn in progress, if any.
    pub fn emit(&self, event: TurnEvent) {
        if let Some(sink) = self.slot().as_ref() {
            let _ = sink.send(event);
        }
    }

    fn slot(&self) -> parking_lot::MutexGuard<'_, Option<TurnSink>> {
        self.0.lock()
    }
}
