//! Knowing when to read the folders again (issue 17, SCH-2): file events from `routines/` and
//! `reminders/` (the `notify` crate: inotify on Linux, the platform's own API elsewhere), a burst
//! of them coalesced into one sync of just the files named, and a slow full read as the
//! fallback for events a filesystem never sends. A folder removed or replaced (by hand, or an
//! editor's rename) is made again and watched again, with a full read (issue 40 §1, KEEP-4): the
//! folders the owner writes into never vanish. Without events (`OLLIM_FS_EVENTS=off`, or a
//! watcher that can't start or fails) the folders are read every sync interval, as before.
//!
//! [`SyncPlan`] is the timing, plain and driven by the instants it is given; [`FolderWatch`]
//! is the watcher and the inbox its thread fills.

use std::{
    collections::BTreeSet,
    path::{Path, PathBuf},
    sync::Arc,
    time::Duration,
};

use notify::{
    EventKind, RecommendedWatcher, RecursiveMode, Watcher,
    event::{AccessKind, AccessMode, ModifyKind},
};
use parking_lot::Mutex;
use tokio::{sync::Notify, time::Instant};

/// How often the whole folders are read while file events work: the fallback for an event a
/// filesystem drops (and at least the configured sync interval).
pub const FULL_SCAN_WITH_EVENTS: Duration = Duration::from_secs(300);

/// How long after the first event of a burst the sync waits, so that a burst of writes (an
/// editor's save, a tool writing several files) makes one sync.
pub const COALESCE: Duration = Duration::from_millis(150);

/// The longest the scheduler sleeps without looking at the wall clock. Sleeps run on the
/// monotonic clock, so a wall-clock jump (an NTP step, a suspend) is only seen at the next
/// wake: one minute keeps that within cron's own resolution, at the cost of one cheap look
/// (`take_due` + `next_wake`, no file I/O) per idle minute.
pub const LONGEST_SLEEP: Duration = Duration::from_secs(60);

/// Which sync is due.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SyncKind {
    /// Read every file of both folders.
    Full,
    /// Read only the files the events named.
    Changed,
}

/// When the next sync is due and of which kind.
#[derive(Debug)]
pub struct SyncPlan {
    full_every: Duration,
    next_full: Instant,
    /// When the changes seen so far are read: set by the first event of a burst.
    changes_at: Option<Instant>,
}

impl SyncPlan {
    /// A plan whose first full read is `full_every` after `now`.
    pub fn new(full_every: Duration, now: Instant) -> Self {
        Self {
            full_every,
            next_full: now + full_every,
            changes_at: None,
        }
    }

    /// Files changed at `now`: a sync of them is due [`COALESCE`] after the first change of
    /// the burst; later changes join it without pushing it back.
    pub fn changed(&mut self, now: Instant) {
        self.changes_at.get_or_insert(now + COALESCE);
    }

    /// The sync due at `now`, if any; a full one covers the changes.
    pub fn due(&self, now: Instant) -> Option<SyncKind> {
        if now >= self.next_full {
            Some(SyncKind::Full)
        } else if self.changes_at.is_some_and(|at| now >= at) {
            Some(SyncKind::Changed)
        } else {
            None
        }
    }

    /// A sync of `kind` finished at `now`.
    pub fn synced(&mut self, kind: SyncKind, now: Instant) {
        self.changes_at = None;
        if kind == SyncKind::Full {
            self.next_full = now + self.full_every;
        }
    }

    /// Events stopped: full reads every `every` from `now` on.
    pub fn poll_every(&mut self, every: Duration, now: Instant) {
        self.full_every = every;
        self.next_full = self.next_full.min(now + every);
    }

    /// When the loop must wake for the next sync.
    pub fn wake_at(&self) -> Instant {
        self.changes_at
            .map_or(self.next_full, |at| at.min(self.next_full))
    }
}

/// What the watcher saw since the last [`FolderWatch::take`].
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Seen {
    /// `*.md` files created, changed or removed, relative to the data dir.
    pub changed: BTreeSet<PathBuf>,
    /// Events were lost (a queue overflow): only a full read is sure.
    pub rescan: bool,
}

#[derive(Debug, Default)]
struct InboxState {
    seen: Seen,
    /// Watched folders whose removal or move was seen: to be made and watched again.
    lost: BTreeSet<PathBuf>,
    /// Why the events stopped, once they did.
    failure: Option<String>,
}

/// Filled by the watcher's thread, emptied by the scheduler loop.
#[derive(Debug)]
struct Inbox {
    root: PathBuf,
    folders: Vec<PathBuf>,
    state: Mutex<InboxState>,
    wake: Notify,
}

impl Inbox {
    fn handle(&self, event: notify::Result<notify::Event>) {
        let wake = note(&mut self.state.lock(), &self.root, &self.folders, event);
        if wake {
            self.wake.notify_one();
        }
    }
}

/// Records one event from the watcher; whether the scheduler should wake for it. Reads (our
/// own sync opening the files) and files that aren't `*.md` (the atomic writer's temp files,
/// an editor's swap files) are ignored; the folder itself removed or moved is noted as lost
/// (to be made and watched again) and asks for a full read.
fn note(
    state: &mut InboxState,
    root: &Path,
    folders: &[PathBuf],
    event: notify::Result<notify::Event>,
) -> bool {
    let event = match event {
        Ok(event) => event,
        Err(error) => {
            state.failure.get_or_insert_with(|| error.to_string());
            return true;
        }
    };
    if event.need_rescan() {
        state.seen.rescan = true;
        return true;
    }
    let relevant = match event.kind {
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) => false,
        _ => true,
    };
    if !relevant {
        return false;
    }
    let mut wake = false;
    for path in &event.paths {
        if folders.iter().any(|folder| folder == path) {
            if matches!(
                event.kind,
                EventKind::Remove(_) | EventKind::Modify(ModifyKind::Name(_))
            ) {
                state.lost.insert(path.clone());
                state.seen.rescan = true;
                wake = true;
            }
            continue;
        }
        let in_folder = path
            .parent()
            .is_some_and(|dir| folders.iter().any(|f| f == dir));
        let is_md = path
            .file_name()
            .is_some_and(|name| name.as_encoded_bytes().ends_with(b".md"));
        if let (true, true, Ok(rel)) = (in_folder, is_md, path.strip_prefix(root)) {
            state.seen.changed.insert(rel.to_path_buf());
            wake = true;
        }
    }
    wake
}

/// The watcher over the schedule folders; dropping it stops its thread.
pub struct FolderWatch {
    inbox: Arc<Inbox>,
    /// Dropped with the scheduler loop, which stops its thread; the folders' inodes as
    /// watched, to see one replaced even when its removal sends no event.
    watcher: Mutex<(RecommendedWatcher, Vec<Option<FolderId>>)>,
}

/// What tells one folder from another made at the same path: its inode (which a new folder
/// may reuse) and when it was made, where the filesystem keeps that.
type FolderId = (u64, Option<std::time::SystemTime>);

/// `folder`'s identity, if it is a directory.
fn inode(folder: &Path) -> Option<FolderId> {
    use std::os::unix::fs::MetadataExt as _;
    std::fs::metadata(folder)
        .ok()
        .filter(std::fs::Metadata::is_dir)
        .map(|meta| (meta.ino(), meta.created().ok()))
}

impl FolderWatch {
    /// Watches each of `folders` (not their subfolders), creating missing ones; changed files
    /// are reported relative to `root`, the folder they all are in.
    pub fn start(root: &Path, folders: Vec<PathBuf>) -> Result<Self, String> {
        for folder in &folders {
            std::fs::create_dir_all(folder)
                .map_err(|e| format!("could not create {}: {e}", folder.display()))?;
        }
        let inbox = Arc::new(Inbox {
            root: root.to_path_buf(),
            folders,
            state: Mutex::default(),
            wake: Notify::new(),
        });
        let handler = Arc::clone(&inbox);
        let mut watcher = notify::recommended_watcher(move |event| handler.handle(event))
            .map_err(|e| format!("could not start watching files: {e}"))?;
        for folder in &inbox.folders {
            watcher
                .watch(folder, RecursiveMode::NonRecursive)
                .map_err(|e| format!("could not watch {}: {e}", folder.display()))?;
        }
        let inodes = inbox.folders.iter().map(|folder| inode(folder)).collect();
        Ok(Self {
            inbox,
            watcher: Mutex::new((watcher, inodes)),
        })
    }

    /// Makes and watches again each folder that was removed, moved or replaced since the
    /// last look, asking for a full read; `Err` (why the events stopped) when the watcher
    /// failed or a folder can't be watched again.
    pub fn keep_up(&self) -> Result<(), String> {
        let mut guard = self.watcher.lock();
        let (watcher, inodes) = &mut *guard;
        // The inbox is not held while the watcher is asked to watch: its thread fills the
        // inbox and would wait for it.
        let lost = {
            let mut state = self.inbox.state.lock();
            if let Some(failure) = &state.failure {
                return Err(failure.clone());
            }
            std::mem::take(&mut state.lost)
        };
        let mut remade = false;
        for (folder, watched) in self.inbox.folders.iter().zip(inodes.iter_mut()) {
            let now = inode(folder);
            if !lost.contains(folder) && now.is_some() && now == *watched {
                continue;
            }
            let again = std::fs::create_dir_all(folder)
                .map_err(|e| format!("could not make {} again: {e}", folder.display()))
                .and_then(|()| {
                    // The old watch may be gone with the old folder already.
                    let _ = watcher.unwatch(folder);
                    watcher
                        .watch(folder, RecursiveMode::NonRecursive)
                        .map_err(|e| format!("could not watch {} again: {e}", folder.display()))
                });
            if let Err(failure) = again {
                self.inbox.state.lock().failure = Some(failure.clone());
                return Err(failure);
            }
            *watched = inode(folder);
            remade = true;
            tracing::info!(
                folder = %folder.display(),
                "the folder was removed or replaced; made it again and watching it"
            );
        }
        if remade {
            self.inbox.state.lock().seen.rescan = true;
        }
        Ok(())
    }

    /// Waits until the watcher saw something (at once if it did since the last wait).
    pub async fn wait(&self) {
        self.inbox.wake.notified().await;
    }

    /// Takes what the watcher saw.
    pub fn take(&self) -> Seen {
        std::mem::take(&mut self.inbox.state.lock().seen)
    }
}

#[cfg(test)]
#[path = "watch_tests.rs"]
mod tests;
