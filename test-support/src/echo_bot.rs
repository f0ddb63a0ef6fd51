//! A tiny serenity bot (no ollim code) for proving the fake Discord against the real
//! serenity 0.12.5 client: it echoes DMs, offers a button on "menu" and answers `/ping`.

use std::fmt::Write as _;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serenity::all::{
    ButtonStyle, Command, CommandInteraction, ComponentInteraction, Context, CreateActionRow,
    CreateButton, CreateCommand, CreateInteractionResponse, CreateInteractionResponseFollowup,
    CreateInteractionResponseMessage, CreateMessage, EditInteractionResponse, EventHandler,
    GatewayIntents, Interaction, Message, Reaction, Ready, ShardManager,
};
use serenity::client::ClientBuilder;
use serenity::http::{Http, HttpBuilder, HttpError};
use serenity::model::event::{Event, GatewayEvent};
use tokio::task::JoinHandle;

use super::fake_discord::FakeDiscord;

const STOP_TIMEOUT: Duration = Duration::from_secs(5);

/// A tiny bot: echoes DMs, offers a button on "menu", answers `/ping`.
pub struct Echo {
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
                Ok(bytes) => {
                    let _ = write!(text, " [{} {}B]", a.filename, bytes.len());
                }
                Err(err) => self.check("download", Err::<(), _>(err)),
            }
        }
        if let Some(r) = &msg.referenced_message {
            let _ = write!(text, " (re: {})", r.content);
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

/// A running serenity client with the [`Echo`] handler.
pub struct Running {
    shard_manager: Arc<ShardManager>,
    task: JoinHandle<serenity::Result<()>>,
    errors: Arc<Mutex<Vec<String>>>,
}

/// A serenity REST client pointed at `fake`.
pub fn http_for(fake: &FakeDiscord, token: &str) -> Http {
    // Without `ratelimiter_disabled(true)` serenity 0.12.5 ignores `.proxy()`.
    HttpBuilder::new(token)
        .proxy(fake.base_url())
        .ratelimiter_disabled(true)
        .build()
}

/// Starts a serenity client with the [`Echo`] handler against `fake`.
pub async fn start_bot(fake: &FakeDiscord, token: &str) -> Running {
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
    /// Checks that the fake saw only known requests and that every dispatch parses, then
    /// stops the client.
    pub async fn stop_clean(self, fake: &FakeDiscord) {
        assert!(
            fake.unknown_requests().is_empty(),
            "{:?}",
            fake.unknown_requests()
        );
        assert_dispatches_parse(fake);
        self.stop().await;
    }

    pub async fn stop(self) {
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
    pub async fn outcome(self) -> serenity::Result<()> {
        let joined = tokio::time::timeout(STOP_TIMEOUT, self.task).await;
        joined.expect("client ends").expect("client task")
    }
}

/// The HTTP status and Discord error code of a failed request.
pub fn status_of(err: &serenity::Error) -> Option<(u16, isize)> {
    match err {
        serenity::Error::Http(HttpError::UnsuccessfulRequest(r)) => {
            Some((r.status_code.as_u16(), r.error.code))
        }
        _ => None,
    }
}

/// Every frame the fake dispatched must deserialize into a known serenity event.
pub fn assert_dispatches_parse(fake: &FakeDiscord) {
    for frame in fake.dispatch_log() {
        match serde_json::from_value::<GatewayEvent>(frame.clone()) {
            Ok(GatewayEvent::Dispatch(_, Event::Unknown(_))) => panic!("unknown event: {frame}"),
            Ok(GatewayEvent::Dispatch(..)) => {}
            other => panic!("bad dispatch {frame}: {other:?}"),
        }
    }
}

/// How many messages in channel `ch` have exactly `text`.
pub fn count(fake: &FakeDiscord, ch: u64, text: &str) -> usize {
    let messages = fake.channel_messages(ch);
    messages.iter().filter(|m| m.content == text).count()
}
