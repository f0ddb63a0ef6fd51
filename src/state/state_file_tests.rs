use serde::{Deserialize, Serialize};

use super::*;
use crate::state::set_aside::{Trouble, pending_notices};

#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
struct Counter {
    count: u32,
}

fn file<F: FileFormat>(dir: &tempfile::TempDir, name: &str) -> StateFile<F> {
    StateFile::new(dir.path().join("state").join(name))
}

fn notices(of: &StateFile<impl FileFormat>) -> Vec<Trouble> {
    pending_notices(of.path().parent().unwrap())
        .into_iter()
        .filter(|n| n.file == of.path())
        .map(|n| n.trouble)
        .collect()
}

#[test]
fn missing_and_blank_files_read_as_empty_and_an_update_makes_the_dir() {
    let dir = tempfile::tempdir().unwrap();
    let counter: StateFile<Json<Counter>> = file(&dir, "counter.json");
    assert_eq!(counter.read().unwrap(), Counter::default());
    counter.update(|_| ()).unwrap();
    assert!(
        !counter.path().exists(),
        "an update that changes nothing writes nothing"
    );
    counter.update(|c| c.count = 3).unwrap();
    assert_eq!(counter.read().unwrap(), Counter { count: 3 });
    std::fs::write(counter.path(), " \n").unwrap();
    assert_eq!(counter.read().unwrap(), Counter::default());
    assert!(counter.remove().unwrap());
    assert!(!counter.remove().unwrap());
}

#[test]
fn a_damaged_file_is_set_aside_whole_and_the_owner_told() {
    let dir = tempfile::tempdir().unwrap();
    let counter: StateFile<Json<Counter>> = file(&dir, "counter.json");
    counter.update(|c| c.count = 1).unwrap();
    std::fs::write(counter.path(), "{\"count\": ").unwrap();
    assert!(StateFile::<Json<Counter>>::damage(b"{\"count\": ").is_some());

    assert_eq!(counter.read().unwrap(), Counter::default());
    assert!(!counter.path().exists());
    let aside = &crate::state::set_aside::copies_of(counter.path())[0];
    assert_eq!(std::fs::read_to_string(aside).unwrap(), "{\"count\": ");
    assert_eq!(notices(&counter), [Trouble::Damaged]);
}

/// KEEP-2: a malformed entry among good ones is carried through every save untouched (issue
/// 40 §1), and the owner is told once.
#[test]
fn lists_and_maps_keep_their_malformed_entries_through_a_save() {
    let dir = tempfile::tempdir().unwrap();
    let list: StateFile<JsonList<Counter>> = file(&dir, "list.json");
    std::fs::create_dir_all(list.path().parent().unwrap()).unwrap();
    std::fs::write(
        list.path(),
        r#"[{"count": 1}, {"count": "x"}, {"count": 2}]"#,
    )
    .unwrap();
    let read = list.read().unwrap();
    assert_eq!(*read, [Counter { count: 1 }, Counter { count: 2 }]);
    assert_eq!(read.unread().len(), 1);
    list.update(|items| items.push(Counter { count: 3 }))
        .unwrap();
    list.update(|items| items.retain(|c| c.count != 1)).unwrap();
    let raw: serde_json::Value =
        serde_json::from_slice(&std::fs::read(list.path()).unwrap()).unwrap();
    assert_eq!(
        raw,
        serde_json::json!([{"count": 2}, {"count": 3}, {"count": "x"}])
    );
    assert_eq!(notices(&list), [Trouble::EntriesKept], "told once");
    assert!(StateFile::<JsonList<Counter>>::damage(b"{}").is_some());

    let map: StateFile<JsonMap<Counter>> = file(&dir, "map.json");
    std::fs::write(map.path(), r#"{"a": {"count": 1}, "b": 7}"#).unwrap();
    map.update(|items| {
        items.insert("c".to_owned(), Counter { count: 3 });
    })
    .unwrap();
    let raw: serde_json::Value =
        serde_json::from_slice(&std::fs::read(map.path()).unwrap()).unwrap();
    assert_eq!(
        raw,
        serde_json::json!({"a": {"count": 1}, "b": 7, "c": {"count": 3}})
    );
    assert_eq!(map.read().unwrap().len(), 2);
    assert!(StateFile::<JsonMap<Counter>>::damage(b"[]").is_some());
}

#[test]
fn concurrent_updates_through_clones_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let counter: StateFile<Json<Counter>> = file(&dir, "counter.json");
    std::thread::scope(|scope| {
        for _ in 0..8 {
            let counter = counter.clone();
            scope.spawn(move || {
                for _ in 0..25 {
                    counter.update(|c| c.count += 1).unwrap();
                }
            });
        }
    });
    assert_eq!(counter.read().unwrap().count, 200);
}

/// KEEP-1: a file that exists but can't be read is an error on every path, nothing is
/// written over it, and the owner hears of it once, and again only after it read cleanly in
/// between.
#[cfg(unix)]
#[test]
fn a_file_that_cannot_be_read_is_an_error_and_never_written_over() {
    let dir = tempfile::tempdir().unwrap();
    let counter: StateFile<Json<Counter>> = file(&dir, "counter.json");
    // A directory where the file should be: reading it fails with an I/O error.
    std::fs::create_dir_all(counter.path()).unwrap();
    assert!(matches!(counter.read(), Err(StateError::Io { .. })));
    assert!(counter.update(|c| c.count += 1).is_err());
    assert!(counter.take().is_err());
    assert!(counter.path().is_dir());
    assert_eq!(notices(&counter), [Trouble::Unreadable], "told once");

    std::fs::remove_dir(counter.path()).unwrap();
    counter.update(|c| c.count = 5).unwrap();
    std::fs::remove_file(counter.path()).unwrap();
    std::fs::create_dir(counter.path()).unwrap();
    assert!(counter.read().is_err());
    assert_eq!(
        notices(&counter),
        [Trouble::Unreadable, Trouble::Unreadable],
        "told again once it had read cleanly in between"
    );
}

#[test]
fn a_failed_change_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let counter: StateFile<Json<Counter>> = file(&dir, "counter.json");
    counter.update(|c| c.count = 1).unwrap();
    let failed: Result<(), StateError> = counter.try_update(|c| {
        c.count = 9;
        Err(StateError::InvalidRoutineId("x".to_owned()))
    });
    assert!(failed.is_err());
    assert_eq!(counter.read().unwrap().count, 1);
}
