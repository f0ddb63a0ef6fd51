//! The sync timing with injected instants, and which watcher events wake the scheduler
//! (issue 17, SCH-2).

use std::path::{Path, PathBuf};

use notify::{
    Event, EventKind,
    event::{
        AccessKind, AccessMode, CreateKind, DataChange, Flag, ModifyKind, RemoveKind, RenameMode,
    },
};
use tokio::time::Instant;

use super::*;

const FULL: Duration = Duration::from_secs(300);

#[test]
fn a_burst_of_changes_makes_one_sync_shortly_after_its_first_event() {
    let start = Instant::now();
    let mut plan = SyncPlan::new(FULL, start);
    assert_eq!(plan.due(start), None);
    assert_eq!(plan.wake_at(), start + FULL);
    plan.changed(start);
    for ms in [10, 50, 120] {
        plan.changed(start + Duration::from_millis(ms));
        assert_eq!(plan.due(start + Duration::from_millis(ms)), None);
    }
    assert_eq!(
        plan.wake_at(),
        start + COALESCE,
        "later events don't push it back"
    );
    assert_eq!(plan.due(start + COALESCE), Some(SyncKind::Changed));
    plan.synced(SyncKind::Changed, start + COALESCE);
    assert_eq!(plan.due(start + COALESCE), None);
    assert_eq!(
        plan.wake_at(),
        start + FULL,
        "a changes sync leaves the full read's time"
    );
}

#[test]
fn the_full_read_comes_round_and_covers_pending_changes() {
    let start = Instant::now();
    let mut plan = SyncPlan::new(FULL, start);
    let late = start + FULL - Duration::from_millis(50);
    plan.changed(late);
    assert_eq!(plan.due(start + FULL), Some(SyncKind::Full));
    plan.synced(SyncKind::Full, start + FULL);
    assert_eq!(plan.due(start + FULL + COALESCE), None);
    assert_eq!(plan.wake_at(), start + FULL + FULL);
}

#[test]
fn when_events_stop_the_folders_are_polled_at_the_short_interval() {
    let start = Instant::now();
    let mut plan = SyncPlan::new(FULL, start);
    let ten = Duration::from_secs(10);
    plan.poll_every(ten, start + Duration::from_secs(3));
    assert_eq!(plan.wake_at(), start + Duration::from_secs(13));
    plan.synced(SyncKind::Full, start + Duration::from_secs(13));
    assert_eq!(plan.wake_at(), start + Duration::from_secs(23));
}

fn root() -> PathBuf {
    PathBuf::from("/data")
}

fn folders() -> Vec<PathBuf> {
    vec![root().join("routines"), root().join("reminders")]
}

fn event(kind: EventKind, path: &str) -> Event {
    Event::new(kind).add_path(Path::new(path).to_path_buf())
}

fn noted(events: impl IntoIterator<Item = notify::Result<Event>>) -> (InboxState, Vec<bool>) {
    let mut state = InboxState::default();
    let wakes = events
        .into_iter()
        .map(|e| note(&mut state, &root(), &folders(), e))
        .collect();
    (state, wakes)
}

#[test]
fn job_file_changes_are_noted_relative_to_the_data_dir() {
    let (state, wakes) = noted(
        [
            event(
                EventKind::Create(CreateKind::File),
                "/data/routines/morning.md",
            ),
            event(
                EventKind::Modify(ModifyKind::Data(DataChange::Any)),
                "/data/reminders/call.md",
            ),
            event(
                EventKind::Access(AccessKind::Close(AccessMode::Write)),
                "/data/reminders/call.md",
            ),
            event(
                EventKind::Modify(ModifyKind::Name(RenameMode::To)),
                "/data/reminders/dentist.md",
            ),
            event(EventKind::Remove(RemoveKind::File), "/data/routines/old.md"),
        ]
        .map(Ok),
    );
    assert_eq!(wakes, vec![true; 5]);
    let changed: Vec<&str> = state
        .seen
        .changed
        .iter()
        .map(|p| p.to_str().unwrap())
        .collect();
    assert_eq!(
        changed,
        [
            "reminders/call.md",
            "reminders/dentist.md",
            "routines/morning.md",
            "routines/old.md"
        ]
    );
    assert!(!state.seen.rescan);
    assert_eq!(state.failure, None);
}

#[test]
fn reads_temp_files_and_other_places_do_not_wake_the_scheduler() {
    let (state, wakes) = noted(
        [
            event(
                EventKind::Access(AccessKind::Open(notify::event::AccessMode::Any)),
                "/data/routines/morning.md",
            ),
            event(
                EventKind::Access(AccessKind::Close(AccessMode::Read)),
                "/data/routines/morning.md",
            ),
            event(
                EventKind::Create(CreateKind::File),
                "/data/routines/.ollim-tmp-1234",
            ),
            event(
                EventKind::Create(CreateKind::File),
                "/data/routines/sub/deep.md",
            ),
            event(
                EventKind::Modify(ModifyKind::Metadata(notify::event::MetadataKind::Any)),
                "/data/routines",
            ),
        ]
        .map(Ok),
    );
    assert_eq!(wakes, vec![false; 5]);
    assert_eq!(state.seen, Seen::default());
    assert_eq!(state.failure, None);
}

#[test]
fn lost_events_ask_for_a_full_read_and_errors_end_the_events() {
    let overflow = Ok(Event::new(EventKind::Other).set_flag(Flag::Rescan));
    let (state, wakes) = noted([overflow]);
    assert_eq!(wakes, vec![true]);
    assert!(state.seen.rescan);

    let (state, wakes) = noted(vec![
        Err(notify::Error::generic("inotify went away")),
        Err(notify::Error::generic("a second error")),
    ]);
    assert_eq!(wakes, vec![true, true]);
    assert_eq!(state.failure.as_deref(), Some("inotify went away"));

    let (state, wakes) = noted([Ok(event(
        EventKind::Remove(RemoveKind::Folder),
        "/data/reminders",
    ))]);
    assert_eq!(wakes, vec![true]);
    assert_eq!(state.failure, None, "a removed folder is made again");
    assert!(state.lost.contains(Path::new("/data/reminders")));
    assert!(state.seen.rescan);
}

#[tokio::test]
async fn a_real_watcher_sees_a_new_file_and_ignores_its_own_reads() {
    let temp = tempfile::tempdir().unwrap();
    let folders = vec![temp.path().join("routines"), temp.path().join("reminders")];
    let watch = FolderWatch::start(temp.path(), folders).unwrap();
    assert!(
        temp.path().join("reminders").is_dir(),
        "missing folders are created"
    );
    std::fs::write(temp.path().join("routines/new.md"), "text").unwrap();
    tokio::time::timeout(Duration::from_secs(20), watch.wait())
        .await
        .expect("an event for the new file");
    // Give the write's remaining events time to arrive, then read the file as a sync does.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let seen = watch.take();
    assert!(
        seen.changed.contains(Path::new("routines/new.md")),
        "{seen:?}"
    );
    std::fs::read_to_string(temp.path().join("routines/new.md")).unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(watch.take(), Seen::default(), "reading a file is no change");
    assert_eq!(watch.keep_up(), Ok(()));
}

/// KEEP-4: a folder removed (as `git rm` of its last file did) or replaced is made again and
/// watched again: a file written into it afterwards is seen (issue 40 §1).
#[tokio::test]
async fn a_removed_folder_is_made_again_and_watched_again() {
    let temp = tempfile::tempdir().unwrap();
    let reminders = temp.path().join("reminders");
    let watch = FolderWatch::start(temp.path(), vec![reminders.clone()]).unwrap();
    std::fs::remove_dir(&reminders).unwrap();
    tokio::time::timeout(Duration::from_secs(20), watch.wait())
        .await
        .expect("an event for the removed folder");
    assert_eq!(watch.keep_up(), Ok(()));
    assert!(reminders.is_dir(), "made again");
    assert!(watch.take().rescan, "a full read follows");
    // Replaced behind the watcher's back, with no event in between.
    std::fs::remove_dir(&reminders).unwrap();
    std::fs::create_dir(&reminders).unwrap();
    assert_eq!(watch.keep_up(), Ok(()));
    let _ = watch.take();
    std::fs::write(reminders.join("later.md"), "text").unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        // As the scheduler does at each wake: a late removal event is made good here.
        assert_eq!(watch.keep_up(), Ok(()));
        tokio::time::timeout_at(deadline, watch.wait())
            .await
            .expect("an event for the file in the new folder");
        if watch
            .take()
            .changed
            .contains(Path::new("reminders/later.md"))
        {
            break;
        }
    }
}
