//! Telling the owner once (issue 40 §1, KEEP-1): a file that can't be read, or whose entries a
//! store can't read, is reported the first time this process meets it, and again only after it read
//! cleanly in between.

use std::{collections::HashSet, path::Path, path::PathBuf, sync::LazyLock};

use parking_lot::Mutex;

use crate::state::set_aside::{Trouble, report};

static TOLD: LazyLock<Mutex<HashSet<(PathBuf, Trouble)>>> = LazyLock::new(Mutex::default);

/// `path` has `trouble` (why: `reason`): logged every time, the owner told the first time.
pub(crate) fn trouble(path: &Path, trouble: Trouble, reason: &str) {
    tracing::warn!(path = %path.display(), ?trouble, %reason, "state file trouble");
    if TOLD.lock().insert((path.to_owned(), trouble)) {
        report(path, trouble, reason);
    }
}

/// `path` read without `trouble`: the next time it has it, the owner is told again.
pub(super) fn cleared(path: &Path, trouble: Trouble) {
    let mut told = TOLD.lock();
    if !told.is_empty() {
        told.remove(&(path.to_owned(), trouble));
    }
}
