//! Proves the fake Discord works with the real serenity 0.12.5 client (no ollim
//! code): REST through `HttpBuilder::proxy`, gateway IDENTIFY/READY, RESUME with
//! replay, interactions, and serenity's fatal close-code handling.

use crate::support;

use std::time::{Duration, Instant};

use serde_json::json;
use serenity::all::{
    ChannelId, Command, CreateAttachment, CreateCommand, CreateEmbed, CreateMessage, EditMessage,
    GetMessages, GuildId, MessageId, ReactionType, UserId,
};
use serenity::gateway::GatewayError;

use support::echo_bot::{assert_dispatches_parse, count, http_for, start_bot, status_of};
use support::fake_discord::{FakeAttachment, FakeConfig, FakeDiscord, RecordedRequest};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn echo_roundtrip_then_resume_without_duplicates() {
    let fake = FakeDiscord::start(FakeConfig::default()).await;
    let cfg = fake.config().clone();
    let bot = start_bot(&fake, &cfg.valid_token).await;
    fake.wait_for_ready().await;

    let stats = fake.gateway_stats();
    assert_eq!(stats.connections, vec!["v=10".to_string()]);
    let identify = &stats.identifies[0];
    assert_eq!(identify["token"], format!("Bot {}", cfg.valid_token));
    let intents = identify["intents"].as_u64().unwrap();
    assert_ne!(intents & (1 << 12), 0, "DIRECT_MESSAGES");
    assert_ne!(intents & (1 << 15), 0, "MESSAGE_CONTENT");
    assert_eq!(fake.wait_for_request("GET /gateway").await.status, 200);

    let owner = cfg.owner_id;
    let ch = fake.dm_channel_id(owner);
    fake.dm_from(owner, "hi").await;
    let echo = fake
        .wait_for_message_in(ch, |m| m.content == "echo: hi")
        .await;
    assert!(echo.by_bot && echo.author_id == cfg.bot_user_id);

    // Reply + attachment + reaction on the same session.
    let first = fake.channel_messages(ch)[0].id;
    fake.reply_to(owner, "again?", first).await;
    fake.wait_for_message_in(ch, |m| m.content == "echo: again? (re: hi)")
        .await;
    let file = FakeAttachment::new("notes.txt", "text/plain", b"12345".to_vec());
    fake.dm_with_attachments(owner, "file", vec![file]).await;
    fake.wait_for_message_in(ch, |m| m.content == "echo: file [notes.txt 5B]")
        .await;

    // Drop the TCP connection and hold serenity's RESUME; the DM injected meanwhile
    // is buffered and replayed once the RESUME is answered.
    fake.hold_resumes(true);
    fake.drop_connection().await;
    fake.wait_for_gateway(|g| g.resumes.len() == 1).await;
    fake.dm_from(owner, "after drop").await;
    assert!(!fake.is_connected());
    fake.hold_resumes(false);
    fake.wait_for_message_in(ch, |m| m.content == "echo: after drop")
        .await;
    fake.wait_for_ready().await;
    assert_eq!(fake.gateway_stats().replayed, 1, "exactly the missed DM");
    assert_eq!(fake.identify_count(), 1, "resumed, not re-identified");
    assert_eq!(fake.resume_count(), 1);
    let resume = &fake.gateway_stats().resumes[0];
    assert_eq!(
        resume["session_id"],
        json!(fake.current_session_id().unwrap())
    );

    fake.dm_from(owner, "third").await;
    fake.wait_for_message_in(ch, |m| m.content == "echo: third")
        .await;
    let posted_twice = |log: &[RecordedRequest]| {
        let sends = log
            .iter()
            .filter(|r| r.matches("POST /channels/*/messages"));
        sends
            .filter(|r| {
                r.body
                    .as_ref()
                    .is_some_and(|b| b["content"] == "echo: after drop")
            })
            .count()
            > 1
    };
    let settle = fake.try_wait_for(Duration::from_millis(200), posted_twice);
    assert!(settle.await.is_none(), "a replayed event was handled twice");
    assert_eq!(count(&fake, ch, "echo: hi"), 1);
    assert_eq!(count(&fake, ch, "echo: after drop"), 1);
    bot.stop_clean(&fake).await;
    assert_eq!(fake.gateway_stats().client_closes, vec![Some(1000)]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reconnect_and_resumable_invalid_session_both_resume() {
    let cfg = FakeConfig {
        heartbeat_interval_ms: 300,
        ..FakeConfig::default()
    };
    let fake = FakeDiscord::start(cfg.clone()).await;
    let bot = start_bot(&fake, &cfg.valid_token).await;
    fake.wait_for_ready().await;
    let ch = fake.dm_channel_id(cfg.owner_id);

    fake.send_reconnect().await;
    fake.dm_from(cfg.owner_id, "one").await;
    fake.wait_for_message_in(ch, |m| m.content == "echo: one")
        .await;
    fake.wait_for_gateway(|g| g.resumes.len() == 1).await;

    fake.invalid_session(true).await;
    fake.wait_for_gateway(|g| g.resumes.len() == 2).await;
    fake.close_connection(4000).await;
    fake.wait_for_gateway(|g| g.resumes.len() == 3).await;
    fake.dm_from(cfg.owner_id, "two").await;
    fake.wait_for_message_in(ch, |m| m.content == "echo: two")
        .await;

    // Short heartbeat interval: serenity heartbeats and the fake ACKs.
    fake.wait_for_gateway(|g| g.heartbeats >= 2).await;
    assert_eq!(fake.identify_count(), 1);
    assert_eq!(count(&fake, ch, "echo: one"), 1);
    assert_dispatches_parse(&fake);
    bot.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_token_gets_401_and_gateway_4004() {
    let fake = FakeDiscord::start(FakeConfig::default()).await;
    let err = http_for(&fake, "wrong-token")
        .get_current_user()
        .await
        .expect_err("bad token rejected");
    assert_eq!(status_of(&err), Some((401, 0)), "{err:?}");
    let req = fake.wait_for_request("GET /users/@me").await;
    assert_eq!(req.authorization.as_deref(), Some("Bot wrong-token"));
    assert_eq!(req.status, 401);

    // GET /gateway needs no auth (as on Discord); IDENTIFY is then closed with 4004,
    // which serenity treats as fatal.
    let outcome = start_bot(&fake, "wrong-token").await.outcome().await;
    assert!(
        matches!(
            outcome,
            Err(serenity::Error::Gateway(
                GatewayError::InvalidAuthentication
            ))
        ),
        "{outcome:?}"
    );
    assert_eq!(fake.gateway_stats().closes_sent, vec![4004]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn disallowed_intents_close_is_fatal() {
    let cfg = FakeConfig {
        close_on_identify: Some(4014),
        ..FakeConfig::default()
    };
    let fake = FakeDiscord::start(cfg.clone()).await;
    let outcome = start_bot(&fake, &cfg.valid_token).await.outcome().await;
    assert!(
        matches!(
            outcome,
            Err(serenity::Error::Gateway(
                GatewayError::DisallowedGatewayIntents
            ))
        ),
        "{outcome:?}"
    );
    assert_eq!(fake.identify_count(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn button_and_slash_interactions() {
    let fake = FakeDiscord::start(FakeConfig::default()).await;
    let cfg = fake.config().clone();
    let bot = start_bot(&fake, &cfg.valid_token).await;
    fake.wait_for_ready().await;
    let owner = cfg.owner_id;
    let ch = fake.dm_channel_id(owner);

    // Commands registered on READY (PUT /applications/{app}/commands).
    let put = fake.wait_for_request("PUT /applications/*/commands").await;
    assert_eq!(
        put.path,
        format!("/applications/{}/commands", cfg.application_id)
    );
    assert_eq!(fake.commands()[0]["name"], "ping");

    fake.dm_from(owner, "menu").await;
    let menu = fake
        .wait_for_message_in(ch, |m| m.content == "pick one")
        .await;
    assert_eq!(menu.custom_ids(), vec!["ok".to_string()]);
    let iid = fake.click_button(owner, ch, menu.id, "ok").await;
    let callback = fake.wait_for_callback(iid).await;
    assert_eq!(callback["type"], 7);
    let updated = fake
        .wait_for_message_in(ch, |m| m.id == menu.id && m.content == "clicked ok")
        .await;
    assert!(updated.components.is_empty());
    assert_eq!(updated.history[0].content, "pick one");

    let iid = fake.slash(owner, "ping", json!([])).await;
    assert_eq!(fake.wait_for_callback(iid).await["type"], 5);
    let pong = fake
        .wait_for_message_in(ch, |m| m.content == "pong from /ping")
        .await;
    assert_eq!(pong.interaction_id, Some(iid));
    assert_eq!(pong.flags & 128, 0, "LOADING cleared by the edit");
    fake.wait_for_message_in(ch, |m| m.content == "follow-up")
        .await;
    fake.wait_for_request("PATCH /webhooks/*/*/messages/@original")
        .await;
    fake.wait_for_request("POST /webhooks/*/*").await;
    assert!(fake.interaction_acked(iid));

    // non_privileged() includes DIRECT_MESSAGE_REACTIONS, so the reaction arrives.
    fake.react(owner, ch, menu.id, "👍").await;
    fake.wait_for_message_in(ch, |m| m.content == "reacted 👍")
        .await;
    bot.stop_clean(&fake).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rest_surface_matches_serenity_models() {
    let cfg = FakeConfig {
        gateway_bot_503_count: 1,
        owner_delay: Duration::from_millis(300),
        ..FakeConfig::default()
    };
    let fake = FakeDiscord::start(cfg.clone()).await;
    let http = http_for(&fake, &cfg.valid_token);

    let err = http
        .get_bot_gateway()
        .await
        .expect_err("first /gateway/bot is 503");
    assert_eq!(status_of(&err).map(|s| s.0), Some(503));
    let gateway = http.get_bot_gateway().await.expect("second /gateway/bot");
    assert_eq!((gateway.url, gateway.shards), (fake.ws_url(), 1));

    assert_eq!(http.get_current_user().await.unwrap().name, cfg.bot_name);
    let started = Instant::now();
    let info = http.get_current_application_info().await.unwrap();
    assert!(started.elapsed() >= cfg.owner_delay);
    assert_eq!(info.owner.unwrap().id.get(), cfg.owner_id);
    assert_eq!(info.id.get(), cfg.application_id);

    let dm = UserId::new(cfg.owner_id)
        .create_dm_channel(&http)
        .await
        .unwrap();
    assert_eq!(dm.id.get(), fake.dm_channel_id(cfg.owner_id));
    let ch: ChannelId = dm.id;
    let upload = CreateAttachment::bytes(b"hello".to_vec(), "note.txt");
    let sent = ch
        .send_message(
            &http,
            CreateMessage::new().content("with file").add_file(upload),
        )
        .await
        .unwrap();
    assert_eq!(sent.attachments[0].download().await.unwrap(), b"hello");
    let req: RecordedRequest = fake.wait_for_request("POST /channels/*/messages").await;
    assert_eq!(
        (
            req.files[0].filename.as_deref(),
            req.files[0].data.as_slice()
        ),
        (Some("note.txt"), &b"hello"[..])
    );
    assert_eq!(req.body.unwrap()["content"], "with file");

    let edit = EditMessage::new()
        .content("edited")
        .embed(CreateEmbed::new().title("T").description("D"));
    let edited = ch.edit_message(&http, sent.id, edit).await.unwrap();
    assert!(edited.edited_timestamp.is_some());
    let stored = fake.message(ch.get(), sent.id.get()).unwrap();
    assert_eq!(
        (stored.history[0].content.as_str(), stored.all_text()),
        ("with file", "edited\nT\nD".to_string())
    );

    let thumbs = ReactionType::Unicode("👍".to_string());
    http.create_reaction(ch, sent.id, &thumbs).await.unwrap();
    let reacted = http.get_message(ch, sent.id).await.unwrap();
    assert!(reacted.reactions[0].me);
    http.delete_reaction_me(ch, sent.id, &thumbs).await.unwrap();
    ch.broadcast_typing(&http).await.unwrap();

    let second = ch.say(&http, "two").await.unwrap();
    let third = ch.say(&http, "three").await.unwrap();
    let after = ch
        .messages(&http, GetMessages::new().after(sent.id).limit(10))
        .await
        .unwrap();
    let ids: Vec<MessageId> = after.iter().map(|m| m.id).collect();
    assert_eq!(ids, vec![third.id, second.id], "newest first, like Discord");

    let empty = ch
        .send_message(&http, CreateMessage::new())
        .await
        .expect_err("empty");
    assert_eq!(status_of(&empty), Some((400, 50006)));
    ch.delete_message(&http, second.id).await.unwrap();
    let gone = http.get_message(ch, second.id).await.expect_err("deleted");
    assert_eq!(status_of(&gone), Some((404, 10008)));

    http.set_application_id(info.id);
    let cmd = CreateCommand::new("remind").description("Set a reminder");
    let created = Command::set_global_commands(&http, vec![cmd])
        .await
        .unwrap();
    let listed = Command::get_global_commands(&http).await.unwrap();
    assert_eq!(
        (listed[0].id, listed[0].name.as_str()),
        (created[0].id, "remind")
    );

    fake.set_rate_limit("POST /channels/*/messages", 0.05, 1);
    let limited = ch.say(&http, "limited").await.expect_err("429");
    assert_eq!(status_of(&limited).map(|s| s.0), Some(429));
    assert_eq!(fake.rate_limited_count(), 1);
    ch.say(&http, "after limit").await.unwrap();

    let unknown = http
        .get_guild(GuildId::new(42))
        .await
        .expect_err("no such guild");
    assert_eq!(status_of(&unknown).map(|s| s.0), Some(404));
    assert!(
        unknown.to_string().contains("Unknown Guild"),
        "Discord's own answer: {unknown}"
    );

    let team = FakeDiscord::start(FakeConfig {
        team_owner: true,
        ..FakeConfig::default()
    })
    .await;
    let info = http_for(&team, &cfg.valid_token)
        .get_current_application_info()
        .await
        .unwrap();
    let owner_user_id = info.team.expect("team").owner_user_id;
    assert_eq!(owner_user_id.get(), cfg.owner_id);
}
