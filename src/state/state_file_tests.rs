use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::*;

#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
struct Counter {
    count: u32,
}

fn file<F: FileFormat>(dir: &tempfile::TempDir, name: &str) -> StateFile<F> {
    StateFile::new(dir.path().join("state").join(name))
}

#[test]
fn missing_and_blank_files_read_as_empty_and_a_save_makes_the_dir() {
    let dir = tempfile::tempdir().unwrap();
    let counter: StateFile<Json<Counter>> = file(&dir, "counter.json");
    assert_eq!(counter.load(0).unwrap(), Counter::default());
    counter.save(&Counter { count: 3 }).unwrap();
    assert_eq!(counter.peek(), Counter { count: 3 });
    std::fs::write(counter.path(), " \n").unwrap();
    assert_eq!(counter.load(0).unwrap(), Counter::default());
    assert!(counter.remove().unwrap());
    assert!(!counter.remove().unwrap());
}

#[test]
fn a_damaged_file_is_set_aside_on_load_but_not_on_peek() {
    let dir = tempfile::tempdir().unwrap();
    let counter: StateFile<Json<Counter>> = file(&dir, "counter.json");
    counter.save(&Counter { count: 1 }).unwrap();
    std::fs::write(counter.path(), "{\"count\": ").unwrap();
    assert_eq!(counter.peek(), Counter::default());
    assert!(counter.path().exists(), "peek leaves the file alone");
    assert!(StateFile::<Json<Counter>>::damage(b"{\"count\": ").is_some());

    assert_eq!(counter.load(1_700_000_000).unwrap(), Counter::default());
    assert!(!counter.path().exists());
    let aside = counter
        .path()
        .with_file_name("counter.json.corrupt-1700000000");
    assert_eq!(std::fs::read_to_string(aside).unwrap(), "{\"count\": ");
    let notices = crate::state::set_aside::pending_notices(counter.path().parent().unwrap());
    assert_eq!(notices.len(), 1);
}

#[test]
fn lists_and_maps_drop_only_their_malformed_entries() {
    let dir = tempfile::tempdir().unwrap();
    let list: StateFile<JsonList<Counter>> = file(&dir, "list.json");
    std::fs::create_dir_all(list.path().parent().unwrap()).unwrap();
    std::fs::write(
        list.path(),
        r#"[{"count": 1}, {"count": "x"}, {"count": 2}]"#,
    )
    .unwrap();
    assert_eq!(
        list.load(0).unwrap(),
        [Counter { count: 1 }, Counter { count: 2 }]
    );
    assert!(StateFile::<JsonList<Counter>>::damage(b"{}").is_some());

    let map: StateFile<JsonMap<Counter>> = file(&dir, "map.json");
    std::fs::write(map.path(), r#"{"a": {"count": 1}, "b": 7}"#).unwrap();
    assert_eq!(
        map.load(0).unwrap(),
        BTreeMap::from([("a".to_owned(), Counter { count: 1 })])
    );
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
                    counter.update(0, |c| c.count += 1).unwrap();
                }
            });
        }
    });
    assert_eq!(counter.peek().count, 200);
}

#[cfg(unix)]
#[test]
fn a_file_that_cannot_be_read_is_an_error_on_load_and_never_written_over() {
    let dir = tempfile::tempdir().unwrap();
    let counter: StateFile<Json<Counter>> = file(&dir, "counter.json");
    // A directory where the file should be: reading it fails with an I/O error.
    std::fs::create_dir_all(counter.path()).unwrap();
    assert!(matches!(counter.load(0), Err(StateError::Io { .. })));
    assert!(counter.update(0, |c| c.count += 1).is_err());
    assert_eq!(counter.load_or_empty(0), Counter::default());
    assert!(counter.path().is_dir());
}
