//! A port without a secret stays closed while the bot runs on; a flood of bad requests leaves
//! the bot answering and small (WHK-1).

use std::time::Duration;

use super::{Hooks, SECRET};
use crate::support;
use crate::support::{
    bot::BotHarness,
    cli::CliSandbox,
    fake_discord::{FakeConfig, FakeDiscord},
    http::post_hook,
    mock_api::{MockApi, Reply},
    procs,
};

#[tokio::test]
async fn a_port_without_a_secret_stays_closed_and_the_bot_runs_on() {
    // The port is held by the test: had the bot tried to serve on it, its bind would fail and
    // it would log "could not start the webhook server".
    let held = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port_text = held.local_addr().unwrap().port().to_string();
    let h = BotHarness::start_parts(
        FakeDiscord::start(FakeConfig::default()).await,
        MockApi::start().await,
        CliSandbox::new(),
        &[("WEBHOOK_PORT", &port_text)],
    )
    .await;
    h.greeted().await;
    // Logged where the start decides not to bind: once it is there, nothing was bound.
    h.wait_for_log("WEBHOOK_SECRET is missing", Duration::from_secs(15))
        .await;
    let log = h.log();
    assert!(
        !log.contains("could not start the webhook server")
            && !log.contains(support::bot::WEBHOOK_STARTED),
        "{log}"
    );
    h.mock.push(Reply::text("still here"));
    h.discord.dm_from(h.owner(), "are you there?").await;
    h.wait_for_bot_message("the reply", |m| m.content.contains("still here"))
        .await;
}

#[tokio::test]
async fn a_flood_of_bad_requests_leaves_the_bot_answering_and_small() {
    let hooks = Hooks::start().await;
    let pid = hooks.h.child.id().unwrap();
    let (idle, _) = procs::memory_kib(pid).unwrap();
    let mut tasks = tokio::task::JoinSet::new();
    for worker in 0..16 {
        let port = hooks.port;
        tasks.spawn(async move {
            for n in 0..200 {
                let reply = match (worker + n) % 4 {
                    0 => post_hook(port, "ci", None, &[], "{}").await,
                    1 => post_hook(port, "ci", Some(SECRET), &[], "{nope").await,
                    2 => post_hook(port, "ci", Some(SECRET), &[], r#"{"repo": 1}"#).await,
                    _ => post_hook(port, "missing", Some(SECRET), &[], "{}").await,
                };
                assert!(matches!(reply.status, 400 | 401 | 404), "{reply:?}");
            }
        });
    }
    while let Some(done) = tasks.join_next().await {
        done.unwrap();
    }
    // Measured once the turn is over (its 👀 removed): the bot is idle again.
    hooks.h.converse("still there?", "still answering").await;
    let (after, _) = procs::memory_kib(pid).unwrap();
    eprintln!("bot RSS: {idle} KiB idle, {after} KiB after 3,200 bad requests");
    assert!(
        after < idle + 16 * 1024,
        "RSS grew from {idle} KiB to {after} KiB over 3,200 bad requests"
    );
    assert!(hooks.runs_of("ci").is_empty() && hooks.screenings().is_empty());
}
