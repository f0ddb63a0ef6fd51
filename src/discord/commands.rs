//! Slash commands (SLC): registered on the first `READY`, usable in DMs and in servers the bot
//! shares with the owner, owner-only, each answering with the texts the spec gives. In a
//! server they work in the home channel only, but for `/home`, which makes a channel it
//! (CHN-4). The commands with a flow of their own are beneath it: `setup` (and the
//! greeting's Get started button), `self_update` (`/update` and the restart), [`google_auth`]
//! (and the pasted redirect URL), `home`.

pub mod google_auth;
mod home;
mod quiet;
mod self_update;
pub(super) mod setup;

use serenity::{
    all::{
        Command, CommandInteraction, CommandOptionType, InstallationContext, InteractionContext,
        ResolvedValue,
    },
    builder::{
        CreateAttachment, CreateCommand, CreateCommandOption, CreateInteractionResponse,
        CreateInteractionResponseFollowup, CreateInteractionResponseMessage,
        EditInteractionResponse,
    },
    http::Http,
};

use super::{bot::Bot, rate_limit::with_rate_limit_retries};

/// The file name of `/cost`'s chart (USE-5).
pub const SPEND_CHART: &str = "spend.png";
/// The days `/cost`'s chart covers.
const CHART_DAYS: u32 = 30;
/// How long a quick command may take before its answer is deferred (Discord drops an
/// interaction not answered within 3 s).
const ANSWER_WITHIN: std::time::Duration = std::time::Duration::from_secs(2);
use crate::{
    agent::{
        ForkCommandError, NoRoom,
        command::{self as session_command, CommandArgs},
    },
    config::runtime::{ConfigKey, THINKING_PRESETS},
    domain::fork_control::MAX_FORKS,
    front_end::{ReplyPlace, TurnPlace},
    usage::chart::ledger_chart,
};

fn command(name: &str, description: &str) -> CreateCommand {
    CreateCommand::new(name)
        .description(description)
        .integration_types(vec![InstallationContext::User, InstallationContext::Guild])
        .contexts(vec![
            InteractionContext::BotDm,
            InteractionContext::PrivateChannel,
            InteractionContext::Guild,
        ])
}

fn string_option(name: &str, description: &str) -> CreateCommandOption {
    CreateCommandOption::new(CommandOptionType::String, name, description).required(false)
}

/// The command set (SLC-1…13, 15).
pub fn definitions() -> Vec<CreateCommand> {
    let mut model = string_option("name", "opus, sonnet or haiku");
    for name in ["opus", "sonnet", "haiku"] {
        model = model.add_string_choice(name, name);
    }
    let mut thinking = string_option("mode", "thinking mode");
    for (name, _) in THINKING_PRESETS {
        thinking = thinking.add_string_choice(*name, *name);
    }
    let mut permissions = string_option("mode", "tool permission mode");
    for mode in ["dontAsk", "default", "acceptEdits", "bypassPermissions"] {
        permissions = permissions.add_string_choice(mode, mode);
    }
    let mut key = string_option("key", "setting to show or change");
    for (name, value) in ConfigKey::choices() {
        key = key.add_string_choice(name, value);
    }
    vec![
        command("clear", "Forget the conversation and start fresh"),
        command("fork", "Branch the conversation into a fork")
            .add_option(string_option("topic", "what the fork is about")),
        command("ping-budget", "Show or set the background ping budget")
            .add_option(
                CreateCommandOption::new(
                    CommandOptionType::Integer,
                    "capacity",
                    "most pings saved up",
                )
                .min_int_value(1)
                .required(false),
            )
            .add_option(
                CreateCommandOption::new(
                    CommandOptionType::Integer,
                    "refill_rate",
                    "minutes per refilled ping",
                )
                .min_int_value(1)
                .required(false),
            ),
        command("compact", "Compact the conversation")
            .add_option(string_option("instructions", "what to keep")),
        command("cost", "What this session cost so far"),
        command("model", "Show or switch the model").add_option(model),
        command("thinking", "Show or set extended thinking").add_option(thinking),
        command("interrupt", "Stop the reply in progress"),
        command("permissions", "Show or set tool permissions").add_option(permissions),
        command("config", "Show or change settings")
            .add_option(key)
            .add_option(string_option("value", "new value")),
        command("restart", "Restart the bot (the conversation carries on)"),
        command("update", "Check for a new release and install it now"),
        command("google-auth", "Connect Google Tasks, Calendar and Gmail"),
        command("version", "Show the bot's version"),
        command(
            "setup",
            "Set me up: names, what I know about you, a morning check-in, Google",
        ),
        command("home", "Talk with me in this server channel too (or: off)").add_option(
            string_option("action", "here (default) or off")
                .add_string_choice("here", "here")
                .add_string_choice("off", "off"),
        ),
        command("quiet", "Quiet hours: background pings wait for one digest").add_option(
            string_option(
                "when",
                "22:00-08:00 every day, 2h from now, end, off; busy (on/off): calendar events",
            ),
        ),
        command(
            "focus",
            "A focus session: I keep you company and hold pings",
        )
        .add_option(string_option("minutes", "how long (default 25)"))
        .add_option(string_option("task", "what you'll work on")),
        command("nags", "Reminders still open until you answer them"),
    ]
}

/// Registers the commands globally; returns how many.
pub async fn register(http: &Http) -> Result<usize, serenity::Error> {
    Command::set_global_commands(http, definitions())
        .await
        .map(|commands| commands.len())
}

fn integer_option(command: &CommandInteraction, name: &str) -> Option<i64> {
    command
        .data
        .options()
        .into_iter()
        .find_map(|option| match option.value {
            ResolvedValue::Integer(value) if option.name == name => Some(value),
            _ => None,
        })
}

pub(crate) fn option<'a>(command: &'a CommandInteraction, name: &str) -> Option<&'a str> {
    command
        .data
        .options()
        .into_iter()
        .find_map(|option| match option.value {
            ResolvedValue::String(value) if option.name == name => Some(value),
            _ => None,
        })
}

impl Bot {
    /// Runs an owner's slash command: the session commands through the shared parser and
    /// executor ([`session_command`]), the front-end ones here.
    pub(crate) async fn run_command(
        &self,
        command: &CommandInteraction,
    ) -> Result<(), serenity::Error> {
        match command.data.name.as_str() {
            "fork" => return self.fork_command(command).await,
            "interrupt" => {
                self.session
                    .interrupt_in(self.addressed_in(command.channel_id));
                with_rate_limit_retries(|| command.defer_ephemeral(&self.http)).await?;
                return with_rate_limit_retries(|| command.delete_response(&self.http)).await;
            }
            "ping-budget" => {
                let text = self.ping_budget_command(
                    integer_option(command, "capacity"),
                    integer_option(command, "refill_rate"),
                );
                return reply_ephemeral(&self.http, command, text).await;
            }
            "restart" => return self.restart_command(command).await,
            "update" => return self.update_command(command).await,
            "google-auth" => return self.google_auth_command(command).await,
            "setup" => return self.setup_command(command).await,
            "home" => return self.home_command(command).await,
            "quiet" => return self.quiet_command(command).await,
            "focus" => return self.focus_command(command).await,
            "nags" => return self.nags_command(command).await,
            _ => {}
        }
        let options = command.data.options();
        let args = CommandArgs::named(options.iter().filter_map(|option| match option.value {
            ResolvedValue::String(value) => Some((option.name, value)),
            _ => None,
        }));
        let parsed = session_command::parse(&command.data.name, &args);
        // For the conversation it was given in: in the channel beside a fork's thread, main's.
        let branch = self.addressed_in(command.channel_id);
        match parsed {
            Ok(parsed) if parsed.is_slow() => {
                let charted = matches!(parsed, session_command::Command::Cost);
                with_rate_limit_retries(|| command.defer(&self.http)).await?;
                let reply = self.session.run_command_in(parsed, branch).await;
                let mut edit = EditInteractionResponse::new().content(reply.text());
                if charted && let Some(png) = self.spend_chart().await {
                    edit = edit.new_attachment(CreateAttachment::bytes(png, SPEND_CHART));
                }
                with_rate_limit_retries(|| command.edit_response(&self.http, edit.clone()))
                    .await
                    .map(drop)
            }
            Ok(parsed) => {
                // Quick, but it may wait for its conversation's turn: past Discord's answer
                // time it is deferred and the answer follows.
                let mut reply = Box::pin(self.session.run_command_in(parsed, branch));
                if let Ok(reply) = tokio::time::timeout(ANSWER_WITHIN, &mut reply).await {
                    return reply_ephemeral(&self.http, command, reply.text()).await;
                }
                with_rate_limit_retries(|| command.defer_ephemeral(&self.http)).await?;
                let edit = EditInteractionResponse::new().content(reply.await.text());
                with_rate_limit_retries(|| command.edit_response(&self.http, edit.clone()))
                    .await
                    .map(drop)
            }
            Err(error) => reply_ephemeral(&self.http, command, error.to_string()).await,
        }
    }

    /// `/cost`'s chart of the last 30 days (USE-5), drawn off the async threads; `None`
    /// when nothing was spent or it can't be drawn (the text still answers).
    async fn spend_chart(&self) -> Option<Vec<u8>> {
        let dir = self.services.data_dir.usage_dir();
        let tz = self.services.config.timezone;
        let now = self.services.clock.now();
        let drawn =
            tokio::task::spawn_blocking(move || ledger_chart(&dir, now, tz, CHART_DAYS)).await;
        match drawn {
            Ok(Ok(png)) => png,
            Ok(Err(error)) => {
                tracing::warn!(%error, "could not draw the spend chart");
                None
            }
            Err(error) => {
                tracing::warn!(%error, "the spend chart's drawing stopped");
                None
            }
        }
    }

    /// `/restart` (SLC-12): logs `restarting`, answers and asks the daemon to re-exec.
    async fn restart_command(&self, command: &CommandInteraction) -> Result<(), serenity::Error> {
        self.log_restarting();
        self.request_restart();
        let response = CreateInteractionResponse::Message(
            CreateInteractionResponseMessage::new().content("restarting..."),
        );
        with_rate_limit_retries(|| command.create_response(&self.http, response.clone())).await
    }

    /// `/fork [topic]` (IFK-2): the deferred reply is removed; the entry embed and the fork's
    /// first reply follow in the DM.
    async fn fork_command(&self, command: &CommandInteraction) -> Result<(), serenity::Error> {
        // Beside an open fork only in a thread of its own, which only the home channel (or a
        // fork's thread there) gives.
        let here = command.channel_id;
        let threadless = Some(here) != self.places.home() && self.places.fork_in(here).is_none();
        let room = match self.session.fork_room() {
            Ok(()) if threadless && self.session.in_fork() => Err(NoRoom::NeedsThread),
            other => other,
        };
        if let Err(no_room) = room {
            let text = self.no_room(no_room);
            return reply_ephemeral(&self.http, command, &text).await;
        }
        with_rate_limit_retries(|| command.defer_ephemeral(&self.http)).await?;
        let topic = option(command, "topic")
            .map(str::trim)
            .filter(|topic| !topic.is_empty())
            .map(str::to_owned);
        with_rate_limit_retries(|| command.delete_response(&self.http)).await?;
        let here = TurnPlace::AskedIn(ReplyPlace(command.channel_id.get()));
        if let Err(error) = self.session.open_fork_command(topic, here).await {
            tracing::warn!(%error, "/fork failed");
            let text = match error {
                ForkCommandError::NoRoom(no_room) => self.no_room(no_room),
                other => format!("could not open the fork: {other}"),
            };
            let follow_up = CreateInteractionResponseFollowup::new()
                .content(text)
                .ephemeral(true);
            with_rate_limit_retries(|| command.create_followup(&self.http, follow_up.clone()))
                .await?;
        }
        Ok(())
    }

    /// Why `/fork` opened nothing (issue 41 §1), with where the open forks are.
    fn no_room(&self, no_room: NoRoom) -> String {
        let threads = self.places.open_threads();
        let listed = threads
            .iter()
            .map(|thread| format!("<#{thread}>"))
            .collect::<Vec<_>>()
            .join(", ");
        match no_room {
            NoRoom::Full => format!(
                "{MAX_FORKS} forks are open already ({listed}): end one there (Save, Report or \
                 Exit, or archive its thread) to open another."
            ),
            NoRoom::NeedsThread if !threads.is_empty() => format!(
                "a fork is open in {listed}; another beside it needs a thread of its own: run \
                 `/fork` in the home channel."
            ),
            other => other.owner_text().to_owned(),
        }
    }

    /// `/ping-budget [capacity] [refill_rate]` (PNG-8, PNG-9).
    fn ping_budget_command(&self, capacity: Option<i64>, refill_rate: Option<i64>) -> String {
        let budget = &self.services.ping_budget;
        if capacity.is_none() && refill_rate.is_none() {
            return match budget.snapshot() {
                Ok(snapshot) => format!("ping budget: {}", snapshot.extended_status()),
                Err(error) => format!("could not read the ping budget: {error}"),
            };
        }
        let positive = |value: Option<i64>| match value {
            None => Ok(None),
            Some(v) if v > 0 => u32::try_from(v).map(Some).map_err(|_| ()),
            Some(_) => Err(()),
        };
        let (Ok(capacity), Ok(refill_rate)) = (positive(capacity), positive(refill_rate)) else {
            return "capacity and refill_rate must be positive whole numbers.".to_owned();
        };
        match budget.configure(capacity, refill_rate) {
            Ok(snapshot) => format!("ping budget updated: {}.", snapshot.compact_status()),
            Err(error) => format!("could not update the ping budget: {error}"),
        }
    }
}

/// An ephemeral answer to a slash command.
pub(crate) async fn reply_ephemeral(
    http: &Http,
    command: &CommandInteraction,
    text: impl Into<String>,
) -> Result<(), serenity::Error> {
    let message = CreateInteractionResponseMessage::new()
        .content(text)
        .ephemeral(true);
    let response = CreateInteractionResponse::Message(message);
    with_rate_limit_retries(|| command.create_response(http, response.clone())).await
}
