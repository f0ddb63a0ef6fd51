//! At most `bg_max_concurrent` background runs at once; the others wait their turn in arrival
//! order (issue 16: each run is a Claude CLI of 200–300 MB, so ten routines due in the same
//! minute must not start ten). The limit is read at every arrival, so `/config
//! bg_max_concurrent` applies without a restart. Waiting never touches the main session.

use parking_lot::Mutex;
use tokio::sync::{Semaphore, SemaphorePermit};

/// The gate background runs pass through.
pub(super) struct RunGate {
    slots: Semaphore,
    /// The limit the semaphore's permits add up to (or will, once busy permits come back).
    applied: Mutex<usize>,
}

/// A held slot; dropping it lets the next run in.
pub(super) struct RunSlot<'a> {
    _permit: SemaphorePermit<'a>,
}

impl RunGate {
    /// A gate for `limit` runs at once (at least one).
    pub(super) fn new(limit: usize) -> Self {
        let limit = limit.max(1);
        Self {
            slots: Semaphore::new(limit),
            applied: Mutex::new(limit),
        }
    }

    /// Waits for a slot under `limit` (first come, first served).
    pub(super) async fn enter(&self, limit: usize) -> RunSlot<'_> {
        self.adjust(limit.max(1));
        match self.slots.acquire().await {
            Ok(permit) => RunSlot { _permit: permit },
            // The semaphore is never closed.
            Err(_) => unreachable!("the run gate is never closed"),
        }
    }

    /// Whether a run arriving now would have to wait.
    pub(super) fn is_full(&self) -> bool {
        self.slots.available_permits() == 0
    }

    /// Brings the permits in line with `limit`: added at once; removed as they come free.
    fn adjust(&self, limit: usize) {
        let mut applied = self.applied.lock();
        if limit > *applied {
            self.slots.add_permits(limit - *applied);
            *applied = limit;
        } else if limit < *applied {
            *applied -= self.slots.forget_permits(*applied - limit);
        }
    }
}

#[cfg(test)]
#[path = "run_gate_tests.rs"]
mod tests;
