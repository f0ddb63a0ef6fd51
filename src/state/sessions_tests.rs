use super::*;
use crate::state::history::SessionEvent;

fn sid(s: &str) -> SessionId {
    SessionId::parse(s).unwrap()
}

fn store(dir: &Path) -> SessionStore {
    let data = DataDir::new(dir);
    SessionStore::new(&data, SessionHistory::new(&data, chrono_tz::UTC, None))
}

fn events(s: &SessionStore) -> Vec<(String, SessionEventKind, Option<String>)> {
    s.history()
        .read_all()
        .into_iter()
        .map(
            |SessionEvent {
                 session_id,
                 event,
                 parent_session_id,
                 ..
             }| { (session_id, event, parent_session_id) },
        )
        .collect()
}

#[test]
fn load_rules() {
    let dir = tempfile::tempdir().unwrap();
    let s = store(dir.path());
    assert_eq!(s.load(), None);
    fs::create_dir_all(dir.path().join("state")).unwrap();
    for (content, expected) in [
        ("", None),
        ("  \n", None),
        ("{\"x\":1}", None),
        ("bad id", None),
        ("  sess_abc123\n", Some(sid("sess_abc123"))),
    ] {
        fs::write(s.path(), content).unwrap();
        assert_eq!(s.load(), expected, "content {content:?}");
    }
}

#[test]
fn save_detects_created_compacted_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let s = store(dir.path());
    assert_eq!(s.save(&sid("sess_a")).unwrap(), SaveOutcome::Created);
    assert_eq!(fs::read_to_string(s.path()).unwrap(), "sess_a");
    assert_eq!(s.save(&sid("sess_a")).unwrap(), SaveOutcome::Unchanged);
    assert_eq!(
        s.save(&sid("sess_b")).unwrap(),
        SaveOutcome::Compacted {
            previous: sid("sess_a")
        }
    );
    assert_eq!(s.load(), Some(sid("sess_b")));
    assert_eq!(
        events(&s),
        [
            ("sess_a".into(), SessionEventKind::Created, None),
            (
                "sess_b".into(),
                SessionEventKind::Compacted,
                Some("sess_a".into())
            ),
        ]
    );
}

#[test]
fn json_content_is_replaced_as_created() {
    let dir = tempfile::tempdir().unwrap();
    let s = store(dir.path());
    fs::create_dir_all(dir.path().join("state")).unwrap();
    fs::write(s.path(), "{\"x\":1}").unwrap();
    assert_eq!(s.save(&sid("sess_new")).unwrap(), SaveOutcome::Created);
    assert_eq!(s.load(), Some(sid("sess_new")));
}

#[test]
fn swap_and_clear() {
    let dir = tempfile::tempdir().unwrap();
    let s = store(dir.path());
    s.save(&sid("main1")).unwrap();
    s.log(
        &sid("fork1"),
        SessionEventKind::InteractiveFork,
        Some(&sid("main1")),
    )
    .unwrap();
    s.save_swapped(&sid("fork1"), Some(&sid("main1"))).unwrap();
    assert_eq!(s.load(), Some(sid("fork1")));
    assert_eq!(s.clear().unwrap(), Some(sid("fork1")));
    assert!(!s.path().exists());
    assert_eq!(s.clear().unwrap(), None);
    let kinds: Vec<SessionEventKind> = events(&s).into_iter().map(|e| e.1).collect();
    assert_eq!(
        kinds,
        [
            SessionEventKind::Created,
            SessionEventKind::InteractiveFork,
            SessionEventKind::Swapped,
            SessionEventKind::Cleared,
        ]
    );
    let swapped = &events(&s)[2];
    assert_eq!(swapped.2.as_deref(), Some("main1"));
    assert_eq!(events(&s)[3].0, "fork1");
}

#[test]
fn routine_sessions_round_trip_and_reject_traversal() {
    let dir = tempfile::tempdir().unwrap();
    let r = RoutineSessionStore::new(&DataDir::new(dir.path()));
    assert_eq!(r.load("a1b2c3d4"), None);
    assert!(r.routine_ids().is_empty());
    r.save("a1b2c3d4", &sid("sess_r1")).unwrap();
    r.save("other_id-2", &sid("sess_r2")).unwrap();
    assert_eq!(
        fs::read_to_string(dir.path().join("state/routine_sessions/a1b2c3d4")).unwrap(),
        "sess_r1"
    );
    assert_eq!(r.load("a1b2c3d4"), Some(sid("sess_r1")));
    assert_eq!(r.routine_ids(), ["a1b2c3d4", "other_id-2"]);
    assert!(r.remove("a1b2c3d4").unwrap());
    assert!(!r.remove("a1b2c3d4").unwrap());
    assert_eq!(r.load("a1b2c3d4"), None);
    fs::write(dir.path().join("state/routine_sessions/empty"), "").unwrap();
    assert_eq!(r.load("empty"), None);
    for bad in ["", "../sessions.json", "a/b", ".", "..", "x.y", "a b"] {
        assert!(matches!(
            r.save(bad, &sid("s")),
            Err(StateError::InvalidRoutineId(_))
        ));
        assert!(r.remove(bad).is_err());
        assert_eq!(r.load(bad), None);
    }
    assert!(!dir.path().join("state/sessions.json").exists());
}
