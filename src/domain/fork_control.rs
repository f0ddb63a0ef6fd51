//! The shared switchboard between the `discord` tools and the session that runs them: what the
//! agent asked for during a turn (enter a fork, leave one) and the facts about each open
//! interactive fork that the tools check (IFK-3, IFK-6, IFK-17, IFK-19), each fork by its id.
//!
//! Tools run while the lock of their conversation is held by the turn that called them, so
//! they never take it; they leave requests here, and the session acts on them after the turn.
//!
//! The facts here are the only copy: the session keeps under each fork's lock just what needs
//! the lock (its client), and opens and closes both halves together (IFK-1).
//!
//! Several forks may be open at once, each in a place of its own (a thread of the home
//! channel, issue 41 §1), up to [`MAX_FORKS`]; a fork without a place of its own (one opened
//! in the DM) is the only fork while it is open: the main conversation's doors lead to it.

use chrono::{DateTime, FixedOffset};
use parking_lot::{Mutex, MutexGuard};

/// How many interactive forks may be open at once, each in a thread of its own (issue 41 §1).
pub const MAX_FORKS: usize = 3;

/// One interactive fork, for as long as the process runs: ids are never reused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ForkId(pub u64);

/// Why no other fork may open now (issue 41 §1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoRoom {
    /// A fork without a place of its own is open: the conversation is in it.
    InPlaceOpen,
    /// [`MAX_FORKS`] forks are open.
    Full,
    /// Another fork is open and this one would have no place of its own (no thread: the DM,
    /// or the thread could not be made).
    NeedsThread,
}

impl NoRoom {
    /// What the owner reads.
    pub fn owner_text(self) -> &'static str {
        match self {
            Self::InPlaceOpen => "already in a fork.",
            Self::Full => {
                "three forks are open already: end one (Save, Report or Exit in its thread, or \
                 archive the thread) to open another."
            }
            Self::NeedsThread => {
                "another fork is open, and a fork beside it needs a thread of its own: open it \
                 from the home channel."
            }
        }
    }

    /// The error text the agent reads (the owner is told with where the forks are).
    pub fn message(self) -> &'static str {
        match self {
            Self::InPlaceOpen => {
                "Error: already in an interactive fork. Use report_updates, exit_fork, or \
                 save_context to end it first."
            }
            Self::Full => {
                "Error: three forks are open already, each in its thread; the owner ends one \
                 (Save, Report or Exit there, or by archiving its thread) before another opens."
            }
            Self::NeedsThread => {
                "Error: another fork is open, and a fork beside it needs a thread of the home \
                 channel of its own; open it from the home channel."
            }
        }
    }
}

/// An `enter_fork` call waiting for its turn to end (IFK-3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnterRequest {
    /// What the fork is about, if the agent said.
    pub topic: Option<String>,
    /// Minutes of silence before the idle check-in (IFK-11).
    pub idle_timeout_minutes: u64,
}

/// How an interactive fork ends (IFK-6, IFK-7).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitAction {
    /// Promote the fork to be the main session (SES-10).
    Save,
    /// Discard it; its summary is already queued as a pending update.
    Report,
    /// Discard it.
    Exit,
}

/// Why `save_context` may not promote this fork (IFK-19).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SaveBlocker {
    /// The main session moved on after the fork began.
    MainChanged,
    /// Background updates arrived after the fork began.
    NewUpdates,
    /// The fork resumes a finished session (a reply or a button).
    Resumed,
}

impl SaveBlocker {
    /// The error text the agent reads.
    pub fn message(self) -> &'static str {
        match self {
            Self::MainChanged => {
                "Error: the main session changed after this fork began, so saving would overwrite \
                 newer context. Use report_updates to pass your findings instead."
            }
            Self::NewUpdates => {
                "Error: new background updates arrived after this fork began and saving would \
                 drop them. Use report_updates to pass your findings instead."
            }
            Self::Resumed => {
                "Error: this fork resumes an earlier background session, which can't become the \
                 main session. Use report_updates to pass your findings instead."
            }
        }
    }
}

/// How the open fork began.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ForkBegin {
    /// A branch of the main session (`/fork`, `enter_fork`).
    #[default]
    Branch,
    /// One of the owner's finished forks, resumed (a reply or a button, IFK-19).
    ResumedOwn,
    /// A background run's session, resumed by the owner. It may carry untrusted text: it keeps
    /// that run's tools and can't schedule anything into the main session (issue 23 §4).
    ResumedRun,
}

/// What the tools need to know about an open interactive fork, readable without its lock.
/// The session reads its start facts from here too; it keeps no copy of them.
#[derive(Debug, Clone, Default)]
pub struct ForkFacts {
    /// Owner messages sent in the fork; the fork-started prompt is turn 0 (IFK-17).
    pub owner_turns: u32,
    /// Whether it branched main or resumes a finished session, and whose (IFK-19).
    pub begin: ForkBegin,
    /// The main session id when the fork began: the parent of its records (SES-8, SES-16),
    /// compared by `save_context` (IFK-19).
    pub main_session_at_start: Option<String>,
    /// The newest pending update's time when the fork began.
    pub newest_update_at_start: Option<DateTime<FixedOffset>>,
    /// Discord messages sent in the fork and not yet recorded (SES-16).
    pub unrecorded_messages: Vec<u64>,
    /// It has a place of its own (a thread, CHN-6): main stays reachable beside it.
    pub own_place: bool,
}

#[derive(Debug, Default)]
struct ControlState {
    enter: Option<EnterRequest>,
    /// A button's turn is running in main: an `enter_fork` call is dropped (BTN-4).
    button_turn: bool,
    /// Exits chosen, one per fork, oldest first.
    exits: Vec<(ForkId, ExitAction)>,
    /// The open forks, in the order they opened.
    forks: Vec<(ForkId, ForkFacts)>,
}

impl ControlState {
    fn fork(&mut self, fork: ForkId) -> Option<&mut ForkFacts> {
        self.forks
            .iter_mut()
            .find_map(|(id, facts)| (*id == fork).then_some(facts))
    }
}

/// Requests and fork facts shared by one session's clients and their tools.
#[derive(Debug, Default)]
pub struct ForkControl {
    state: Mutex<ControlState>,
}

impl ForkControl {
    fn lock(&self) -> MutexGuard<'_, ControlState> {
        self.state.lock()
    }

    /// Records an `enter_fork` call; the latest one wins. `false`: dropped, because it came
    /// from a button's turn (BTN-4).
    pub fn request_enter(&self, request: EnterRequest) -> bool {
        let mut state = self.lock();
        if state.button_turn {
            return false;
        }
        state.enter = Some(request);
        true
    }

    /// A button's turn starts (`true`) or ends in main: meanwhile `enter_fork` calls are
    /// dropped (BTN-4).
    pub fn set_button_turn(&self, on: bool) {
        self.lock().button_turn = on;
    }

    /// Whether an `enter_fork` call is waiting (the turn is then cut short, AGT-18).
    pub fn enter_requested(&self) -> bool {
        self.lock().enter.is_some()
    }

    /// Takes the waiting `enter_fork` call.
    pub fn take_enter(&self) -> Option<EnterRequest> {
        self.lock().enter.take()
    }

    /// Records the exit the agent chose for `fork`; it happens after the turn (IFK-6).
    pub fn set_exit(&self, fork: ForkId, action: ExitAction) {
        let mut state = self.lock();
        state.exits.retain(|(id, _)| *id != fork);
        state.exits.push((fork, action));
    }

    /// Takes the oldest exit chosen, with its fork.
    pub fn take_exit(&self) -> Option<(ForkId, ExitAction)> {
        let mut state = self.lock();
        (!state.exits.is_empty()).then(|| state.exits.remove(0))
    }

    /// Takes the exit chosen for `fork`, if any.
    pub fn take_exit_of(&self, fork: ForkId) -> Option<ExitAction> {
        let mut state = self.lock();
        let at = state.exits.iter().position(|(id, _)| *id == fork)?;
        Some(state.exits.remove(at).1)
    }

    /// Whether another fork may open now, as far as the open ones say: none without a place of
    /// its own, fewer than [`MAX_FORKS`].
    pub fn room(&self) -> Result<(), NoRoom> {
        let state = self.lock();
        if state.forks.iter().any(|(_, facts)| !facts.own_place) {
            Err(NoRoom::InPlaceOpen)
        } else if state.forks.len() >= MAX_FORKS {
            Err(NoRoom::Full)
        } else {
            Ok(())
        }
    }

    /// Marks `fork` as open.
    pub fn fork_opened(&self, fork: ForkId, facts: ForkFacts) {
        let mut state = self.lock();
        state.exits.retain(|(id, _)| *id != fork);
        state.forks.push((fork, facts));
    }

    /// Marks `fork` as closed and returns its facts, with the messages it sent that were not
    /// recorded yet; `None` if it was not open.
    pub fn fork_closed(&self, fork: ForkId) -> Option<ForkFacts> {
        let mut state = self.lock();
        state.exits.retain(|(id, _)| *id != fork);
        let at = state.forks.iter().position(|(id, _)| *id == fork)?;
        Some(state.forks.remove(at).1)
    }

    /// Whether any interactive fork is open.
    pub fn in_fork(&self) -> bool {
        !self.lock().forks.is_empty()
    }

    /// Whether `fork` is open.
    pub fn is_open(&self, fork: ForkId) -> bool {
        self.lock().fork(fork).is_some()
    }

    /// The open forks, in the order they opened.
    pub fn open_forks(&self) -> Vec<ForkId> {
        self.lock().forks.iter().map(|(id, _)| *id).collect()
    }

    /// The open fork without a place of its own, if there is one: the main conversation's
    /// doors lead to it (IFK-1).
    pub fn in_place(&self) -> Option<ForkId> {
        self.lock()
            .forks
            .iter()
            .find_map(|(id, facts)| (!facts.own_place).then_some(*id))
    }

    /// Whether `fork` is a background run's session the owner resumed (issue 23 §4).
    pub fn in_resumed_run(&self, fork: ForkId) -> bool {
        self.lock()
            .fork(fork)
            .is_some_and(|facts| facts.begin == ForkBegin::ResumedRun)
    }

    /// Counts an owner message in `fork`.
    pub fn owner_spoke(&self, fork: ForkId) {
        if let Some(facts) = self.lock().fork(fork) {
            facts.owner_turns += 1;
        }
    }

    /// The main session id when `fork` began (`None` when it is not open, or when main had no
    /// session yet).
    pub fn main_session_at_start(&self, fork: ForkId) -> Option<String> {
        self.lock()
            .fork(fork)
            .and_then(|facts| facts.main_session_at_start.clone())
    }

    /// A copy of `fork`'s facts, while it is open.
    pub fn facts(&self, fork: ForkId) -> Option<ForkFacts> {
        self.lock().fork(fork).cloned()
    }

    /// Notes a Discord message sent inside `fork`, for reply tracking (SES-16).
    pub fn note_message(&self, fork: ForkId, message_id: u64) {
        if let Some(facts) = self.lock().fork(fork) {
            facts.unrecorded_messages.push(message_id);
        }
    }

    /// [`Self::note_message`] for a send that may not have produced an id.
    pub fn note_message_opt(&self, fork: ForkId, message_id: Option<u64>) {
        if let Some(id) = message_id {
            self.note_message(fork, id);
        }
    }

    /// Takes the messages noted in `fork` since the last call.
    pub fn take_messages(&self, fork: ForkId) -> Vec<u64> {
        self.lock()
            .fork(fork)
            .map(|facts| std::mem::take(&mut facts.unrecorded_messages))
            .unwrap_or_default()
    }

    /// Why saving `fork` is refused now, given the current main session id and the newest
    /// pending update's time (IFK-19).
    pub fn save_blocker(
        &self,
        fork: ForkId,
        current_main: Option<&str>,
        newest_update: Option<DateTime<FixedOffset>>,
    ) -> Option<SaveBlocker> {
        let mut state = self.lock();
        let facts = state.fork(fork)?;
        if facts.begin != ForkBegin::Branch {
            Some(SaveBlocker::Resumed)
        } else if facts.main_session_at_start.as_deref() != current_main {
            Some(SaveBlocker::MainChanged)
        } else if newest_update.is_some() && newest_update > facts.newest_update_at_start {
            Some(SaveBlocker::NewUpdates)
        } else {
            None
        }
    }
}

#[cfg(test)]
#[path = "fork_control_tests.rs"]
mod tests;
