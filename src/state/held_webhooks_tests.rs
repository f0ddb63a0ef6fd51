use chrono::TimeZone;

use super::*;

fn request(minute: u32) -> HeldRequest {
    HeldRequest {
        webhook_id: "github-ci".into(),
        reason: "the screening gave no answer within 30 s".into(),
        received_at: Utc.with_ymd_and_hms(2026, 11, 25, 9, minute, 0).unwrap(),
        payload: r#"{"repo":"ollim","status":"failure"}"#.into(),
        message_id: None,
        cause: HoldCause::Unscreened,
    }
}

#[test]
fn a_hold_is_released_only_from_its_message_and_only_once() {
    let dir = tempfile::tempdir().unwrap();
    let store = HeldWebhooks::new(dir.path().join("held_webhooks.json"));
    let id = store.hold(request(0)).unwrap();
    // Before its message is posted, no click counts.
    assert_eq!(store.release(&id, 7).unwrap(), ReleaseOutcome::WrongMessage);
    store.set_message(&id, 42).unwrap();
    assert_eq!(store.release(&id, 7).unwrap(), ReleaseOutcome::WrongMessage);
    let reopened = HeldWebhooks::new(dir.path().join("held_webhooks.json"));
    let ReleaseOutcome::Released(held) = reopened.release(&id, 42).unwrap() else {
        panic!("not released");
    };
    assert_eq!(held.payload, r#"{"repo":"ollim","status":"failure"}"#);
    assert_eq!(store.release(&id, 42).unwrap(), ReleaseOutcome::NotHeld);
}

#[test]
fn the_oldest_hold_makes_room() {
    let dir = tempfile::tempdir().unwrap();
    let store = HeldWebhooks::new(dir.path().join("held_webhooks.json"));
    let first = store.hold(request(0)).unwrap();
    for minute in 1..=u32::try_from(MAX_HELD).unwrap() {
        store.hold(request(minute)).unwrap();
    }
    let held = store.list();
    assert_eq!(held.len(), MAX_HELD);
    assert!(!held.contains_key(&first));
}

#[test]
fn an_unreadable_file_holds_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("held_webhooks.json");
    std::fs::write(&path, "{not json").unwrap();
    let store = HeldWebhooks::new(&path);
    assert!(store.list().is_empty());
    let id = store.hold(request(3)).unwrap();
    assert!(store.list().contains_key(&id));
}

/// USE-6: requests waiting for the budget are taken out all at once, oldest first, and
/// neither they nor the screening's holds push out the other kind.
#[test]
fn waiting_requests_are_taken_together_and_kept_apart_from_holds() {
    let dir = tempfile::tempdir().unwrap();
    let store = HeldWebhooks::new(dir.path().join("held_webhooks.json"));
    let unscreened = store.hold(request(0)).unwrap();
    assert!(!store.any_waiting());
    for minute in (1..=u32::try_from(MAX_HELD).unwrap() + 1).rev() {
        let waiting = HeldRequest {
            cause: HoldCause::OverBudget,
            ..request(minute)
        };
        store.hold(waiting).unwrap();
    }
    assert!(store.any_waiting());
    assert!(store.list().contains_key(&unscreened));
    let taken = store.take_waiting().unwrap();
    assert_eq!(taken.len(), MAX_HELD);
    assert!(
        taken
            .windows(2)
            .all(|w| w[0].received_at < w[1].received_at)
    );
    // Minute 1 came last and pushed out the oldest then kept, minute 2.
    let minutes: Vec<_> = taken
        .iter()
        .map(|t| t.received_at.format("%M").to_string())
        .collect();
    assert_eq!(minutes[..2], ["01", "03"]);
    assert!(!store.any_waiting());
    assert_eq!(store.list().len(), 1, "the screening's hold stays");
    assert!(store.take_waiting().unwrap().is_empty());
}
