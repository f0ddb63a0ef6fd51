//! The gateway misbehaving (issue 16), through the real binary, serenity's real gateway client
//! against the fake Discord, and the real CLI against the mock model: an invalid session
//! (resumable or not), a zombied connection (no heartbeat ACK, nothing delivered) and a storm
//! of dropped connections. Each time the bot comes back on its own (resume or re-identify),
//! a DM the owner sent in the gap is answered exactly once (MSG-1; replayed on RESUME or
//! fetched after a new READY), a DM afterwards is answered too, and nothing says it shut down
//! (BOOT-8).

use crate::support;

/// Connections dropped in a row in the storm.
const DROPS: usize = 10;

use std::time::Duration;

use support::{
    bot::BotHarness,
    fake_discord::{FakeConfig, GatewayStats},
    mock_api::Reply,
    wait,
};

/// A bot whose gateway heartbeats every second (so a zombie is noticed quickly), greeted,
/// and past one exchange when `warm_up`.
async fn greeted_bot(warm_up: bool) -> BotHarness {
    let config = FakeConfig {
        heartbeat_interval_ms: 1_000,
        wait_timeout: Duration::from_secs(30),
        ..FakeConfig::default()
    };
    let h = BotHarness::start_with(config, &[]).await;
    h.greeted().await;
    if warm_up {
        h.converse("warm up", "warm").await;
    }
    h
}

/// What the bot logs once it has judged a reconnect (pausing if it is one too many) and
/// caught up on the DMs sent while the gateway was away (each handed over, or skipped as
/// already taken up).
const CAUGHT_UP: &str = "caught up after the reconnect";

/// What the bot logs as a storm's pause ends.
const AFTER_THE_PAUSE: &str = "connecting to the Discord gateway again after the pause";

/// The reconnects the bot took in, by its log: every READY after the first, every RESUMED.
fn reconnects_taken(log: &str) -> usize {
    log.matches(" online as ").count().saturating_sub(1)
        + log.matches("gateway session resumed").count()
}

/// The reconnects the fake saw in `stats`: every RESUME, every IDENTIFY after the first.
fn reconnects_in(stats: &GatewayStats) -> usize {
    stats.resumes.len() + stats.identifies.len().saturating_sub(1)
}

/// Waits until the bot has caught up after every reconnect it took in.
async fn caught_up(h: &BotHarness) {
    wait::until_true(
        "the bot caught up after every reconnect",
        Duration::from_secs(30),
        || {
            let log = h.log();
            log.matches(CAUGHT_UP).count() >= reconnects_taken(&log)
        },
        || h.log(),
    )
    .await;
}

/// Waits for the bot's reply `answer` to the DM `sent`, the end of its turn, and the end of
/// the catch-up after the latest reconnect: every way the DM could be taken up again (a
/// replayed event, the catch-up's fetch) has then been handed over.
async fn answered(h: &BotHarness, sent: u64, answer: &str) {
    h.wait_for_bot_message_within(answer, Duration::from_secs(40), |m| {
        m.content.trim() == answer
    })
    .await;
    h.wait_turn_over(sent).await;
    caught_up(h).await;
}

/// After a later turn of the owner's (called once one was answered): `answer` is in the DM
/// once and the DM `sent` got its 👀 once, so it was handled exactly once. A second take-up
/// would have been handed over before that turn's DM was sent, and a taken-up DM gets its
/// 👀 first thing; the later turn is over only once its own reply is posted.
fn taken_up_once(h: &BotHarness, sent: u64, answer: &str) {
    let replies = h
        .bot_messages()
        .into_iter()
        .filter(|m| m.content.trim() == answer)
        .count();
    let seen = format!("PUT /channels/*/messages/{sent}/reactions/*/@me");
    let eyes = h
        .discord
        .requests_matching(&seen)
        .iter()
        .filter(|r| r.status < 300)
        .count();
    assert_eq!(
        replies,
        1,
        "{answer:?} answered {replies} times\n{}",
        h.log()
    );
    assert_eq!(eyes, 1, "the DM was taken up {eyes} times\n{}", h.log());
}

/// How many times the owner was told that DMs were missed while the gateway was away.
fn missed_notes(h: &BotHarness) -> usize {
    h.bot_messages()
        .iter()
        .filter(|m| m.content.contains("lost my connection to Discord"))
        .count()
}

/// The bot is still running, answers a new DM, and never said it was shutting down. That
/// turn shows the DM sent in the gap, if any (its id and its answer), was taken up once;
/// one more turn shows the same of the new DM.
async fn still_answering(h: &mut BotHarness, prompt: &str, answer: &str, gap: Option<(u64, &str)>) {
    h.discord.wait_for_ready().await;
    let sent = h.converse(prompt, answer).await;
    answered(h, sent, answer).await;
    if let Some((gap, gap_answer)) = gap {
        taken_up_once(h, gap, gap_answer);
    }
    h.converse("and one more", "one more").await;
    taken_up_once(h, sent, answer);
    assert!(
        h.child.try_wait().unwrap().is_none(),
        "the bot exited\n{}",
        h.log()
    );
    assert!(
        !h.bot_messages()
            .iter()
            .any(|m| m.content.starts_with("shutting down")),
        "a shutdown notice went out\n{}",
        h.log()
    );
}

#[tokio::test]
async fn a_non_resumable_invalid_session_re_identifies_and_answers_the_gap_once() {
    // No DM yet: the catch-up after the new READY starts from the greeting.
    let mut h = greeted_bot(false).await;
    let identifies = h.discord.identify_count();
    h.discord.invalid_session(false).await;
    // Written while the bot has no session: Discord will never deliver it as an event.
    h.mock.push(Reply::text("gap answered"));
    let gap = h
        .discord
        .dm_from_offline(h.owner(), "sent while the session was invalid");
    h.discord
        .wait_for_gateway(|g| g.identifies.len() > identifies)
        .await;
    answered(&h, gap, "gap answered").await;
    assert_eq!(
        h.discord.identify_count(),
        identifies + 1,
        "one new IDENTIFY"
    );
    assert_eq!(missed_notes(&h), 1, "told once\n{}", h.log());
    still_answering(
        &mut h,
        "after the new session",
        "fresh session",
        Some((gap, "gap answered")),
    )
    .await;
}

#[tokio::test]
async fn a_resumable_invalid_session_resumes_and_replays_the_gap_once() {
    let mut h = greeted_bot(true).await;
    let (identifies, resumes) = (h.discord.identify_count(), h.discord.resume_count());
    // The RESUME waits until the DM below is in the session: it is then replayed on RESUME,
    // and the catch-up after RESUMED sees it too — one answer all the same.
    h.discord.hold_resumes(true);
    h.discord.invalid_session(true).await;
    h.discord
        .wait_for_gateway(|g| g.resumes.len() > resumes)
        .await;
    h.mock.push(Reply::text("replayed answered"));
    let gap = h
        .discord
        .dm_from(h.owner(), "sent while the session was resuming")
        .await;
    h.discord.hold_resumes(false);
    answered(&h, gap, "replayed answered").await;
    assert_eq!(
        h.discord.identify_count(),
        identifies,
        "resumed, not re-identified"
    );
    assert!(
        h.discord.gateway_stats().replayed >= 1,
        "the DM was replayed"
    );
    assert_eq!(missed_notes(&h), 0, "replayed, so not missed\n{}", h.log());
    still_answering(
        &mut h,
        "after the resume",
        "resumed session",
        Some((gap, "replayed answered")),
    )
    .await;
}

#[tokio::test]
async fn a_zombied_connection_is_noticed_and_the_dm_it_swallowed_is_answered_once() {
    let mut h = greeted_bot(true).await;
    let connections = h.discord.gateway_stats().connections.len();
    h.discord.zombie_connection().await;
    h.mock.push(Reply::text("zombie gap answered"));
    // Goes into the session but never down the dead link.
    let gap = h
        .discord
        .dm_from(h.owner(), "sent while the link was dead")
        .await;
    // No ACK to its heartbeat: serenity drops the link and connects again by itself.
    h.discord
        .wait_for_gateway(|g| g.connections.len() > connections)
        .await;
    answered(&h, gap, "zombie gap answered").await;
    assert_eq!(missed_notes(&h), 1, "told once\n{}", h.log());
    still_answering(
        &mut h,
        "after the zombie",
        "alive again",
        Some((gap, "zombie gap answered")),
    )
    .await;
}

#[tokio::test]
async fn a_storm_of_dropped_connections_is_ridden_out_without_hammering() {
    let mut h = greeted_bot(true).await;
    let before = h.discord.gateway_stats().connections.len();
    for _ in 0..DROPS {
        // Each waits for the bot to be connected again before dropping it.
        h.discord.drop_connection().await;
    }
    h.discord.wait_for_ready().await;
    let stats = h.discord.gateway_stats();
    let storm = &stats.connected_at[before..];
    assert!(storm.len() >= DROPS, "{stats:?}");
    let span = storm[storm.len() - 1].saturating_sub(storm[0]);
    eprintln!("storm: {} connections in {span:?}: {storm:?}", storm.len());
    assert!(
        span >= Duration::from_secs(1),
        "{} connections within {span:?}: no backoff\n{}",
        storm.len(),
        h.log()
    );
    // A DM sent while the bot is pausing would be missed (and answered after the pause, with
    // a note); this one is meant to be answered right away, so wait for the pause to end.
    wait::until_true(
        "the end of the pause",
        Duration::from_secs(30),
        || {
            let log = h.log();
            log.matches("pausing before connecting again").count()
                == log
                    .matches("connecting to the Discord gateway again")
                    .count()
        },
        || h.log(),
    )
    .await;
    still_answering(&mut h, "after the storm", "weathered", None).await;
    assert_eq!(missed_notes(&h), 0, "nothing was missed\n{}", h.log());
}

/// SIGTERM while the shard is paused after a storm (no shard running, so serenity's client
/// would wait forever for one to confirm its shutdown): the bot still exits, cleanly (BOOT-8).
#[tokio::test]
async fn sigterm_while_paused_after_a_storm_still_exits() {
    // No DM yet, so the catch-up after each reconnect has nothing to fetch and is over at
    // once (with one, it would wait out its grace for a late event every time).
    let mut h = greeted_bot(false).await;
    let pausing = "pausing before connecting again";
    // Two storms: the second pause (4 s) is long enough to land the signal in. Before each
    // drop the bot has taken in every reconnect the fake saw and caught up after it, so a
    // pause one of them led to is in the log, and that pause is over (the link a pause takes
    // down is not dropped again); the signal goes as soon as the second pause is logged.
    for _ in 0..20 {
        wait::until_true(
            "the second pause, or the bot settled after every reconnect the fake saw",
            Duration::from_secs(30),
            || {
                let log = h.log();
                let taken = reconnects_taken(&log);
                let pauses = log.matches(pausing).count();
                pauses >= 2
                    || (taken >= reconnects_in(&h.discord.gateway_stats())
                        && log.matches(CAUGHT_UP).count() >= taken
                        && log.matches(AFTER_THE_PAUSE).count() >= pauses)
            },
            || format!("{:?}\n{}", h.discord.gateway_stats(), h.log()),
        )
        .await;
        if h.log().matches(pausing).count() >= 2 {
            break;
        }
        h.discord.drop_connection().await;
        // The bot connects again (and is taken in above) before the next drop.
        let dropped = reconnects_in(&h.discord.gateway_stats());
        h.discord
            .wait_for_gateway(|stats| reconnects_in(stats) > dropped)
            .await;
    }
    assert_eq!(h.log().matches(pausing).count(), 2, "{}", h.log());
    h.signal("TERM");
    let status = h.wait_exit(Duration::from_secs(40)).await;
    assert!(status.success(), "{status:?}\n{}", h.log());
}
