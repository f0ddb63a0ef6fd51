//! The mark that a persistent routine is running, so it never overlaps itself (PRS-8).

use std::{collections::HashSet, sync::Arc};

use parking_lot::Mutex;

/// Marks a persistent routine as running until dropped (PRS-8).
pub(super) struct PersistentGuard {
    running: Arc<Mutex<HashSet<String>>>,
    id: String,
}

impl PersistentGuard {
    pub(super) fn take(running: &Arc<Mutex<HashSet<String>>>, id: &str) -> Option<Self> {
        running.lock().insert(id.to_owned()).then(|| Self {
            running: Arc::clone(running),
            id: id.to_owned(),
        })
    }
}

impl Drop for PersistentGuard {
    fn drop(&mut self) {
        self.running.lock().remove(&self.id);
    }
}
