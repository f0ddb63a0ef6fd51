//! The refill-on-read ping budget for background forks (PNG-1..10), kept in
//! `state/ping_budget.json` (format in section D.2).
//!
//! Every operation reads the file, refills tokens for the time since `last_refill` (PNG-3),
//! resets the daily counters when the day changed in the configured zone (PNG-4), applies its
//! change and writes the file back atomically (PNG-10; never git-committed), all under a mutex
//! shared by clones. A missing file starts from the defaults (PNG-2); a corrupt one is moved
//! aside and replaced by the defaults.

use std::path::Path;

use chrono::{DateTime, FixedOffset, NaiveDate, Timelike};
use chrono_tz::Tz;
use serde::{Deserialize, Serialize};

use super::StateError;
use super::paths::DataDir;
use super::state_file::{Json, StateFile};

/// What the file holds: the format `doctor` and the start-up check judge it by (issue 24).
pub(super) type Format = Json<Option<BudgetState>>;

/// Tokens the budget holds when full, unless configured otherwise (PNG-2).
pub const DEFAULT_CAPACITY: u32 = 5;

/// Minutes per refilled token, unless configured otherwise (PNG-2).
pub const DEFAULT_REFILL_RATE_MINUTES: u32 = 90;

mod snapshot;

pub use snapshot::BudgetSnapshot;

/// Outcome of trying to spend a token (PNG-5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spend {
    /// A token was taken and `daily_used` incremented.
    Spent,
    /// Fewer than one whole token was available; nothing changed but the refill.
    Exhausted,
}

/// Errors from [`PingBudget::configure`].
#[derive(Debug, thiserror::Error)]
pub enum BudgetError {
    /// A setting was zero or negative (PNG-9, F-39: only positive integers are accepted).
    #[error("{setting} must be a positive integer")]
    NotPositive {
        /// `capacity` or `refill_rate`.
        setting: &'static str,
    },
    /// Reading or writing the budget file failed.
    #[error(transparent)]
    State(#[from] StateError),
}

/// Checks a `/ping-budget` argument as given by the owner: positive and within `u32`.
/// `setting` names it in the error (`capacity` or `refill_rate`).
pub fn positive_setting(setting: &'static str, value: i64) -> Result<u32, BudgetError> {
    match u32::try_from(value) {
        Ok(v) if v > 0 => Ok(v),
        _ => Err(BudgetError::NotPositive { setting }),
    }
}

/// The file content, in the key order of section D.2.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct BudgetState {
    capacity: u32,
    available: f64,
    refill_rate_minutes: u32,
    last_refill: DateTime<FixedOffset>,
    critical_used: u32,
    critical_reset_date: NaiveDate,
    daily_used: u32,
    daily_used_reset: NaiveDate,
}

/// `now` in the zone as stored: fixed offset, whole microseconds (like `super::now_in`).
fn stored_time(now: DateTime<Tz>) -> DateTime<FixedOffset> {
    let now = now.fixed_offset();
    now.with_nanosecond(now.nanosecond() / 1_000 * 1_000)
        .unwrap_or(now)
}

impl BudgetState {
    /// A fresh budget at `now` (PNG-2).
    fn defaults(now: DateTime<Tz>) -> Self {
        let today = now.date_naive();
        Self {
            capacity: DEFAULT_CAPACITY,
            available: f64::from(DEFAULT_CAPACITY),
            refill_rate_minutes: DEFAULT_REFILL_RATE_MINUTES,
            last_refill: stored_time(now),
            critical_used: 0,
            critical_reset_date: today,
            daily_used: 0,
            daily_used_reset: today,
        }
    }

    /// Repairs hand-edited values: non-positive settings fall back to the defaults and
    /// `available` is forced into `0..=capacity` (JSON cannot hold NaN or infinities).
    fn sanitize(mut self) -> Self {
        if self.capacity == 0 {
            self.capacity = DEFAULT_CAPACITY;
        }
        if self.refill_rate_minutes == 0 {
            self.refill_rate_minutes = DEFAULT_REFILL_RATE_MINUTES;
        }
        self.available = self.available.clamp(0.0, f64::from(self.capacity));
        self
    }

    /// Refill (PNG-3) and day reset (PNG-4) at `now`.
    ///
    /// A `last_refill` in the future (clock moved back) counts as no time elapsed, so it never
    /// reduces `available`.
    #[allow(clippy::cast_precision_loss)] // microseconds past 2^52 (143 years) need no exactness
    fn advance(&mut self, now: DateTime<Tz>) {
        let now_stored = stored_time(now);
        let elapsed = (now_stored - self.last_refill).num_microseconds();
        let elapsed_minutes = elapsed.unwrap_or(i64::MAX).max(0) as f64 / 60e6;
        let available = self.available + elapsed_minutes / f64::from(self.refill_rate_minutes);
        // Refills accumulate over many reads; snap float noise (89/90 + 1/90 < 1.0) to the
        // whole token it stands for, so a token is usable exactly when it is due.
        let whole = available.round();
        let available = if (available - whole).abs() < 1e-9 {
            whole
        } else {
            available
        };
        self.available = available.clamp(0.0, f64::from(self.capacity));
        self.last_refill = now_stored;

        let today = now.date_naive();
        if self.daily_used_reset != today {
            self.daily_used = 0;
            self.daily_used_reset = today;
        }
        if self.critical_reset_date != today {
            self.critical_used = 0;
            self.critical_reset_date = today;
        }
    }

    fn snapshot(&self) -> BudgetSnapshot {
        BudgetSnapshot {
            capacity: self.capacity,
            available: self.available,
            refill_rate_minutes: self.refill_rate_minutes,
            daily_used: self.daily_used,
            critical_used: self.critical_used,
        }
    }
}

/// Handle to `state/ping_budget.json`. Cheap to clone; clones share one lock, so concurrent
/// spends in this process never lose an update. Operations are small blocking file I/O.
#[derive(Debug, Clone)]
pub struct PingBudget {
    file: StateFile<Format>,
    tz: Tz,
    clock: crate::clock::Clock,
}

impl PingBudget {
    /// A handle for `state/ping_budget.json` under `data_dir`; days are counted in `tz`.
    /// Touches nothing yet.
    pub fn new(data_dir: &DataDir, tz: Tz) -> Self {
        Self {
            file: StateFile::new(data_dir.ping_budget_file()),
            tz,
            clock: crate::clock::Clock::system(),
        }
    }

    /// The same budget, reading time from `clock` (issue 40 §2).
    #[must_use]
    pub fn with_clock(mut self, clock: crate::clock::Clock) -> Self {
        self.clock = clock;
        self
    }

    /// The backing file.
    pub fn path(&self) -> &Path {
        self.file.path()
    }

    fn now(&self) -> DateTime<Tz> {
        self.clock.now().with_timezone(&self.tz)
    }

    /// The budget now, after refill and day reset; the file is rewritten (PNG-3).
    pub fn snapshot(&self) -> Result<BudgetSnapshot, StateError> {
        self.snapshot_at(self.now())
    }

    /// [`PingBudget::snapshot`] at a given time.
    pub fn snapshot_at(&self, now: DateTime<Tz>) -> Result<BudgetSnapshot, StateError> {
        self.update(now, |_| ()).map(|((), snap)| snap)
    }

    /// Takes one token if a whole one is available and counts it in `daily_used` (PNG-5).
    ///
    /// F-45 (a failed Discord send must not cost a token): either call this only after the
    /// send succeeded, or spend first and [`PingBudget::refund`] when the send fails.
    pub fn try_spend(&self) -> Result<Spend, StateError> {
        self.try_spend_at(self.now())
    }

    /// [`PingBudget::try_spend`] at a given time.
    pub fn try_spend_at(&self, now: DateTime<Tz>) -> Result<Spend, StateError> {
        self.update(now, |state| {
            if state.available >= 1.0 {
                state.available -= 1.0;
                state.daily_used += 1;
                Spend::Spent
            } else {
                Spend::Exhausted
            }
        })
        .map(|(spend, _)| spend)
    }

    /// Gives back a token taken by [`PingBudget::try_spend`] whose send then failed (F-45):
    /// `available + 1` (capped at capacity) and `daily_used - 1` (not below 0).
    pub fn refund(&self) -> Result<BudgetSnapshot, StateError> {
        self.refund_at(self.now())
    }

    /// [`PingBudget::refund`] at a given time.
    pub fn refund_at(&self, now: DateTime<Tz>) -> Result<BudgetSnapshot, StateError> {
        self.update(now, |state| {
            state.available = (state.available + 1.0).min(f64::from(state.capacity));
            state.daily_used = state.daily_used.saturating_sub(1);
        })
        .map(|((), snap)| snap)
    }

    /// Counts a critical ping (PNG-6): `critical_used + 1`, no token consumed.
    pub fn record_critical(&self) -> Result<(), StateError> {
        self.record_critical_at(self.now())
    }

    /// [`PingBudget::record_critical`] at a given time.
    pub fn record_critical_at(&self, now: DateTime<Tz>) -> Result<(), StateError> {
        self.update(now, |state| {
            state.critical_used = state.critical_used.saturating_add(1);
        })
        .map(|_| ())
    }

    /// Sets the capacity and/or refill rate, keeping the rest of the state (PNG-9).
    ///
    /// Both must be positive: a `0` is rejected with [`BudgetError::NotPositive`] before the
    /// file is touched (use [`positive_setting`] to check raw signed input). Tokens accrued
    /// so far are refilled at the old rate first; a smaller capacity clamps `available`.
    pub fn configure(
        &self,
        capacity: Option<u32>,
        refill_rate_minutes: Option<u32>,
    ) -> Result<BudgetSnapshot, BudgetError> {
        self.configure_at(capacity, refill_rate_minutes, self.now())
    }

    /// [`PingBudget::configure`] at a given time.
    pub fn configure_at(
        &self,
        capacity: Option<u32>,
        refill_rate_minutes: Option<u32>,
        now: DateTime<Tz>,
    ) -> Result<BudgetSnapshot, BudgetError> {
        for (setting, value) in [("capacity", capacity), ("refill_rate", refill_rate_minutes)] {
            if value == Some(0) {
                return Err(BudgetError::NotPositive { setting });
            }
        }
        Ok(self
            .update(now, |state| {
                if let Some(capacity) = capacity {
                    state.capacity = capacity;
                    state.available = state.available.min(f64::from(capacity));
                }
                if let Some(rate) = refill_rate_minutes {
                    state.refill_rate_minutes = rate;
                }
            })?
            .1)
    }

    /// One locked read → advance → `change` → write cycle; returns what `change` returned and
    /// the resulting snapshot. A missing or blank file starts from the defaults; a corrupt one
    /// is set aside and replaced by them.
    fn update<T>(
        &self,
        now: DateTime<Tz>,
        change: impl FnOnce(&mut BudgetState) -> T,
    ) -> Result<(T, BudgetSnapshot), StateError> {
        self.file.update(|stored| {
            let mut state = stored
                .take()
                .map_or_else(|| BudgetState::defaults(now), BudgetState::sanitize);
            state.advance(now);
            let out = change(&mut state);
            let snapshot = state.snapshot();
            *stored = Some(state);
            (out, snapshot)
        })
    }
}

#[cfg(test)]
mod tests;
