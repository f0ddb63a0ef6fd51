//! The Google buttons end to end (BTN-5/6/7, GOO-8/9, SCH-3): the real bot against the fake
//! Discord and the fake Google. A click completes or deletes through the same client as the
//! CLI, answers ephemerally, leaves a pending update; a delete asks for a second click first;
//! a refused refresh token leads to the revocation DM within one sync.

use crate::support;

use serde_json::json;
use support::bot::BotHarness;
use support::fake_discord::FakeConfig;
use support::fake_google::FakeGoogle;

const CLICK_AGAIN: &str = "click again to delete (within 10 s)";

async fn started(fake: &FakeGoogle) -> (BotHarness, u64) {
    let url = fake.base_url();
    let h = BotHarness::start_with(
        FakeConfig::default(),
        &[
            ("OLLIM_GOOGLE_API_URL", url.as_str()),
            ("OLLIM_SCHEDULER_SYNC_SECS", "1"),
        ],
    )
    .await;
    let greeting = h.greeted().await;
    (h, greeting.id)
}

/// Clicks `custom_id` on `message` and waits for the bot's ephemeral answer to that click.
async fn click(h: &BotHarness, message: u64, custom_id: &str) -> String {
    let interaction = h
        .discord
        .click_button(h.owner(), h.dm(), message, custom_id)
        .await;
    let answer = h
        .wait_for_bot_message(&format!("the answer to {custom_id}"), |m| {
            m.interaction_id == Some(interaction) && !m.content.is_empty()
        })
        .await;
    assert_eq!(answer.flags & 64, 64, "not ephemeral: {answer:?}");
    answer.content
}

fn pending_updates(h: &BotHarness) -> String {
    std::fs::read_to_string(h.sandbox.data_dir.join("state/pending_updates.json"))
        .unwrap_or_default()
}

#[tokio::test]
async fn task_and_event_buttons_act_through_google_with_a_second_click_to_delete() {
    let fake = FakeGoogle::start().await;
    let (mut h, message) = started(&fake).await;
    fake.connect(&h.sandbox.data_dir, false);
    fake.with(|d| {
        d.tasks("@default").extend([
            json!({"id": "t1", "title": "Buy milk", "status": "needsAction"}),
            json!({"id": "t2", "title": "Old plan", "status": "needsAction"}),
        ]);
        d.tasks("errands").push(json!({"id": "e9", "title": "Post office", "status": "needsAction"}));
        d.events("work@example.com").push(json!({"id": "w1", "summary": "Standup",
            "start": {"dateTime": "2026-02-25T09:00:00Z"}, "end": {"dateTime": "2026-02-25T09:15:00Z"}}));
    });

    // BTN-5: done, with the title in the pending update.
    assert_eq!(click(&h, message, "act:task_done:t1").await, "done ✓");
    assert_eq!(
        fake.with(|d| d.tasks("@default")[0]["status"].clone()),
        "completed"
    );
    assert!(
        pending_updates(&h).contains(r#"User completed task \"Buy milk\""#),
        "{}",
        pending_updates(&h)
    );
    // GOO-9: a list encoded in the button.
    assert_eq!(
        click(&h, message, "act:task_done:errands/e9").await,
        "done ✓"
    );
    assert_eq!(
        fake.with(|d| d.tasks("errands")[0]["status"].clone()),
        "completed"
    );

    // BTN-6: the first click only asks; the second deletes.
    assert_eq!(click(&h, message, "act:task_del:t2").await, CLICK_AGAIN);
    assert_eq!(fake.with(|d| d.tasks("@default").len()), 2);
    assert!(
        fake.requests_to("/tasks/v1/lists/@default/tasks/t2")
            .is_empty()
    );
    assert_eq!(click(&h, message, "act:task_del:t2").await, "deleted");
    assert_eq!(fake.with(|d| d.tasks("@default").len()), 1);
    assert!(pending_updates(&h).contains(r#"User deleted task \"Old plan\""#));

    // BTN-7: the calendar form.
    assert_eq!(
        click(&h, message, "act:event_del:work@example.com/w1").await,
        CLICK_AGAIN
    );
    assert_eq!(
        click(&h, message, "act:event_del:work@example.com/w1").await,
        "deleted"
    );
    assert!(fake.with(|d| d.events("work@example.com").is_empty()));
    assert!(pending_updates(&h).contains(r#"User deleted calendar event \"Standup\""#));

    // Failures answer `failed: <reason>` and record nothing.
    assert_eq!(
        click(&h, message, "act:task_done:gone").await,
        "failed: not found"
    );
    assert_eq!(
        click(&h, message, "act:event_del:legacy1").await,
        CLICK_AGAIN
    );
    assert_eq!(
        click(&h, message, "act:event_del:legacy1").await,
        "failed: not found"
    );
    let legacy = fake.requests_to("/calendar/v3/calendars/primary/events/legacy1");
    assert_eq!(legacy.len(), 1, "the legacy form targets primary");
    std::fs::remove_file(h.sandbox.data_dir.join("state/token.json")).unwrap();
    let answer = click(&h, message, "act:task_done:t1").await;
    assert!(
        answer.starts_with("failed: Google is not connected"),
        "{answer}"
    );
    assert_eq!(pending_updates(&h).matches("User ").count(), 4);
    h.terminate().await;
}

#[tokio::test]
async fn a_revoked_refresh_token_brings_the_reconnect_dm_within_one_sync() {
    let fake = FakeGoogle::start().await;
    let (mut h, message) = started(&fake).await;
    let (_, refresh) = fake.connect(&h.sandbox.data_dir, true);
    fake.revoke(&refresh);
    let answer = click(&h, message, "act:task_done:t1").await;
    assert!(
        answer.starts_with("failed: Google access was revoked"),
        "{answer}"
    );
    h.wait_for_bot_message_within(
        "the revocation notice",
        std::time::Duration::from_secs(5),
        |m| m.content == "-# google auth revoked — use /google-auth to reconnect.",
    )
    .await;
    assert!(
        !h.sandbox
            .data_dir
            .join("state/google_auth_revoked")
            .exists()
    );
    assert!(!h.sandbox.data_dir.join("state/token.json").exists());
    // Once: the marker is consumed (gone, as checked above), so nothing posts it again.
    let notices = h
        .bot_messages()
        .iter()
        .filter(|m| m.content.contains("google auth revoked"))
        .count();
    assert_eq!(notices, 1);
    h.terminate().await;
}
