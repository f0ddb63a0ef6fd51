use chrono::TimeZone;

use super::*;
use crate::domain::{nag::NagPolicy, open_nag::NagWait};

fn at(h: u32, m: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 28, h, m, 0).unwrap()
}

fn nag(id: &str, opened: DateTime<Utc>) -> OpenNag {
    OpenNag::open(
        id.into(),
        format!("{id} label"),
        "text".into(),
        NagPolicy::default(),
        opened,
    )
}

/// NAG-6: open reminders survive restarts.
#[test]
fn open_entries_survive_a_reopen_and_fall_due_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let store = NagStore::new(dir.path().join("nags.json"));
    assert_eq!(store.open(nag("meds", at(9, 0))).unwrap(), None);
    store.open(nag("water", at(9, 5))).unwrap();
    let reopened = NagStore::new(dir.path().join("nags.json"));
    assert_eq!(reopened.all().len(), 2);
    assert_eq!(reopened.next_due(), Some(at(9, 10)));
    assert!(reopened.due(at(9, 9)).is_empty());
    let due: Vec<String> = reopened.due(at(9, 15)).into_iter().map(|n| n.id).collect();
    assert_eq!(due, ["meds", "water"]);
}

/// NAG-4.
#[test]
fn a_routines_next_fire_replaces_its_open_entry() {
    let dir = tempfile::tempdir().unwrap();
    let store = NagStore::new(dir.path().join("nags.json"));
    store.open(nag("meds", at(9, 0))).unwrap();
    let replaced = store.open(nag("meds", at(21, 0))).unwrap();
    assert_eq!(replaced.map(|n| n.opened), Some(at(9, 0)));
    assert_eq!(store.all().len(), 1);
    assert_eq!(store.get("meds").map(|n| n.opened), Some(at(21, 0)));
}

#[test]
fn closing_takes_an_entry_out_once() {
    let dir = tempfile::tempdir().unwrap();
    let store = NagStore::new(dir.path().join("nags.json"));
    store.open(nag("meds", at(9, 0))).unwrap();
    assert!(store.close("meds").unwrap().is_some());
    assert_eq!(store.close("meds").unwrap(), None);
    assert_eq!(store.get("meds"), None);
    assert_eq!(
        store.update("meds", |n| n.snoozed(at(19, 0))).unwrap(),
        None
    );
}

#[test]
fn updates_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    let store = NagStore::new(dir.path().join("nags.json"));
    store.open(nag("meds", at(9, 0))).unwrap();
    let moved = store.update("meds", |n| n.snoozed(at(19, 0))).unwrap();
    assert_eq!(
        moved.map(|n| n.wait),
        Some(NagWait::Snoozed { at: at(19, 0) })
    );
    assert_eq!(store.next_due(), Some(at(19, 0)));
}

#[test]
fn a_damaged_file_counts_as_empty() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nags.json");
    std::fs::write(&path, "{ not json").unwrap();
    let store = NagStore::new(&path);
    assert!(store.all().is_empty());
    store.open(nag("meds", at(9, 0))).unwrap();
    assert_eq!(store.all().len(), 1);
}
