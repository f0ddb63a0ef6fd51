//! Slash commands (SLC): registered on the first `READY` as a user-installed app usable in
//! DMs, owner-only, each answering with the texts the spec gives.

use serenity::{
    all::{
        Command, CommandInteraction, CommandOptionType, InstallationContext, InteractionContext,
        ResolvedValue,
    },
    builder::{
        CreateCommand, CreateCommandOption, CreateInteractionResponse,
        CreateInteractionResponseFollowup, CreateInteractionResponseMessage,
        EditInteractionResponse,
    },
    http::Http,
};

use super::bot::Bot;
use crate::{
    agent::ForkCommandError,
    claude::{PermissionMode, Thinking},
    config::runtime::{ConfigKey, RuntimeConfig, THINKING_PRESETS, thinking_choice_name},
    state::history::SessionEventKind,
};

fn command(name: &str, description: &str) -> CreateCommand {
    CreateCommand::new(name)
        .description(description)
        .integration_types(vec![InstallationContext::User, InstallationContext::Guild])
        .contexts(vec![
            InteractionContext::BotDm,
            InteractionContext::PrivateChannel,
        ])
}

fn string_option(name: &str, description: &str) -> CreateCommandOption {
    CreateCommandOption::new(CommandOptionType::String, name, description).required(false)
}

/// The command set (SLC-1…10, 12, 15).
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
        command("version", "Show the bot's version"),
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

fn option<'a>(command: &'a CommandInteraction, name: &str) -> Option<&'a str> {
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
    /// Runs an owner's slash command.
    pub(crate) async fn run_command(
        &self,
        command: &CommandInteraction,
    ) -> Result<(), serenity::Error> {
        match command.data.name.as_str() {
            "compact" | "cost" => return self.run_slow_command(command).await,
            "fork" => return self.fork_command(command).await,
            "interrupt" => {
                self.session.interrupt();
                command.defer_ephemeral(&self.http).await?;
                return command.delete_response(&self.http).await;
            }
            _ => {}
        }
        let text = match command.data.name.as_str() {
            "clear" => match self.session.clear().await {
                Ok(false) => "conversation cleared. fresh start.".to_owned(),
                Ok(true) => "fork discarded, conversation cleared.".to_owned(),
                Err(error) => format!("could not clear: {error}"),
            },
            "model" | "thinking" if self.session.in_fork() => "exit fork first.".to_owned(),
            "model" => self.model_command(option(command, "name")).await,
            "thinking" => self.thinking_command(option(command, "mode")).await,
            "ping-budget" => self.ping_budget_command(
                integer_option(command, "capacity"),
                integer_option(command, "refill_rate"),
            ),
            "permissions" => self.permissions_command(option(command, "mode")).await,
            "config" => {
                self.config_command(option(command, "key"), option(command, "value"))
                    .await
            }
            "version" => format!("ollim-bot v{}", env!("CARGO_PKG_VERSION")),
            "restart" => {
                if let Some(id) = self.services.sessions.load()
                    && let Err(error) =
                        self.services
                            .sessions
                            .log(&id, SessionEventKind::Restarting, None)
                {
                    tracing::warn!(%error, "could not log the restart");
                }
                self.request_restart();
                return command
                    .create_response(
                        &self.http,
                        CreateInteractionResponse::Message(
                            CreateInteractionResponseMessage::new().content("restarting..."),
                        ),
                    )
                    .await;
            }
            other => format!("unknown command /{other}"),
        };
        reply_ephemeral(&self.http, command, text).await
    }

    async fn run_slow_command(&self, command: &CommandInteraction) -> Result<(), serenity::Error> {
        command.defer(&self.http).await?;
        let text = match command.data.name.as_str() {
            "compact" => self
                .session
                .compact(option(command, "instructions"))
                .await
                .unwrap_or_else(|error| error.to_string()),
            _ => self
                .session
                .cost()
                .await
                .unwrap_or_else(|error| error.to_string()),
        };
        command
            .edit_response(&self.http, EditInteractionResponse::new().content(text))
            .await
            .map(drop)
    }

    /// `/fork [topic]` (IFK-2): the deferred reply is removed; the entry embed and the fork's
    /// first reply follow in the DM.
    async fn fork_command(&self, command: &CommandInteraction) -> Result<(), serenity::Error> {
        if self.session.in_fork() {
            return reply_ephemeral(&self.http, command, "already in a fork.").await;
        }
        command.defer_ephemeral(&self.http).await?;
        let topic = option(command, "topic")
            .map(str::trim)
            .filter(|topic| !topic.is_empty())
            .map(str::to_owned);
        command.delete_response(&self.http).await?;
        if let Err(error) = self.session.open_fork_command(topic).await {
            tracing::warn!(%error, "/fork failed");
            let text = match error {
                ForkCommandError::AlreadyInFork => "already in a fork.".to_owned(),
                other => format!("could not open the fork: {other}"),
            };
            let follow_up = CreateInteractionResponseFollowup::new()
                .content(text)
                .ephemeral(true);
            command.create_followup(&self.http, follow_up).await?;
        }
        Ok(())
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

    async fn model_command(&self, name: Option<&str>) -> String {
        let Some(name) = name else {
            let model = self.session.settings().await.model;
            return format!("model: {}.", model.as_deref().unwrap_or("default"));
        };
        match self.session.set_model(Some(name.to_owned())).await {
            Ok(()) => format!("switched to {name}."),
            Err(error) => format!("could not switch the model: {error}"),
        }
    }

    async fn thinking_command(&self, mode: Option<&str>) -> String {
        let Some(mode) = mode else {
            let thinking = self.session.settings().await.thinking;
            return format!("thinking: {}.", thinking_choice_name(thinking));
        };
        let thinking = THINKING_PRESETS
            .iter()
            .find(|(name, _)| *name == mode)
            .map(|(_, thinking)| *thinking)
            .or_else(|| Thinking::parse(mode));
        let Some(thinking) = thinking else {
            return "thinking must be off, adaptive or a token budget.".to_owned();
        };
        match self.session.set_thinking(thinking).await {
            Ok(()) => format!("thinking: {}.", thinking_choice_name(thinking)),
            Err(error) => format!("could not change thinking: {error}"),
        }
    }

    async fn permissions_command(&self, mode: Option<&str>) -> String {
        let Some(raw) = mode else {
            let mode = self.session.settings().await.permission_mode;
            return format!("permissions: {}.", mode.as_str());
        };
        let Some(mode) = PermissionMode::parse(raw).filter(|m| *m != PermissionMode::Plan) else {
            return "permissions must be dontAsk, default, acceptEdits or bypassPermissions."
                .to_owned();
        };
        match self.session.set_permission_mode(mode).await {
            Ok(()) => format!("permissions: {}.", mode.as_str()),
            Err(error) => format!("could not change permissions: {error}"),
        }
    }

    async fn config_command(&self, key: Option<&str>, value: Option<&str>) -> String {
        let path = self.services.data_dir.config_file();
        let mut config = RuntimeConfig::clone(&self.services.runtime.current());
        let Some(raw_key) = key else {
            return config.render_all();
        };
        let Some(key) = ConfigKey::from_name(raw_key) else {
            return format!("unknown key: {raw_key}");
        };
        let Some(value) = value else {
            return config.render_line(key);
        };
        if let Err(reason) = config.set(key, value) {
            return format!("{}: {reason}", key.display_name());
        }
        if let Err(error) = config.save(&path) {
            return format!("could not save config.json: {error}");
        }
        if let Err(error) = self.apply_config(&config, key).await {
            tracing::warn!(%error, "could not apply the new setting live");
        }
        config.render_line(key)
    }

    /// Applies a changed setting now where it has an immediate effect (CFG-4).
    async fn apply_config(
        &self,
        config: &RuntimeConfig,
        key: ConfigKey,
    ) -> Result<(), crate::agent::AgentError> {
        match key {
            ConfigKey::ModelMain => self.session.set_model(config.model_main.clone()).await,
            ConfigKey::ThinkingMain => self.session.set_thinking(config.thinking_main).await,
            ConfigKey::PermissionMode => {
                self.session
                    .set_permission_mode(config.permission_mode)
                    .await
            }
            _ => Ok(()),
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
    command
        .create_response(http, CreateInteractionResponse::Message(message))
        .await
}
