//! Discord out of reach at start: a 503 for the gateway is retried, a refused address is waited
//! out with the cause said (BOOT-5, issue 24 §7).

use std::time::Duration;

use crate::support;
use crate::support::{
    bot::{bot_command, spawn_collecting},
    cli::CliSandbox,
    fake_discord::{FakeConfig, FakeDiscord},
    mock_api::MockApi,
    wait,
};

/// BOOT-5: a 503 when asking Discord for the gateway is retried after 5 s (and serenity never
/// falls back to Discord's public gateway behind the proxy's back).
#[tokio::test]
async fn a_503_at_start_up_is_retried() {
    let config = support::fake_discord::FakeConfig {
        gateway_503_count: 1,
        ..support::fake_discord::FakeConfig::default()
    };
    let mut h = support::bot::BotHarness::start_with(config, &[]).await;
    assert!(
        h.log()
            .contains("Discord API error (503 Service Unavailable) — retrying in 5s (attempt 1/5)"),
        "{}",
        h.log()
    );
    h.greeted().await;
    assert!(h.terminate().await.success());
}

/// Issue 24 §7: started before the network is up (here: Discord's address refuses), the bot
/// says what is wrong and keeps trying instead of exiting with a misleading cause; a stop
/// while it waits ends it cleanly.
#[tokio::test]
async fn without_the_network_the_bot_waits_and_says_why() {
    let discord = FakeDiscord::start(FakeConfig::default()).await;
    let mock = MockApi::start().await;
    let sandbox = CliSandbox::new();
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let url = format!("http://127.0.0.1:{port}/api");
    let mut process = spawn_collecting(bot_command(
        &discord,
        &mock,
        &sandbox,
        &[("OLLIM_DISCORD_API_URL", url.as_str())],
        &[],
    ));
    wait::until_true(
        "the network wait",
        Duration::from_secs(20),
        || process.log().contains("waiting for the network"),
        || process.log(),
    )
    .await;
    let log = process.log();
    assert!(
        log.contains(&format!("can't connect to 127.0.0.1:{port}")),
        "{log}"
    );
    assert!(!log.contains("Login failed"), "{log}");
    // One line per attempt: the log's own line of it stays at debug.
    assert!(!log.contains("WARN ollim_bot::app::network_wait"), "{log}");
    process.signal("TERM");
    let status = process.wait_exit(Duration::from_secs(10)).await;
    assert_eq!(status.code(), Some(0), "{}", process.log());
    assert_eq!(mock.model_requests().len(), 0);
}
