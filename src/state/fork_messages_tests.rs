//! Tests for [`super::ForkMessageStore`], with fixed clocks through the `_at` variants.

use super::*;
use std::fs;

const T0: f64 = 1_740_000_000.0;
const DAY: f64 = 86_400.0;
const BIG_ID: u64 = 1_234_567_890_123_456_789;

fn setup() -> (tempfile::TempDir, ForkMessageStore) {
    let dir = tempfile::tempdir().unwrap();
    let store = ForkMessageStore::new(&DataDir::new(dir.path()));
    (dir, store)
}

const OWNER: SessionOrigin = SessionOrigin::Owner;

/// An interactive fork's session.
fn owner<'a>(id: &'a str, parent: Option<&'a str>) -> RecordedSession<'a> {
    RecordedSession {
        id,
        parent,
        origin: &OWNER,
    }
}

fn live(fork: &str, parent: Option<&str>) -> ForkLookup {
    ForkLookup::Live {
        fork_session_id: fork.to_owned(),
        parent_session_id: parent.map(str::to_owned),
        recorded_at: 0.0,
        origin: SessionOrigin::Owner,
    }
}

/// The lookup without its timestamp, to compare with [`live`].
fn undated(lookup: ForkLookup) -> ForkLookup {
    match lookup {
        ForkLookup::Live {
            fork_session_id,
            parent_session_id,
            origin,
            ..
        } => ForkLookup::Live {
            fork_session_id,
            parent_session_id,
            recorded_at: 0.0,
            origin,
        },
        other => other,
    }
}

fn ids_in_file(store: &ForkMessageStore) -> Vec<u64> {
    let text = fs::read_to_string(store.path()).unwrap();
    let records: Vec<ForkMessageRecord> = serde_json::from_str(&text).unwrap();
    records.iter().map(|r| r.message_id).collect()
}

#[test]
fn round_trip_with_a_19_digit_id_and_exact_format() {
    let (_dir, store) = setup();
    store
        .record_at(
            &[BIG_ID, u64::MAX],
            &owner("sess_fork_abc", Some("sess_main")),
            T0,
        )
        .unwrap();
    assert_eq!(
        undated(store.lookup_at(BIG_ID, T0 + DAY)),
        live("sess_fork_abc", Some("sess_main"))
    );
    assert_eq!(
        undated(store.lookup_at(u64::MAX, T0)),
        live("sess_fork_abc", Some("sess_main"))
    );
    let text = fs::read_to_string(store.path()).unwrap();
    assert!(
        text.contains("\"message_id\": 1234567890123456789,"),
        "{text}"
    );
    assert!(text.contains("\"ts\": 1740000000.0"), "{text}");
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        value[0],
        serde_json::json!({
            "message_id": BIG_ID,
            "fork_session_id": "sess_fork_abc",
            "parent_session_id": "sess_main",
            "ts": T0,
            "origin": {"kind": "owner"},
        })
    );
}

/// A background run's record carries its job and tools; a record from before origins were
/// written reads as a background run with no tools of its own (issue 23 §4).
#[test]
fn origins_round_trip_and_a_missing_one_is_the_safe_reading() {
    let (_dir, store) = setup();
    let run = SessionOrigin::Background {
        job: "routine:mail".to_owned(),
        allowed_tools: vec!["Read(./**.md)".to_owned()],
        title: Some("Sort the mail".to_owned()),
    };
    let session = RecordedSession {
        id: "sess_bg",
        parent: None,
        origin: &run,
    };
    store.record_at(&[5], &session, T0).unwrap();
    let ForkLookup::Live { origin, .. } = store.lookup_at(5, T0) else {
        panic!("not recorded");
    };
    assert_eq!(origin, run);
    fs::write(
        store.path(),
        r#"[{"message_id": 6, "fork_session_id": "s", "parent_session_id": null, "ts": 1740000000.0}]"#,
    )
    .unwrap();
    let ForkLookup::Live { origin, .. } = store.lookup_at(6, T0) else {
        panic!("an old record is dropped");
    };
    assert_eq!(origin, SessionOrigin::unrecorded());
}

#[test]
fn isolated_runs_store_null_parent_and_real_clock_works() {
    let (_dir, store) = setup();
    store.record(&[7], &owner("sess_iso", None)).unwrap();
    assert_eq!(undated(store.lookup(7)), live("sess_iso", None));
    let value: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(store.path()).unwrap()).unwrap();
    assert!(value[0]["parent_session_id"].is_null());
}

#[test]
fn expired_after_eight_days_and_unknown_otherwise() {
    let (_dir, store) = setup();
    assert_eq!(store.lookup_at(1, T0), ForkLookup::Unknown);
    store
        .record_at(&[1], &owner("sess_a", Some("m")), T0)
        .unwrap();
    assert_eq!(
        undated(store.lookup_at(1, T0 + 7.0 * DAY)),
        live("sess_a", Some("m"))
    );
    assert_eq!(store.lookup_at(1, T0 + 8.0 * DAY), ForkLookup::Expired);
    assert_eq!(store.lookup_at(2, T0 + 8.0 * DAY), ForkLookup::Unknown);
    // Reads do not prune, so the record stays distinguishable.
    assert_eq!(ids_in_file(&store), [1]);
}

#[test]
fn rewrite_prunes_old_records_and_keeps_fresh_ones() {
    let (_dir, store) = setup();
    store.record_at(&[1, 2], &owner("old", None), T0).unwrap();
    store
        .record_at(&[3], &owner("fresh", None), T0 + 2.0 * DAY)
        .unwrap();
    store
        .record_at(&[4], &owner("new", None), T0 + 8.0 * DAY)
        .unwrap();
    assert_eq!(ids_in_file(&store), [3, 4]);
    assert_eq!(store.lookup_at(1, T0 + 8.0 * DAY), ForkLookup::Unknown);
    assert_eq!(
        undated(store.lookup_at(3, T0 + 8.0 * DAY)),
        live("fresh", None)
    );
}

#[test]
fn empty_flush_writes_nothing() {
    let (_dir, store) = setup();
    store.record_at(&[], &owner("sess", None), T0).unwrap();
    assert!(!store.path().exists());
}

#[test]
fn an_existing_id_is_replaced() {
    let (_dir, store) = setup();
    store.record_at(&[5, 6], &owner("first", None), T0).unwrap();
    store
        .record_at(&[6, 6], &owner("second", Some("m")), T0 + 1.0)
        .unwrap();
    assert_eq!(ids_in_file(&store), [5, 6]);
    assert_eq!(
        undated(store.lookup_at(6, T0 + 1.0)),
        live("second", Some("m"))
    );
    assert_eq!(undated(store.lookup_at(5, T0 + 1.0)), live("first", None));
}

#[test]
fn a_corrupt_file_is_moved_aside_and_the_store_starts_fresh() {
    let (dir, store) = setup();
    let state = dir.path().join("state");
    fs::create_dir_all(&state).unwrap();
    fs::write(store.path(), b"[{\"message_id\": oops").unwrap();
    assert_eq!(store.lookup_at(1, T0), ForkLookup::Unknown);
    store.record_at(&[9], &owner("sess", None), T0).unwrap();
    fs::write(store.path(), b"{}").unwrap();
    store.record_at(&[10], &owner("sess", None), T0).unwrap();
    assert_eq!(ids_in_file(&store), [10]);
    let copies = crate::state::set_aside::copies_of(store.path());
    assert_eq!(copies.len(), 2);
    assert_eq!(fs::read(&copies[0]).unwrap(), b"[{\"message_id\": oops");
    assert_eq!(fs::read(&copies[1]).unwrap(), b"{}");
}

#[test]
fn malformed_entries_are_kept_through_a_save() {
    let (_dir, store) = setup();
    fs::create_dir_all(store.path().parent().unwrap()).unwrap();
    fs::write(
        store.path(),
        r#"[{"message_id": "x"}, {"message_id": 3, "fork_session_id": "s", "parent_session_id": null, "ts": 1740000000, "origin": {"kind": "owner"}}]"#,
    )
    .unwrap();
    assert_eq!(undated(store.lookup_at(3, T0)), live("s", None));
    store.record_at(&[4], &owner("t", None), T0).unwrap();
    let raw: Vec<serde_json::Value> =
        serde_json::from_str(&fs::read_to_string(store.path()).unwrap()).unwrap();
    let ids: Vec<&serde_json::Value> = raw.iter().map(|r| &r["message_id"]).collect();
    assert_eq!(
        ids,
        [
            &serde_json::json!(3),
            &serde_json::json!(4),
            &serde_json::json!("x")
        ]
    );
}

#[test]
fn concurrent_flushes_lose_nothing() {
    let (_dir, store) = setup();
    let handles: Vec<_> = (0..8u64)
        .map(|t| {
            let store = store.clone();
            std::thread::spawn(move || {
                for i in 0..5 {
                    store
                        .record_at(&[t * 100 + i], &owner("s", None), T0)
                        .unwrap();
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    assert_eq!(ids_in_file(&store).len(), 40);
}
