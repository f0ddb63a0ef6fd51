//! What a turn carries besides text: attachments and quoted replies, and the context warning
//! after a reply that fills the window.

use super::greeted;
use crate::support;
use crate::support::mock_api::Reply;

/// MSG-4/5, CTX-10: images become image blocks, other files are saved under downloads/, and a
/// reply quotes the message it answers.
#[tokio::test]
async fn attachments_and_quoted_replies() {
    use base64::Engine;
    use support::fake_discord::FakeAttachment;
    let mut h = greeted().await;
    let png = base64::engine::general_purpose::STANDARD
        .decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")
        .unwrap();
    h.mock.push(Reply::text("Got both."));
    h.discord
        .dm_with_attachments(
            h.owner(),
            "look at these",
            vec![
                FakeAttachment::new("photo.txt", "text/plain", png.clone()),
                FakeAttachment::new("report.pdf", "application/pdf", b"%PDF-1.4 data".to_vec()),
            ],
        )
        .await;
    let answer = h
        .wait_for_bot_message("the answer", |m| m.content == "Got both.")
        .await;
    let request = h.mock.main_requests().pop().unwrap();
    let body = request.body.to_string();
    assert!(
        body.contains("\"media_type\":\"image/png\""),
        "PNG detected by its bytes"
    );
    let saved = h.sandbox.data_dir.join("downloads/report.pdf");
    assert_eq!(std::fs::read(&saved).unwrap(), b"%PDF-1.4 data");
    assert!(request.last_user_text().unwrap().contains("report.pdf"));

    h.mock.push(Reply::text("Quoted."));
    h.discord
        .reply_to(h.owner(), "what did you mean?", answer.id)
        .await;
    h.wait_for_bot_message("the answer to the reply", |m| m.content == "Quoted.")
        .await;
    let prompt = h.mock.main_requests().pop().unwrap();
    let text = prompt.last_user_text().unwrap().to_owned();
    assert!(text.contains("> Got both.\n\nwhat did you mean?"), "{text}");
    h.terminate().await;
}

/// STR-11, SLC-5: after `/model haiku`, a reply that leaves the context at 75 % of haiku's
/// window is followed by the context warning.
#[tokio::test]
async fn a_full_context_is_flagged_after_the_reply() {
    let mut h = greeted().await;
    let switch = h
        .discord
        .slash(
            h.owner(),
            "model",
            serde_json::json!([{"name": "name", "type": 3, "value": "haiku"}]),
        )
        .await;
    let callback = h.discord.wait_for_callback(switch).await;
    assert!(
        callback.to_string().contains("switched to haiku."),
        "{callback}"
    );
    h.mock
        .push(Reply::text("A long think.").with_input_tokens(150_000));
    h.discord.dm_from(h.owner(), "think hard").await;
    h.wait_for_bot_message("the reply", |m| m.content == "A long think.")
        .await;
    h.wait_for_bot_message("the context warning", |m| {
        m.content == "-# *context: 75% (150k) — consider /compact*"
    })
    .await;
    h.terminate().await;
}
