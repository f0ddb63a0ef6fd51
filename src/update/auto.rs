//! The auto-update decisions (UPD-2, UPD-4, SCH-5), plain functions of injected time and
//! state; the loop that acts on them lives in `app`.

use std::time::{Duration, Instant};

use super::{Detection, UpdateError, release::Release};

/// Whether a poll tick should look for an update (UPD-2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckDue {
    /// `auto_update` is off.
    Off,
    /// The last check was less than `auto_update_interval` ago.
    NotYet,
    /// Look now.
    Now,
}

/// A tick checks when auto-update is on and at least `interval` passed since the last check
/// (monotonic clock); the first tick after start-up (no last check) checks.
pub fn check_due(
    enabled: bool,
    interval: Duration,
    last_check: Option<Instant>,
    now: Instant,
) -> CheckDue {
    if !enabled {
        return CheckDue::Off;
    }
    match last_check {
        Some(last) if now.saturating_duration_since(last) < interval => CheckDue::NotYet,
        _ => CheckDue::Now,
    }
}

/// What the owner's conversation is doing when an update could be applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentActivity {
    /// Nothing in progress.
    Idle,
    /// The main session is in a turn (its lock is held).
    Turn,
    /// An interactive fork is open.
    InFork,
}

/// What to do after a check (UPD-4), in the spec's order.
#[derive(Debug)]
pub enum AutoStep {
    /// The fetch failed: warn and skip this check.
    FetchFailed(UpdateError),
    /// No newer release.
    NothingNew,
    /// The newest release was applied before and this binary still isn't newer (its
    /// `Cargo.toml` version was not bumped): warn instead of updating in a loop.
    AlreadyApplied(Release),
    /// The agent is busy: try again at a later check ("agent busy").
    DeferBusy,
    /// Updates are applied only in the hour `auto_update_hour` (local time).
    WaitForHour(u8),
    /// Apply this release now.
    Apply(Release),
}

/// The step for a check's `detection`, given what the agent is doing and the local hour
/// (0–23) against `auto_update_hour`. Only the hour counts, so a DST change only moves the
/// window with the wall clock.
pub fn next_step(
    detection: Result<Detection, UpdateError>,
    activity: AgentActivity,
    local_hour: u32,
    update_hour: u8,
) -> AutoStep {
    let release = match detection {
        Err(error) => return AutoStep::FetchFailed(error),
        Ok(Detection::UpToDate) => return AutoStep::NothingNew,
        Ok(Detection::AlreadyApplied(release)) => return AutoStep::AlreadyApplied(release),
        Ok(Detection::Available(release)) => release,
    };
    if activity != AgentActivity::Idle {
        return AutoStep::DeferBusy;
    }
    if local_hour != u32::from(update_hour) {
        return AutoStep::WaitForHour(update_hour);
    }
    AutoStep::Apply(release)
}

#[cfg(test)]
#[path = "auto_tests.rs"]
mod tests;
