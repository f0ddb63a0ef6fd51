//! Slash commands (SLC): the set, registered on the first `READY`, usable in DMs and in
//! servers the bot shares with the owner, owner-only; and which part answers each (issue 41
//! §2). In a server they work in the home channel and its forks' threads only, but for
//! `/home`, which makes a channel it (CHN-4) — the router's doors say so. The conversation's
//! own commands (`/clear`, `/fork`, `/model`, …) are `conversations::commands`.

use serenity::{
    all::{
        Command, CommandInteraction, CommandOptionType, InstallationContext, InteractionContext,
        ResolvedValue,
    },
    builder::{
        CreateCommand, CreateCommandOption, CreateInteractionResponse,
        CreateInteractionResponseMessage,
    },
    http::Http,
};

use super::rate_limit::with_rate_limit_retries;
use crate::config::runtime::{ConfigKey, THINKING_PRESETS};

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
        command(
            "recall",
            "What was said, noted or done that answers a question",
        )
        .add_option(string_option(
            "words",
            "what to look for, and other words the answer may use",
        )),
        command(
            "forget",
            "Remove what holds all these words from my memory, for good",
        )
        .add_option(string_option("words", "the words the passages hold")),
    ]
}

/// Registers the commands globally; returns how many.
pub async fn register(http: &Http) -> Result<usize, serenity::Error> {
    Command::set_global_commands(http, definitions())
        .await
        .map(|commands| commands.len())
}

pub(crate) fn integer_option(command: &CommandInteraction, name: &str) -> Option<i64> {
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
