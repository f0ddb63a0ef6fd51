use super::*;

fn at(text: &str) -> DateTime<Utc> {
    text.parse().unwrap()
}

fn ping(text: &str) -> HeldShow {
    HeldShow::Text { text: text.into() }
}

/// QUI-2, QUI-3: held items survive a reopen; forgetting what went out keeps what was held
/// meanwhile; past the cap the oldest goes.
#[test]
fn held_items_stay_until_they_went_out() {
    let dir = tempfile::tempdir().unwrap();
    let store = QuietStore::new(dir.path().join("quiet.json"));
    let now = at("2026-11-28T07:00:00Z");
    store.hold(ping("one"), now).unwrap();
    store.hold(ping("two"), now).unwrap();
    let reopened = QuietStore::new(dir.path().join("quiet.json"));
    assert_eq!(reopened.held().len(), 2);
    store.hold(ping("three"), now).unwrap();
    store.forget_held(2).unwrap();
    let left = store.held();
    assert_eq!(left.len(), 1);
    assert_eq!(left[0].show, ping("three"));
    for n in 0..MAX_HELD {
        store.hold(ping(&n.to_string()), now).unwrap();
    }
    let held = store.held();
    assert_eq!(held.len(), MAX_HELD);
    assert_eq!(held[0].show, ping("0"), "the oldest made room");
}

/// QUI-1, FOC-1: a "quiet for …" and a focus session each make the owner quiet until they
/// end; one focus session at a time.
#[test]
fn quiet_for_a_while_and_focus_sessions_count_as_quiet() {
    let dir = tempfile::tempdir().unwrap();
    let store = QuietStore::new(dir.path().join("quiet.json"));
    let tz = chrono_tz::Europe::Berlin;
    let now = at("2026-11-28T10:00:00Z");
    assert_eq!(store.quiet_until(None, tz, now), None);
    store.set_until(Some(at("2026-11-28T11:00:00Z"))).unwrap();
    assert_eq!(
        store.quiet_until(None, tz, now),
        Some(at("2026-11-28T11:00:00Z"))
    );
    store.set_until(None).unwrap();
    let focus = FocusSession {
        task: "report".into(),
        started: now,
        until: at("2026-11-28T10:25:00Z"),
        halfway_told: false,
    };
    assert!(store.start_focus(focus.clone()).unwrap());
    assert!(!store.start_focus(focus.clone()).unwrap(), "one at a time");
    assert_eq!(
        store.quiet_until(None, tz, now),
        Some(at("2026-11-28T10:25:00Z"))
    );
    store.focus_halfway_told().unwrap();
    assert!(store.focus().unwrap().halfway_told);
    assert_eq!(
        store.end_focus().unwrap().map(|f| f.task),
        Some("report".into())
    );
    assert_eq!(store.end_focus().unwrap(), None);
    assert_eq!(store.quiet_until(None, tz, now), None);
}

/// QUI-6: `/quiet end` ends a "quiet for …", the night under way (until the next one) and the
/// busy event under way; a later busy event counts again.
#[test]
fn ending_quiet_ends_whatever_holds_until_the_next_window() {
    let dir = tempfile::tempdir().unwrap();
    let store = QuietStore::new(dir.path().join("quiet.json"));
    let tz = chrono_tz::Europe::Berlin;
    let night: QuietWindow = "22:00-08:00".parse().unwrap();
    let now = at("2026-11-28T22:00:00Z");
    store.set_until(Some(at("2026-11-29T09:00:00Z"))).unwrap();
    store
        .set_busy_until(Some(at("2026-11-28T23:00:00Z")))
        .unwrap();
    assert!(store.quiet_until(Some(&night), tz, now).is_some());
    let ended = store.end_quiet(Some(&night), tz, now).unwrap();
    assert_eq!(ended.window_until, Some(at("2026-11-29T07:00:00Z")));
    assert_eq!(ended.busy_until, Some(at("2026-11-28T23:00:00Z")));
    assert_eq!(store.quiet_until(Some(&night), tz, now), None);
    assert_eq!(
        store.quiet_until(Some(&night), tz, at("2026-11-29T21:00:00Z")),
        Some(at("2026-11-30T07:00:00Z")),
        "the next night holds"
    );
    store
        .set_busy_until(Some(at("2026-11-29T01:00:00Z")))
        .unwrap();
    assert_eq!(
        store.quiet_until(Some(&night), tz, at("2026-11-29T00:00:00Z")),
        Some(at("2026-11-29T01:00:00Z")),
        "a later busy event counts"
    );
    store.forget_ended().unwrap();
    assert_eq!(
        store.quiet_until(None, tz, at("2026-11-28T22:30:00Z")),
        Some(at("2026-11-29T01:00:00Z"))
    );
}
