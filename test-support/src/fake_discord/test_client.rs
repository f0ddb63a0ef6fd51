//! Test harness: a real serenity 0.12.5 client against the fake whose handler forwards
//! every event it receives, so tests assert what serenity actually parsed.

use std::sync::Arc;
use std::time::Duration;

use serenity::all::{
    ChannelId, Context, EventHandler, GatewayIntents, Guild, GuildChannel, GuildId, Interaction,
    Message, MessageId, MessageUpdateEvent, Reaction, Ready, Role, ShardManager, TypingStartEvent,
};
use serenity::client::ClientBuilder;
use serenity::http::Http;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::{FakeConfig, FakeDiscord};
use crate::echo_bot::{assert_dispatches_parse, http_for};

const WAIT: Duration = Duration::from_secs(5);

/// An event as serenity's handler got it.
#[derive(Clone, Debug)]
pub(super) enum Seen {
    Ready(Ready),
    GuildCreate(Guild),
    Message(Message),
    MessageUpdate(MessageUpdateEvent),
    MessageDelete(MessageId, Option<GuildId>),
    ChannelCreate(GuildChannel),
    ChannelUpdate(GuildChannel),
    ThreadCreate(GuildChannel),
    ThreadUpdate(GuildChannel),
    RoleUpdate(Role),
    Typing(TypingStartEvent),
    Reaction(Reaction),
    Interaction(Interaction),
}

struct Forward(mpsc::UnboundedSender<Seen>);

impl Forward {
    fn send(&self, seen: Seen) {
        let _ = self.0.send(seen);
    }
}

#[serenity::async_trait]
impl EventHandler for Forward {
    async fn ready(&self, _: Context, ready: Ready) {
        self.send(Seen::Ready(ready));
    }
    async fn guild_create(&self, _: Context, guild: Guild, _: Option<bool>) {
        self.send(Seen::GuildCreate(guild));
    }
    async fn message(&self, _: Context, message: Message) {
        self.send(Seen::Message(message));
    }
    async fn message_update(
        &self,
        _: Context,
        _: Option<Message>,
        _: Option<Message>,
        event: MessageUpdateEvent,
    ) {
        self.send(Seen::MessageUpdate(event));
    }
    async fn message_delete(
        &self,
        _: Context,
        _: ChannelId,
        id: MessageId,
        guild: Option<GuildId>,
    ) {
        self.send(Seen::MessageDelete(id, guild));
    }
    async fn channel_create(&self, _: Context, channel: GuildChannel) {
        self.send(Seen::ChannelCreate(channel));
    }
    async fn channel_update(&self, _: Context, _: Option<GuildChannel>, new: GuildChannel) {
        self.send(Seen::ChannelUpdate(new));
    }
    async fn thread_create(&self, _: Context, thread: GuildChannel) {
        self.send(Seen::ThreadCreate(thread));
    }
    async fn thread_update(&self, _: Context, _: Option<GuildChannel>, new: GuildChannel) {
        self.send(Seen::ThreadUpdate(new));
    }
    async fn guild_role_update(&self, _: Context, _: Option<Role>, new: Role) {
        self.send(Seen::RoleUpdate(new));
    }
    async fn typing_start(&self, _: Context, event: TypingStartEvent) {
        self.send(Seen::Typing(event));
    }
    async fn reaction_add(&self, _: Context, reaction: Reaction) {
        self.send(Seen::Reaction(reaction));
    }
    async fn interaction_create(&self, _: Context, interaction: Interaction) {
        self.send(Seen::Interaction(interaction));
    }
}

/// `async fn $name(&mut self) -> $ty`: takes the oldest untaken `Seen::$variant`.
macro_rules! taker {
    ($name:ident, $variant:ident, $ty:ty, $what:literal) => {
        #[doc = concat!("Takes the oldest untaken `", $what, "` event.")]
        pub(super) async fn $name(&mut self) -> $ty {
            self.next($what, |s| match s {
                Seen::$variant(x) => Some(x.clone()),
                _ => None,
            })
            .await
        }
    };
}

/// A running serenity client whose events the test takes.
pub(super) struct TestClient {
    pub http: Arc<Http>,
    /// The READY the handler got.
    pub ready: Option<Ready>,
    /// Events received but not taken yet, oldest first.
    backlog: Vec<Seen>,
    rx: mpsc::UnboundedReceiver<Seen>,
    shard_manager: Arc<ShardManager>,
    task: JoinHandle<serenity::Result<()>>,
}

/// A fake with the default configuration.
pub(super) async fn fake() -> FakeDiscord {
    FakeDiscord::start(FakeConfig::default()).await
}

/// A member of the servers the tests set up.
pub(super) const ALICE: u64 = 1_000_000_000_000_000_777;

/// A fake with a server `home` that Alice belongs to and its `general` text channel, and a
/// client connected with [`usual_intents`]: `(fake, server, channel, client)`.
pub(super) async fn home_with_alice() -> (FakeDiscord, u64, u64, TestClient) {
    let fake = fake().await;
    let guild = fake.add_guild("home");
    fake.add_member(guild, ALICE, "alice", &[]);
    let ch = fake.add_text_channel(guild, "general", vec![]);
    let bot = TestClient::start(&fake, usual_intents()).await;
    (fake, guild, ch, bot)
}

/// What the bot under test asks for: `non_privileged() | MESSAGE_CONTENT`.
pub(super) fn usual_intents() -> GatewayIntents {
    GatewayIntents::non_privileged() | GatewayIntents::MESSAGE_CONTENT
}

impl TestClient {
    /// Connects a client with `intents` and waits for its READY.
    pub(super) async fn start(fake: &FakeDiscord, intents: GatewayIntents) -> TestClient {
        let (tx, rx) = mpsc::unbounded_channel();
        let http = http_for(fake, &fake.config().valid_token);
        let mut client = ClientBuilder::new_with_http(http, intents)
            .event_handler(Forward(tx))
            .await
            .expect("build serenity client");
        let http = client.http.clone();
        let shard_manager = client.shard_manager.clone();
        let task = tokio::spawn(async move { client.start().await });
        let mut started = TestClient {
            http,
            ready: None,
            backlog: Vec::new(),
            rx,
            shard_manager,
            task,
        };
        let ready = started.next("READY", |s| match s {
            Seen::Ready(r) => Some(r.clone()),
            _ => None,
        });
        started.ready = Some(ready.await);
        started
    }

    /// The oldest event not yet taken for which `pick` yields `Some` (it is taken; the
    /// others stay for later calls: serenity runs each handler call as its own task, so
    /// events may reach the handler out of order). Panics after 5 s.
    pub(super) async fn next<T>(
        &mut self,
        what: &str,
        mut pick: impl FnMut(&Seen) -> Option<T>,
    ) -> T {
        if let Some(found) = self.take(&mut pick) {
            return found;
        }
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            match tokio::time::timeout_at(deadline, self.rx.recv()).await {
                Ok(Some(seen)) => {
                    if let Some(found) = pick(&seen) {
                        return found;
                    }
                    self.backlog.push(seen);
                }
                Ok(None) => panic!("serenity client ended while waiting for {what}"),
                Err(_) => {
                    let kinds: Vec<String> = self
                        .backlog
                        .iter()
                        .map(|s| format!("{s:?}").chars().take(80).collect())
                        .collect();
                    panic!("serenity handler got no {what} within {WAIT:?}; untaken: {kinds:#?}")
                }
            }
        }
    }

    fn take<T>(&mut self, pick: &mut impl FnMut(&Seen) -> Option<T>) -> Option<T> {
        let (i, found) = self
            .backlog
            .iter()
            .enumerate()
            .find_map(|(i, s)| pick(s).map(|f| (i, f)))?;
        self.backlog.remove(i);
        Some(found)
    }

    /// Asserts that no event `pick` accepts is (or arrives within `within`) untaken.
    pub(super) async fn none(
        &mut self,
        what: &str,
        within: Duration,
        mut pick: impl FnMut(&Seen) -> bool,
    ) {
        let deadline = tokio::time::Instant::now() + within;
        while let Ok(Some(seen)) = tokio::time::timeout_at(deadline, self.rx.recv()).await {
            self.backlog.push(seen);
        }
        let found = self.backlog.iter().find(|s| pick(s));
        assert!(found.is_none(), "unexpected {what}: {found:?}");
    }

    taker!(message, Message, Message, "message");
    taker!(
        message_update,
        MessageUpdate,
        MessageUpdateEvent,
        "message_update"
    );
    taker!(guild_create, GuildCreate, Guild, "guild_create");
    taker!(
        channel_create,
        ChannelCreate,
        GuildChannel,
        "channel_create"
    );
    taker!(
        channel_update,
        ChannelUpdate,
        GuildChannel,
        "channel_update"
    );
    taker!(thread_create, ThreadCreate, GuildChannel, "thread_create");
    taker!(thread_update, ThreadUpdate, GuildChannel, "thread_update");
    taker!(role_update, RoleUpdate, Role, "guild_role_update");
    taker!(typing, Typing, TypingStartEvent, "typing_start");
    taker!(reaction, Reaction, Reaction, "reaction_add");
    taker!(interaction, Interaction, Interaction, "interaction_create");

    /// Checks that every dispatch parses and no request was unknown, then stops.
    pub(super) async fn stop(self, fake: &FakeDiscord) {
        assert_dispatches_parse(fake);
        let unknown = fake.unknown_requests();
        assert!(unknown.is_empty(), "unknown requests: {unknown:?}");
        self.shard_manager.shutdown_all().await;
        let ended = tokio::time::timeout(WAIT, self.task).await;
        let result = ended.expect("client stops").expect("client task");
        result.expect("client.start() ends cleanly");
    }
}
