//! The shared switchboard between the `discord` tools and the session that runs them: what the
//! agent asked for during a turn (enter a fork, leave one) and the facts about the open
//! interactive fork that the tools check (IFK-3, IFK-6, IFK-17, IFK-19).
//!
//! Tools run while the session lock is held by the turn that called them, so they never take
//! that lock; they leave requests here, and the session acts on them after the turn.
//!
//! The facts here are the only copy: the session keeps under its lock just what needs the
//! lock (the fork's client), and opens and closes both halves together (IFK-1).

use chrono::{DateTime, FixedOffset};
use parking_lot::{Mutex, MutexGuard};

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

/// What the tools need to know about the open interactive fork, readable without the session
/// lock. The session reads its start facts from here too; it keeps no copy of them.
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
}

#[derive(Debug, Default)]
struct ControlState {
    enter: Option<EnterRequest>,
    exit: Option<ExitAction>,
    fork: Option<ForkFacts>,
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

    /// Records an `enter_fork` call; the latest one wins.
    pub fn request_enter(&self, request: EnterRequest) {
        self.lock().enter = Some(request);
    }

    /// Whether an `enter_fork` call is waiting (the turn is then cut short, AGT-18).
    pub fn enter_requested(&self) -> bool {
        self.lock().enter.is_some()
    }

    /// Takes the waiting `enter_fork` call.
    pub fn take_enter(&self) -> Option<EnterRequest> {
        self.lock().enter.take()
    }

    /// Records the exit the agent chose; it happens after the turn (IFK-6).
    pub fn set_exit(&self, action: ExitAction) {
        self.lock().exit = Some(action);
    }

    /// Takes the exit chosen during the last turn.
    pub fn take_exit(&self) -> Option<ExitAction> {
        self.lock().exit.take()
    }

    /// Marks an interactive fork as open.
    pub fn fork_opened(&self, facts: ForkFacts) {
        let mut state = self.lock();
        state.fork = Some(facts);
        state.exit = None;
    }

    /// Marks the fork as closed and returns its facts, with the messages it sent that were not
    /// recorded yet; `None` if no fork was open.
    pub fn fork_closed(&self) -> Option<ForkFacts> {
        let mut state = self.lock();
        state.exit = None;
        state.fork.take()
    }

    /// Whether an interactive fork is open.
    pub fn in_fork(&self) -> bool {
        self.lock().fork.is_some()
    }

    /// Whether the open fork is a background run's session the owner resumed (issue 23 §4).
    pub fn in_resumed_run(&self) -> bool {
        self.lock()
            .fork
            .as_ref()
            .is_some_and(|fork| fork.begin == ForkBegin::ResumedRun)
    }

    /// Counts an owner message in the open fork.
    pub fn owner_spoke(&self) {
        if let Some(fork) = self.lock().fork.as_mut() {
            fork.owner_turns += 1;
        }
    }

    /// The main session id when the open fork began (`None` outside a fork, or when main had
    /// no session yet).
    pub fn main_session_at_start(&self) -> Option<String> {
        self.lock()
            .fork
            .as_ref()
            .and_then(|fork| fork.main_session_at_start.clone())
    }

    /// A copy of the open fork's facts.
    pub fn facts(&self) -> Option<ForkFacts> {
        self.lock().fork.clone()
    }

    /// Notes a Discord message sent inside the open fork, for reply tracking (SES-16).
    pub fn note_message(&self, message_id: u64) {
        if let Some(fork) = self.lock().fork.as_mut() {
            fork.unrecorded_messages.push(message_id);
        }
    }

    /// [`Self::note_message`] for a send that may not have produced an id.
    pub fn note_message_opt(&self, message_id: Option<u64>) {
        if let Some(id) = message_id {
            self.note_message(id);
        }
    }

    /// Takes the messages noted since the last call.
    pub fn take_messages(&self) -> Vec<u64> {
        self.lock()
            .fork
            .as_mut()
            .map(|fork| std::mem::take(&mut fork.unrecorded_messages))
            .unwrap_or_default()
    }

    /// Why saving is refused now, given the current main session id and the newest pending
    /// update's time (IFK-19).
    pub fn save_blocker(
        &self,
        current_main: Option<&str>,
        newest_update: Option<DateTime<FixedOffset>>,
    ) -> Option<SaveBlocker> {
        let state = self.lock();
        let fork = state.fork.as_ref()?;
        if fork.begin != ForkBegin::Branch {
            Some(SaveBlocker::Resumed)
        } else if fork.main_session_at_start.as_deref() != current_main {
            Some(SaveBlocker::MainChanged)
        } else if newest_update.is_some() && newest_update > fork.newest_update_at_start {
            Some(SaveBlocker::NewUpdates)
        } else {
            None
        }
    }
}

#[cfg(test)]
#[path = "fork_control_tests.rs"]
mod tests;
