//! BOOT-8's crash notice end to end: the real binary against the fake Discord, the pinned
//! Claude CLI and the mock model. A fatal gateway close after the greeting → the owner's DM
//! says `shutting down: <kind>: <reason>` (sent through REST, the gateway being gone) and the
//! process exits non-zero, so a supervisor restarts it.

use crate::support;

use std::time::Duration;

use support::bot::BotHarness;

#[tokio::test]
async fn a_fatal_gateway_close_dms_the_reason_and_exits_non_zero() {
    let mut h = BotHarness::start().await;
    h.greeted().await;
    h.discord.close_connection(4004).await;
    let status = h.wait_exit(Duration::from_secs(30)).await;
    let log = h.log();
    assert_eq!(status.code(), Some(1), "{status:?}\n{log}");
    let notices: Vec<String> = h
        .bot_messages()
        .into_iter()
        .map(|m| m.content)
        .filter(|c| c.starts_with("shutting down: "))
        .collect();
    assert_eq!(notices.len(), 1, "{notices:?}\n{log}");
    assert!(
        notices[0].starts_with("shutting down: gateway error: Invalid Discord token."),
        "{notices:?}"
    );
    assert!(
        notices[0].chars().count() <= "shutting down: ".len() + 200,
        "{notices:?}"
    );
    assert!(log.contains("Invalid Discord token"), "{log}");
    h.sandbox
        .assert_no_process_left(Duration::from_secs(5))
        .await;
}
