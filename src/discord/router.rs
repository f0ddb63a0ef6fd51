//! The one way in (issue 41 §2): every gateway event that carries something a person did — a
//! message, a slash command, a click, a reaction, typing — comes through [`Bot::route`], which
//! applies once, for all of them, the owner and door check ([`admit`]), the answer to anyone
//! refused, the span the handling runs under (`dm_turn`, `channel_turn`, `thread_turn`,
//! `interaction`) and the tracking that lets shutdown wait for it; then hands it to the part
//! that handles it (`dispatch`). The serenity [`Handler`] only forwards events here (and the lifecycle
//! ones to the bot), as twilight's template event handler does.

use std::sync::{Arc, OnceLock};

use serenity::{
    all::{
        ChannelId, CommandInteraction, ComponentInteraction, Context, EventHandler, GuildChannel,
        GuildId, Interaction, Message, Reaction, Ready, ResumedEvent, Role, TypingStartEvent,
        UserId,
    },
    async_trait,
};
use tracing::{Instrument, Span};

use super::{
    bot::Bot,
    commands::reply_ephemeral,
    doors::{Author, Door, Place, Refused, Way, admit},
};

/// What reaches the bot without a door: someone else's command or click.
const NOT_AUTHORIZED: &str = "not authorized";

/// Something a person did, as the router hands it on.
pub(crate) enum Input {
    /// A message in a DM or a server channel.
    Message(Message),
    /// A slash command.
    Command(CommandInteraction),
    /// A button click.
    Click(ComponentInteraction),
    /// A reaction added to a message.
    Reaction(Reaction),
    /// Someone started typing.
    Typing(TypingStartEvent),
}

impl Input {
    /// How it came in.
    fn way(&self) -> Way {
        match self {
            Input::Message(_) => Way::Message,
            Input::Command(command) => Way::Command {
                makes_home: command.data.name == "home",
            },
            Input::Click(_) => Way::Click,
            Input::Reaction(_) => Way::Reaction,
            Input::Typing(_) => Way::Typing,
        }
    }

    /// Who did it (`None`: not known, as a reaction's user may be) and where.
    fn origin(&self) -> Origin {
        match self {
            Input::Message(message) => message_origin(message),
            Input::Command(command) => (
                Some(command.user.id),
                command.user.bot,
                command.channel_id,
                command.guild_id,
            ),
            Input::Click(click) => (
                Some(click.user.id),
                click.user.bot,
                click.channel_id,
                click.guild_id,
            ),
            Input::Reaction(reaction) => (
                reaction.user_id,
                false,
                reaction.channel_id,
                reaction.guild_id,
            ),
            Input::Typing(typing) => (
                Some(typing.user_id),
                false,
                typing.channel_id,
                typing.guild_id,
            ),
        }
    }
}

/// Who did something (`None`: not known), whether they are a bot, the channel and the server.
type Origin = (Option<UserId>, bool, ChannelId, Option<GuildId>);

/// Where a message comes from.
fn message_origin(message: &Message) -> Origin {
    (
        Some(message.author.id),
        message.author.bot || message.webhook_id.is_some(),
        message.channel_id,
        message.guild_id,
    )
}

impl Bot {
    /// Whether `input` reaches the bot, and through which door.
    pub(crate) fn admit(&self, input: &Input) -> Result<Option<Door>, Refused> {
        self.admit_from(input.way(), input.origin())
    }

    /// The owner and door check of every way in. Nobody is the owner while the owner is
    /// unknown, and nothing new is taken once shutdown began.
    fn admit_from(&self, way: Way, origin: Origin) -> Result<Option<Door>, Refused> {
        let (user, by_bot, channel, guild) = origin;
        let author = match user {
            _ if by_bot => Author::Bot,
            Some(user) if self.is_accepting() && self.reach.owner.is_owner(user) => Author::Owner,
            _ => Author::Someone,
        };
        let place = match guild {
            None => Place::Dm(channel),
            Some(_) => Place::Server(channel),
        };
        admit(
            way,
            author,
            place,
            self.reach.places.home(),
            &self.reach.places.open_threads(),
        )
    }

    /// Routes one input: admitted (a message once only), it is handled under its span and
    /// tracked for shutdown; refused, its author is told what they are due.
    pub(crate) async fn route(self: &Arc<Self>, input: Input) {
        let door = match self.admit(&input) {
            Ok(door) => door,
            Err(refused) => return self.refuse(&input, refused).await,
        };
        if let Input::Message(message) = &input
            && !self.arrivals.first_sighting(message.id)
        {
            return;
        }
        let span = span_of(&input, door);
        let bot = Arc::clone(self);
        // Boxed: each way's handling is large, and the router's own future stays small.
        let handled = Box::pin(bot.handle(input, door)).instrument(span);
        self.reach.work.track_future(handled).await;
    }

    /// Hands an admitted input to the part that handles it.
    async fn handle(self: Arc<Self>, input: Input, door: Option<Door>) {
        match input {
            Input::Message(message) => self.take_message(message).await,
            Input::Command(command) => {
                // Issue 29: the CLI a command reaches starts beside its handling.
                let wake = self.conversations.wake_at(door);
                let outcome = tokio::join!(wake, self.run_command(&command)).1;
                if let Err(error) = outcome {
                    tracing::warn!(%error, "answering a command failed");
                }
            }
            Input::Click(click) => {
                let wake = self.conversations.wake_at(door);
                let outcome = tokio::join!(wake, self.click(&click)).1;
                if let Err(error) = outcome {
                    tracing::warn!(%error, "answering a click failed");
                }
            }
            Input::Reaction(reaction) => self.approvals.reaction(&reaction),
            Input::Typing(_) => self.conversations.wake_at(door).await,
        }
    }

    /// Tells the author of a refused input what they are due: an ephemeral answer to a
    /// command or click, nothing to the rest.
    async fn refuse(&self, input: &Input, refused: Refused) {
        if let (Some(user), ..) = input.origin() {
            tracing::debug!(%user, ?refused, "refused: nothing handles it, nothing wakes");
        }
        let text = match refused {
            Refused::Silently => return,
            Refused::NotAuthorized => NOT_AUTHORIZED.to_owned(),
            Refused::Elsewhere => self.answered_where(),
        };
        let answered = match input {
            Input::Command(command) => reply_ephemeral(&self.reach.http, command, &text).await,
            Input::Click(click) => self.reach.ephemeral(click, &text).await,
            _ => Ok(()),
        };
        if let Err(error) = answered {
            tracing::warn!(%error, "could not answer a refused interaction");
        }
    }

    /// Where the owner can talk to the bot, for a command run elsewhere (CHN-4).
    fn answered_where(&self) -> String {
        match self.reach.places.home() {
            Some(home) => format!(
                "I answer you in our DM and in <#{home}> only. Run `/home` here to make this \
                 channel my home instead."
            ),
            None => "I answer you in our DM only. Run `/home` here to talk with me in this \
                     channel too."
                .to_owned(),
        }
    }

    /// The span a message from `message`'s door is handled under.
    pub(crate) fn turn_span(&self, message: &Message) -> Span {
        let door = self.admit_from(Way::Message, message_origin(message));
        message_span(message, door.ok().flatten())
    }

    /// Whether `message` reaches the agent and was not handled by this process yet (a
    /// catch-up after a reconnect, the DMs held until the owner was known).
    pub(crate) fn accepts(&self, message: &Message) -> bool {
        self.admit_from(Way::Message, message_origin(message))
            .is_ok()
            && self.arrivals.first_sighting(message.id)
    }
}

/// The span a message through `door` is handled under: named after the door.
fn message_span(message: &Message, door: Option<Door>) -> Span {
    match door {
        Some(Door::ForkThread(_)) => tracing::info_span!("thread_turn", message = %message.id),
        Some(Door::HomeChannel) => tracing::info_span!("channel_turn", message = %message.id),
        Some(Door::Dm) | None => tracing::info_span!("dm_turn", message = %message.id),
    }
}

/// The span an input is handled under: a message's names its door; every interaction is one.
fn span_of(input: &Input, door: Option<Door>) -> Span {
    match input {
        Input::Message(message) => message_span(message, door),
        Input::Command(c) => tracing::info_span!("interaction", id = %c.id),
        Input::Click(c) => tracing::info_span!("interaction", id = %c.id),
        Input::Reaction(_) | Input::Typing(_) => Span::current(),
    }
}

/// The serenity event handler: forwards what people do to [`Bot::route`] and the gateway's
/// own events to the bot (bound once the client that owns the HTTP client exists; no event
/// arrives before that).
pub struct Handler {
    bot: Arc<OnceLock<Arc<Bot>>>,
}

impl Handler {
    /// A handler for the bot that will be put in `bot`.
    pub fn new(bot: Arc<OnceLock<Arc<Bot>>>) -> Self {
        Self { bot }
    }

    fn bot(&self) -> Option<Arc<Bot>> {
        self.bot.get().cloned()
    }
}

#[async_trait]
impl EventHandler for Handler {
    async fn ready(&self, ctx: Context, ready: Ready) {
        let Some(bot) = self.bot() else { return };
        bot.connected(&ctx, &ready).await;
    }

    async fn resume(&self, ctx: Context, _event: ResumedEvent) {
        let Some(bot) = self.bot() else { return };
        tracing::info!("gateway session resumed");
        bot.reconnected(ctx.shard_id).await;
    }

    async fn message(&self, _ctx: Context, message: Message) {
        let Some(bot) = self.bot() else { return };
        if bot.reach.owner.owner().is_none() && message.guild_id.is_none() && !message.author.bot {
            bot.arrivals.hold_early(message);
            return;
        }
        bot.route(Input::Message(message)).await;
    }

    async fn interaction_create(&self, _ctx: Context, interaction: Interaction) {
        let Some(bot) = self.bot() else { return };
        match interaction {
            Interaction::Command(command) => bot.route(Input::Command(command)).await,
            Interaction::Component(click) => bot.route(Input::Click(click)).await,
            _ => {}
        }
    }

    async fn reaction_add(&self, _ctx: Context, reaction: Reaction) {
        let Some(bot) = self.bot() else { return };
        bot.route(Input::Reaction(reaction)).await;
    }

    async fn typing_start(&self, _ctx: Context, event: TypingStartEvent) {
        let Some(bot) = self.bot() else { return };
        bot.route(Input::Typing(event)).await;
    }

    async fn channel_update(&self, _ctx: Context, _old: Option<GuildChannel>, new: GuildChannel) {
        let Some(bot) = self.bot() else { return };
        bot.home.recheck_readers(Some(new.id)).await;
    }

    async fn thread_update(&self, _ctx: Context, _old: Option<GuildChannel>, new: GuildChannel) {
        let Some(bot) = self.bot() else { return };
        if new.thread_metadata.is_some_and(|meta| meta.archived) {
            bot.conversations.fork_thread_archived(new.id).await;
        }
    }

    async fn guild_role_update(&self, _ctx: Context, _old: Option<Role>, _new: Role) {
        let Some(bot) = self.bot() else { return };
        bot.home.recheck_readers(None).await;
    }
}
