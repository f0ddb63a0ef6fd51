//! `/google-auth` end to end (GOO-4, SLC-13, MSG-6): the real bot against the fake Discord and
//! the fake Google. Completed by the browser's redirect to the loopback listener, and — in
//! another run — by pasting the redirect URL in the DM, which never reaches the agent or the
//! log; a pasted URL with another `state` is refused and the flow keeps waiting.

use crate::support;

use serde_json::{Value, json};
use support::bot::BotHarness;
use support::fake_discord::FakeConfig;
use support::fake_google::FakeGoogle;
use support::wait;

async fn started(fake: &FakeGoogle) -> BotHarness {
    let url = fake.base_url();
    let h = BotHarness::start_with(
        FakeConfig::default(),
        &[("OLLIM_GOOGLE_API_URL", url.as_str())],
    )
    .await;
    h.greeted().await;
    h
}

async fn google_auth(h: &BotHarness) -> String {
    let id = h.discord.slash(h.owner(), "google-auth", json!([])).await;
    let callback: Value = h.discord.wait_for_callback(id).await;
    assert_eq!(callback["data"]["flags"], 64, "ephemeral: {callback}");
    callback["data"]["content"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// The sign-in link of a `/google-auth` answer, followed like a browser up to the redirect
/// Google sends back: returns that loopback URL.
async fn consent(answer: &str) -> String {
    let url = answer
        .split_whitespace()
        .find(|word| word.starts_with("http"))
        .expect("a sign-in link");
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .build()
        .unwrap();
    let consent = http.get(url).send().await.unwrap();
    assert_eq!(consent.status(), 302);
    consent.headers()["location"].to_str().unwrap().to_owned()
}

#[tokio::test]
async fn google_auth_is_completed_by_the_browser_redirect() {
    let fake = FakeGoogle::start().await;
    let mut h = started(&fake).await;
    let answer = google_auth(&h).await;
    let credentials = h.sandbox.data_dir.join("state/credentials.json");
    assert!(
        answer.contains(&credentials.display().to_string()),
        "{answer}"
    );
    assert!(answer.contains("console.cloud.google.com") && answer.contains("Desktop app"));

    fake.write_credentials(&h.sandbox.data_dir);
    // A second /google-auth replaces the first flow (its link may be lost): the first
    // listener closes.
    let stale = consent(&google_auth(&h).await).await;
    let answer = google_auth(&h).await;
    let plain = reqwest::Client::builder().no_proxy().build().unwrap();
    let closed = wait::until_async(std::time::Duration::from_secs(5), || async {
        plain.get(&stale).send().await.is_err().then_some(())
    })
    .await;
    assert!(closed.is_some(), "the replaced listener still answers");
    assert!(
        answer.ends_with("\n-# on another device? paste the redirect url here · 5 min timeout"),
        "{answer}"
    );
    let location = consent(&answer).await;
    assert!(location.starts_with("http://127.0.0.1:"), "{location}");
    let page = reqwest::Client::builder()
        .no_proxy()
        .build()
        .unwrap()
        .get(&location)
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    h.wait_for_bot_message("the outcome", |m| m.content == "google connected.")
        .await;
    assert!(h.sandbox.data_dir.join("state/token.json").exists());
    assert_eq!(google_auth(&h).await, "google already connected.");
    h.terminate().await;
}

#[tokio::test]
async fn google_auth_is_completed_by_a_pasted_url_the_agent_never_sees() {
    let fake = FakeGoogle::start().await;
    let mut h = started(&fake).await;
    fake.write_credentials(&h.sandbox.data_dir);
    let location = consent(&google_auth(&h).await).await;
    let (origin, query) = location.split_once('?').unwrap();
    let code = query
        .split('&')
        .find_map(|pair| pair.strip_prefix("code="))
        .unwrap()
        .to_owned();

    // Another sign-in's address: refused, nothing saved, the flow still waits.
    h.discord
        .dm_from(h.owner(), &format!("{origin}?state=other&code=forged"))
        .await;
    h.wait_for_bot_message("the refusal", |m| {
        m.content.contains("isn't from the Google sign-in")
    })
    .await;
    assert!(!h.sandbox.data_dir.join("state/token.json").exists());

    h.discord.dm_from(h.owner(), &location).await;
    h.wait_for_bot_message("the outcome", |m| m.content == "google connected.")
        .await;
    assert!(h.sandbox.data_dir.join("state/token.json").exists());
    // The pasted URLs went to no model call and into no log line.
    for request in h.mock.requests() {
        let body = request.body.to_string();
        assert!(
            !body.contains(&code) && !body.contains("forged"),
            "reached the model: {body}"
        );
    }
    let log = h.log();
    assert!(
        !log.contains(&code) && !log.contains("forged"),
        "logged:\n{log}"
    );

    // With no flow waiting, a pasted address is still kept from the agent.
    let before = h.mock.main_requests().len();
    h.discord.dm_from(h.owner(), &location).await;
    h.wait_for_bot_message("the no-flow note", |m| {
        m.content.contains("no Google sign-in is waiting")
    })
    .await;
    assert_eq!(h.mock.main_requests().len(), before);
    h.terminate().await;
}
