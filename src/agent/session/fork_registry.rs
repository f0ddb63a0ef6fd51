//! The open interactive forks, each by its id (issue 41 §1): what interrupts, main's turns and
//! the idle checks reach without a fork's lock (its front end, its live client, what main
//! said beside it), and the lock its turns run under.
//!
//! A fork is in this registry exactly while its facts are on the switchboard
//! ([`ForkControl`](crate::domain::fork_control::ForkControl)): it is added before its facts
//! and removed after them, so a fork the switchboard says is open is always found here.

use std::{
    ops::{Deref, DerefMut},
    sync::{
        Arc,
        atomic::{AtomicU64, Ordering},
    },
};

use parking_lot::Mutex;
use tokio::sync::{Mutex as AsyncMutex, OwnedMutexGuard};

use super::{LiveSide, fork::ForkSlot, rest::RestStop};
use crate::front_end::{ForkId, FrontEnd};

/// One open fork's half outside its lock, with the lock.
pub(super) struct ForkEntry {
    pub(super) id: ForkId,
    slot: Arc<AsyncMutex<ForkSlot>>,
    /// Where its output goes: a front end of its own where the front end has one per fork
    /// (a Discord thread's), else main's.
    pub(super) front_end: Arc<dyn FrontEnd>,
    /// Its client as interrupts reach it.
    pub(super) live: Mutex<LiveSide>,
    /// What main said beside it, one line per exchange, and what forks saved meanwhile said,
    /// for its Save (CHN-7).
    pub(super) meanwhile: Mutex<Vec<String>>,
    /// Its own exchanges, one line each: kept for the other open forks when it is saved.
    pub(super) said: Mutex<Vec<String>>,
    /// Marked while its CLI is put to sleep under its lock (BGF-2).
    pub(super) rest_stop: RestStop,
}

impl ForkEntry {
    /// A fork about to open, its lock taken: nobody else can reach it before it is filled.
    pub(super) fn opening(id: ForkId, front_end: Arc<dyn FrontEnd>) -> HeldFork {
        let entry = Arc::new(Self {
            id,
            slot: Arc::default(),
            front_end,
            live: Mutex::default(),
            meanwhile: Mutex::default(),
            said: Mutex::default(),
            rest_stop: RestStop::default(),
        });
        let slot = Arc::clone(&entry.slot)
            .try_lock_owned()
            .unwrap_or_else(|_| unreachable!("a new fork's lock is free"));
        HeldFork { entry, slot }
    }

    /// Takes its lock.
    pub(super) async fn lock(self: &Arc<Self>) -> HeldFork {
        let slot = Arc::clone(&self.slot).lock_owned().await;
        HeldFork {
            entry: Arc::clone(self),
            slot,
        }
    }

    /// Takes its lock if nothing holds it.
    pub(super) fn try_lock(self: &Arc<Self>) -> Option<HeldFork> {
        let slot = Arc::clone(&self.slot).try_lock_owned().ok()?;
        Some(HeldFork {
            entry: Arc::clone(self),
            slot,
        })
    }

    /// Whether a turn (or another locked operation) holds it.
    pub(super) fn is_busy(&self) -> bool {
        self.slot.try_lock().is_err()
    }

    /// Whether the owner is talking in it: its lock held, and not by a stop for rest.
    pub(super) fn in_conversation(&self) -> bool {
        self.is_busy() && !self.rest_stop.active()
    }
}

/// A fork's lock, held: its locked half, with the entry it belongs to.
pub(super) struct HeldFork {
    pub(super) entry: Arc<ForkEntry>,
    slot: OwnedMutexGuard<ForkSlot>,
}

impl HeldFork {
    /// The fork's id.
    pub(super) fn id(&self) -> ForkId {
        self.entry.id
    }
}

impl Deref for HeldFork {
    type Target = ForkSlot;

    fn deref(&self) -> &ForkSlot {
        &self.slot
    }
}

impl DerefMut for HeldFork {
    fn deref_mut(&mut self) -> &mut ForkSlot {
        &mut self.slot
    }
}

/// The open forks, in the order they opened.
#[derive(Default)]
pub(super) struct Forks {
    open: Mutex<Vec<Arc<ForkEntry>>>,
    last_id: AtomicU64,
}

impl Forks {
    /// An id no fork of this process had.
    pub(super) fn next_id(&self) -> ForkId {
        ForkId(self.last_id.fetch_add(1, Ordering::Relaxed) + 1)
    }

    /// The open fork `id`.
    pub(super) fn get(&self, id: ForkId) -> Option<Arc<ForkEntry>> {
        self.open
            .lock()
            .iter()
            .find(|entry| entry.id == id)
            .cloned()
    }

    /// Every open fork.
    pub(super) fn all(&self) -> Vec<Arc<ForkEntry>> {
        self.open.lock().clone()
    }

    pub(super) fn insert(&self, entry: Arc<ForkEntry>) {
        self.open.lock().push(entry);
    }

    pub(super) fn remove(&self, id: ForkId) {
        self.open.lock().retain(|entry| entry.id != id);
    }
}
