//! Proves the fake Discord works with the real serenity 0.12.5 client (no ollim
//! code): REST through `HttpBuilder::proxy`, gateway IDENTIFY/READY, RESUME with
//! replay, interactions, and serenity's fatal close-code handling.

mod support;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;
use serenity::all::{
    ButtonStyle, ChannelId, Command, CommandInteraction, ComponentInteraction, Context,
    CreateActionRow, CreateAttachment, CreateButton, CreateCommand, CreateEmbed,
    CreateInteractionResponse, CreateInteractionResponseFollowup, CreateInteractionResponseMessage,
    CreateMessage, EditInteractionResponse, EditMessage, EventHandler, GatewayIntents, GetMessages,
    GuildId, Interaction, Message, MessageId, Reaction, ReactionType, Ready, ShardManager, UserId,
};
use serenity::client::ClientBuilder;
use serenity::gateway::GatewayError;
use serenity::http::{Http, HttpBuilder, HttpError};
use serenity::model::event::{Event, GatewayEvent};
use tokio::task::JoinHandle;

use support::fake_discord::{FakeAttachment, FakeConfig, FakeDiscord, RecordedRequest};

const STOP_TIMEOUT: Duration = Duration::from_secs(5);

/// A tiny bot: echoes DMs, offers a button on "menu", answers `/ping`.
struct Echo {
    errors: Arc<Mutex<Vec<String>>>,
}

impl Echo {
    fn check<T, E: std::fmt::Debug>(&self, what: &str, result: Result<T, E>) {
        if let Err(err) = result {
            self.errors.lock().unwrap().push(format!("{what}: {err:?}"));
        }
    }

    async fn on_component(&self, ctx: &Context, c: ComponentInteraction) {
        let reply = CreateInteractionResponseMessage::new()
            .content(format!("clicked {}", c.data.custom_id))
            .components(vec![]);
        let sent = c
            .create_response(&ctx.http, CreateInteractionResponse::UpdateMessage(reply))
            .await;
        self.check("component response", sent);
    }

    async fn on_command(&self, ctx: &Context, c: CommandInteraction) {
        self.check("defer", c.defer(&ctx.http).await);
        let edit = EditInteractionResponse::new().content(format!("pong from /{}", c.data.name));
        self.check("edit_response", c.edit_response(&ctx.http, edit).await);
        let follow = CreateInteractionResponseFollowup::new().content("follow-up");
        self.check("followup", c.create_followup(&ctx.http, follow).await);
    }
}

#[serenity::async_trait]
impl EventHandler for Echo {
    async fn ready(&self, ctx: Context, _ready: Ready) {
        let ping = CreateCommand::new("ping").description("Ping the bot");
        self.check(
            "register",
            Command::set_global_commands(&ctx.http, vec![ping]).await,
        );
    }

    async fn message(&self, ctx: Context, msg: Message) {
        if msg.author.bot {
            return; // the fake, like Discord, also dispatches the bot's own DMs
        }
        if msg.content == "menu" {
            let button = CreateButton::new("ok")
                .label("OK")
                .style(ButtonStyle::Primary);
            let menu = CreateMessage::new()
                .content("pick one")
                .components(vec![CreateActionRow::Buttons(vec![button])]);
            self.check("menu", msg.channel_id.send_message(&ctx.http, menu).await);
            return;
        }
        let mut text = format!("echo: {}", msg.content);
        for a in &msg.attachments {
            match a.download().await {
                Ok(bytes) => text += &format!(" [{} {}B]", a.filename, bytes.len()),
                Err(err) => self.check("download", Err::<(), _>(err)),
            }
        }
        if let Some(r) = &msg.referenced_message {
            text += &format!(" (re: {})", r.content);
        }
        self.check("say", msg.channel_id.say(&ctx.http, text).await);
    }

    async fn reaction_add(&self, ctx: Context, reaction: Reaction) {
        let text = format!("reacted {}", reaction.emoji);
        self.check("say", reaction.channel_id.say(&ctx.http, text).await);
    }

    async fn interaction_create(&self, ctx: Context, interaction: Interaction) {
        match interaction {
            Interaction::Component(c) => self.on_component(&ctx, c).await,
            Interaction::Command(c) => self.on_command(&ctx, c).await,
            _ => {}
        }
    }
}

struct Running {
    shard_manager: Arc<ShardManager>,
    task: JoinHandle<serenity::Result<()>>,
    errors: Arc<Mutex<Vec<String>>>,
}

fn http_for(fake: &FakeDiscord, token: &str) -> Http {
    // Without `ratelimiter_disabled(true)` serenity 0.12.5 ignores `.proxy()`.
    HttpBuilder::new(token)
        .proxy(fake.base_url())
        .ratelimiter_disabled(true)
        .build()
}

async fn start_bot(fake: &FakeDiscord, token: &str) -> Running {
    let intents = GatewayIntents::non_privileged()
        | GatewayIntents::MESSAGE_CONTENT
        | GatewayIntents::DIRECT_MESSAGES;
    let errors = Arc::new(Mutex::new(Vec::new()));
    let handler = Echo {
        errors: errors.clone(),
    };
    let mut client = ClientBuilder::new_with_http(http_for(fake, token), intents)
        .event_handler(handler)
        .await
        .expect("build serenity client");
    let shard_manager = client.shard_manager.clone();
    let task = tokio::spawn(async move { client.start().await });
    Running {
        shard_manager,
        task,
        errors,
    }
}

impl Running {
    async fn stop(self) {
        self.shard_manager.shutdown_all().await;
        let result = tokio::time::timeout(STOP_TIMEOUT, self.task)
            .await
            .expect("client stops")
            .expect("client task");
        result.expect("client.start() ends cleanly");
        let errors = self.errors.lock().unwrap().clone();
        assert!(errors.is_empty(), "handler errors: {errors:?}");
    }

    /// `client.start()`'s result, for clients that must fail on their own.
    async fn outcome(self) -> serenity::Result<()> {
        let joined = tokio::time::timeout(STOP_TIMEOUT, self.task).await;
        joined.expect("client ends").expect("client task")
    }
}

fn status_of(err: &serenity::Error) -> Option<(u16, isize)> {
    match err {
        serenity::Error::Http(HttpError::UnsuccessfulRequest(r)) => {
            Some((r.status_code.as_u16(), r.error.code))
        }
        _ => None,
    }
}

/// Every frame the fake dispatched must deserialize into a known serenity event.
fn assert_dispatches_parse(fake: &FakeDiscord) {
    for frame in fake.dispatch_log() {
        match serde_json::from_value::<GatewayEvent>(frame.clone()) {
            Ok(GatewayEvent::Dispatch(_, Event::Unknown(_))) => panic!("unknown event: {frame}"),
            Ok(GatewayEvent::Dispatch(..)) => {}
            other => panic!("bad dispatch {frame}: {other:?}"),
        }
    }
}

fn count(fake: &FakeDiscord, ch: u64, text: &str) -> usize {
    let messages = fake.channel_messages(ch);
    messages.iter().filter(|m| m.content == text).count()
}

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
    assert!(
        fake.unknown_requests().is_empty(),
        "{:?}",
        fake.unknown_requests()
    );
    assert_dispatches_parse(&fake);
    bot.stop().await;
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
    assert!(
        fake.unknown_requests().is_empty(),
        "{:?}",
        fake.unknown_requests()
    );
    assert_dispatches_parse(&fake);
    bot.stop().await;
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
        .expect_err("no guilds");
    assert_eq!(status_of(&unknown).map(|s| s.0), Some(404));
    assert_eq!(fake.unknown_requests()[0].path, "/guilds/42");

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
