//! Backoff for starting the Claude Code CLI (issue 16): when the CLI dies before it answers
//! `initialize` (a broken install, a bad setting, a node that won't run), starting it again at
//! once only repeats the crash. The gate lets one start through per waiting period, doubling
//! the wait after each failure up to a ceiling, and reports the moment things go wrong (so the
//! owner is told once) and the moment they recover.
//!
//! The owner's own messages may try again sooner than background work (one try per
//! [`BackoffPolicy::owner_spacing`]): a person waiting for an answer is not a spawn storm.

use std::time::Duration;

use tokio::time::Instant;

use parking_lot::Mutex;

use super::ClaudeError;

/// How long to wait between failed starts.
#[derive(Debug, Clone, Copy)]
pub struct BackoffPolicy {
    /// The wait after the first failure; each further failure doubles it.
    pub first: Duration,
    /// The longest wait.
    pub max: Duration,
    /// How often the owner's own messages may try, whatever the backoff.
    pub owner_spacing: Duration,
}

impl Default for BackoffPolicy {
    fn default() -> Self {
        Self {
            first: Duration::from_secs(2),
            max: Duration::from_secs(300),
            owner_spacing: Duration::from_secs(10),
        }
    }
}

impl BackoffPolicy {
    fn wait_after(&self, failures: u32) -> Duration {
        let doublings = failures.saturating_sub(1).min(20);
        self.first.saturating_mul(1 << doublings).min(self.max)
    }
}

/// Who wants a CLI started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Starter {
    /// The owner's message (or a foreground job in the main session).
    Owner,
    /// A background run or a webhook screening.
    Background,
}

/// What a start attempt changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StartTransition {
    /// Nothing changed: it still works, or still fails.
    Unchanged,
    /// The first failure after a good start.
    StartedFailing,
    /// A start worked after `failures` failed ones.
    Recovered {
        /// Failed starts in the streak that just ended.
        failures: u32,
        /// Whether the owner had heard of the streak (so should hear it ended).
        told: bool,
    },
}

#[derive(Debug)]
enum GateState {
    Healthy,
    Failing {
        failures: u32,
        last_error: String,
        next_try: Instant,
        last_try: Instant,
        /// Whether the owner has heard of this streak (from a reply or a notice).
        told: bool,
    },
}

/// Shared by every session the process starts.
#[derive(Debug)]
pub struct StartGate {
    policy: BackoffPolicy,
    state: Mutex<GateState>,
}

impl Default for StartGate {
    fn default() -> Self {
        Self::new(BackoffPolicy::default())
    }
}

impl StartGate {
    /// A gate with `policy`, starting healthy.
    #[must_use]
    pub fn new(policy: BackoffPolicy) -> Self {
        Self {
            policy,
            state: Mutex::new(GateState::Healthy),
        }
    }

    /// Whether `starter` may start a CLI at `now`. While failing, a start that is let through
    /// pushes the next background try a full wait ahead, so concurrent callers don't all probe.
    ///
    /// # Errors
    /// [`ClaudeError::NotStarting`] with the wait left and the last failure.
    pub fn admit(&self, starter: Starter, now: Instant) -> Result<(), ClaudeError> {
        let mut state = self.state.lock();
        let GateState::Failing {
            failures,
            last_error,
            next_try,
            last_try,
            ..
        } = &mut *state
        else {
            return Ok(());
        };
        let owner_may = starter == Starter::Owner && now >= *last_try + self.policy.owner_spacing;
        if now >= *next_try || owner_may {
            *last_try = now;
            *next_try = (*next_try).max(now + self.policy.wait_after(*failures));
            return Ok(());
        }
        let mut ready_at = *next_try;
        if starter == Starter::Owner {
            ready_at = ready_at.min(*last_try + self.policy.owner_spacing);
        }
        Err(ClaudeError::NotStarting {
            retry_in_secs: ready_at.saturating_duration_since(now).as_secs().max(1),
            last_failure: last_error.clone(),
        })
    }

    /// Records how a start admitted at `now` ended.
    pub fn record(&self, outcome: &Result<(), &ClaudeError>, now: Instant) -> StartTransition {
        let mut state = self.state.lock();
        match (outcome, &mut *state) {
            (Ok(()), GateState::Healthy) => StartTransition::Unchanged,
            (Ok(()), GateState::Failing { failures, told, .. }) => {
                let transition = StartTransition::Recovered {
                    failures: *failures,
                    told: *told,
                };
                *state = GateState::Healthy;
                transition
            }
            (Err(error), _) if !is_start_failure(error) => StartTransition::Unchanged,
            (Err(error), GateState::Healthy) => {
                *state = GateState::Failing {
                    failures: 1,
                    last_error: error.to_string(),
                    next_try: now + self.policy.wait_after(1),
                    last_try: now,
                    told: false,
                };
                StartTransition::StartedFailing
            }
            (
                Err(error),
                GateState::Failing {
                    failures,
                    last_error,
                    next_try,
                    ..
                },
            ) => {
                *failures += 1;
                *last_error = error.to_string();
                *next_try = now + self.policy.wait_after(*failures);
                StartTransition::Unchanged
            }
        }
    }

    /// Whether the owner should hear of the current failing streak now: true once per streak,
    /// false while starts work.
    pub fn tell_once(&self) -> bool {
        match &mut *self.state.lock() {
            GateState::Failing { told, .. } if !*told => {
                *told = true;
                true
            }
            _ => false,
        }
    }

    /// The error to hand the caller of a start that just failed: while failing, the same
    /// [`ClaudeError::NotStarting`] later callers get; anything else unchanged.
    pub fn explain(&self, error: ClaudeError, now: Instant) -> ClaudeError {
        if !is_start_failure(&error) {
            return error;
        }
        match &*self.state.lock() {
            GateState::Failing {
                next_try,
                last_error,
                ..
            } => ClaudeError::NotStarting {
                retry_in_secs: next_try.saturating_duration_since(now).as_secs().max(1),
                last_failure: last_error.clone(),
            },
            GateState::Healthy => error,
        }
    }
}

/// The CLI could not be run or died before answering `initialize`. A timeout is not one: it
/// has its own retries (AGT-13); a missing session means the CLI ran fine.
fn is_start_failure(error: &ClaudeError) -> bool {
    matches!(
        error,
        ClaudeError::CliNotFound { .. }
            | ClaudeError::Spawn { .. }
            | ClaudeError::ProcessExited { .. }
    )
}

#[cfg(test)]
#[path = "start_gate_tests.rs"]
mod tests;
