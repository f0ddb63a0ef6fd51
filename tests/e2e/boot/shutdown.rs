//! Shutting down in order: SIGTERM/SIGINT idle, mid-turn, before the owner is known, during the
//! warm-up and with the gateway down (BOOT-8).

use std::time::{Duration, Instant};

use super::{git_subjects, poll};
use crate::support;
use crate::support::{bot::BotHarness, fake_discord::FakeConfig, mock_api::Reply};

/// Checks everything an ordered idle shutdown must leave behind.
async fn idle_shutdown(signal: &str) {
    let mut h = BotHarness::start().await;
    h.greeted().await;
    h.converse("hello", "hi julia").await;
    let data_dir = h.sandbox.data_dir.clone();
    let session = h.wait_stored_session().await;
    assert!(
        h.sandbox_processes().len() > 1,
        "the bot and its CLI run: {:?}",
        h.sandbox_processes()
    );

    let started = Instant::now();
    h.signal(signal);
    let status = h.wait_exit(Duration::from_secs(15)).await;
    let took = started.elapsed();
    assert_eq!(status.code(), Some(0), "{status:?}\n{}", h.log());
    assert!(took < Duration::from_secs(5), "exit took {took:?}");
    let notice = format!("shutting down: received SIG{signal}");
    let notices = h
        .bot_messages()
        .iter()
        .filter(|m| m.content == notice)
        .count();
    assert_eq!(notices, 1, "{notice:?} in the DM: {:#?}", h.bot_messages());
    h.sandbox
        .assert_no_process_left(Duration::from_secs(2))
        .await;
    let gateway_stats = h.discord.gateway_stats();
    assert!(
        gateway_stats.client_closes.contains(&Some(1000)),
        "the gateway was closed normally: {gateway_stats:?}"
    );
    let subjects = git_subjects(&data_dir);
    assert!(
        subjects.contains(&format!("session created: {}", &session[..8])),
        "git log: {subjects}"
    );
}

/// BOOT-8: SIGTERM while idle → the notice DM, exit 0 within seconds, no CLI left, the gateway
/// closed, the session commit flushed.
#[tokio::test]
async fn sigterm_while_idle_shuts_down_in_order() {
    idle_shutdown("TERM").await;
}

/// BOOT-8 with SIGINT.
#[tokio::test]
async fn sigint_while_idle_shuts_down_in_order() {
    idle_shutdown("INT").await;
}

/// SIGTERM while a slow reply streams: the reply still completes, the notice is posted, exit 0
/// and no CLI is left.
#[tokio::test]
async fn sigterm_mid_turn_lets_the_reply_finish() {
    let mut h = BotHarness::start().await;
    h.greeted().await;
    let chunks: Vec<String> = (0..15).map(|i| format!("w{i} ")).collect();
    let reply = Reply::text_chunks(chunks, Duration::from_millis(200));
    let full = reply.full_text();
    h.mock.push(reply);
    h.discord.dm_from(h.owner(), "tell me slowly").await;
    h.wait_for_bot_message("with the first words", |m| m.content.starts_with("w0 "))
        .await;
    let partial = h
        .bot_messages()
        .into_iter()
        .find(|m| m.content.starts_with("w0 "))
        .unwrap();
    assert!(
        !partial.content.contains("w14"),
        "the reply was already complete; the test is too slow to signal mid-turn"
    );

    h.signal("TERM");
    let notice = h
        .wait_for_bot_message("shutdown notice", |m| {
            m.content == "shutting down: received SIGTERM"
        })
        .await;
    // The notice goes out just before intake stops.
    h.wait_for_log("intake stopped", Duration::from_secs(10))
        .await;
    let late = h.discord.dm_from(h.owner(), "one more thing").await;
    let status = h.wait_exit(Duration::from_secs(20)).await;
    assert_eq!(status.code(), Some(0), "{status:?}\n{}", h.log());
    let answer = h
        .discord
        .message(h.dm(), partial.id)
        .expect("the reply message is still there");
    assert_eq!(
        answer.content.trim_end(),
        full.trim_end(),
        "the reply completed"
    );
    assert!(
        h.discord.message(h.dm(), notice.id).is_some(),
        "the notice stays"
    );
    let requests = h.mock.main_requests();
    assert_eq!(
        requests.len(),
        1,
        "the DM after SIGTERM reached the model: {:?}",
        requests
            .iter()
            .map(support::mock_api::RecordedRequest::summary)
            .collect::<Vec<_>>()
    );
    assert!(!requests[0].disconnected, "the model stream was cut");
    let touched_late = h
        .discord
        .requests()
        .iter()
        .any(|r| r.path.contains(&format!("/messages/{late}/")));
    assert!(!touched_late, "the DM after SIGTERM was handled (👀)");
    h.sandbox
        .assert_no_process_left(Duration::from_secs(2))
        .await;
}

/// SIGTERM before the owner is known (application info still pending): exit 0 promptly,
/// no greeting sent during shutdown, no CLI started or left.
#[tokio::test]
async fn sigterm_before_the_owner_is_known_exits_cleanly() {
    let config = FakeConfig {
        owner_delay: Duration::from_millis(2500),
        ..FakeConfig::default()
    };
    let mut h = BotHarness::start_with(config, &[]).await;
    h.discord
        .wait_for_request("GET /oauth2/applications/@me")
        .await;
    let started = Instant::now();
    h.signal("TERM");
    let status = h.wait_exit(Duration::from_secs(15)).await;
    let took = started.elapsed();
    assert_eq!(status.code(), Some(0), "{status:?}\n{}", h.log());
    assert!(took < Duration::from_secs(5), "exit took {took:?}");
    // The process is gone: had it lingered until the owner resolved, it would have greeted.
    assert!(
        h.bot_messages().is_empty(),
        "a DM during shutdown: {:#?}",
        h.bot_messages()
    );
    h.sandbox
        .assert_no_process_left(Duration::from_secs(2))
        .await;
}

/// SIGTERM right after the greeting, while the main session's CLI may still be starting
/// (the warm-up connect): exit 0, no CLI left behind.
#[tokio::test]
async fn sigterm_during_the_warm_up_leaves_no_cli() {
    let mut h = BotHarness::start().await;
    h.greeted().await;
    h.signal("TERM");
    let status = h.wait_exit(Duration::from_secs(15)).await;
    assert_eq!(status.code(), Some(0), "{status:?}\n{}", h.log());
    h.sandbox
        .assert_no_process_left(Duration::from_secs(2))
        .await;
}

/// BOOT-8 while the gateway is down (a RESUME left unanswered): the notice still goes out
/// over REST and the process still exits 0 within seconds.
#[tokio::test]
async fn sigterm_while_the_gateway_is_down_still_exits() {
    let mut h = BotHarness::start().await;
    h.greeted().await;
    h.discord.hold_resumes(true);
    h.discord.drop_connection().await;
    poll("a parked RESUME", Duration::from_secs(10), || {
        (h.discord.resume_count() > 0).then_some(())
    })
    .await;
    let started = Instant::now();
    h.signal("TERM");
    let status = h.wait_exit(Duration::from_secs(20)).await;
    let took = started.elapsed();
    assert_eq!(status.code(), Some(0), "{status:?}\n{}", h.log());
    assert!(took < Duration::from_secs(8), "exit took {took:?}");
    assert!(
        h.bot_messages()
            .iter()
            .any(|m| m.content == "shutting down: received SIGTERM"),
        "{:#?}",
        h.bot_messages()
    );
    h.sandbox
        .assert_no_process_left(Duration::from_secs(2))
        .await;
}
