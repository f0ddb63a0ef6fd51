//! The main session's commands: `/clear` and live changes of model, thinking and permission
//! mode (`/compact` and `/cost` are in `slow_commands`); [`MainSession::run_command`] answers a
//! parsed [`Command`] the same way for Discord and the terminal.

use super::{
    DISCONNECT_GRACE, MainSession, StartFor, Target, cli_permission_mode, fork_cli::ForkCli,
    fork_registry::HeldFork,
};
use crate::front_end::Branch;
use crate::{
    agent::{
        AgentError,
        client::tool_offer::offer_changes,
        command::{Command, CommandReply, ConfigRequest},
    },
    claude::{PermissionMode, StartUp, Thinking, find_model},
    config::runtime::{ConfigKey, ConfigUpdateError, RuntimeConfig, thinking_choice_name},
    domain::model_name::check_model,
};

/// The refusal of `/model` and `/thinking` while a fork is open (SLC-5, SLC-6).
const EXIT_FORK_FIRST: &str = "exit fork first.";

impl MainSession {
    /// Runs a session command given at a door of main (the fork without a place of its own if
    /// one is open, else main) and answers it in the Discord wording (SLC-1, 2, 3, 5, 6, 8,
    /// 10, 15).
    pub async fn run_command(&self, command: Command) -> CommandReply {
        self.run_command_in(command, self.branch_for(Target::MainDoor))
            .await
    }

    /// Runs a session command for `branch`, the conversation it was given in (issue 41 §1: in
    /// the channel beside a fork's thread, main's). `/compact` and `/cost` run a CLI turn under
    /// that conversation's lock.
    pub async fn run_command_in(&self, command: Command, branch: Branch) -> CommandReply {
        match command {
            Command::Clear => match self.clear().await {
                Ok(0) => CommandReply::Done("conversation cleared. fresh start.".to_owned()),
                Ok(1) => CommandReply::Done("fork discarded, conversation cleared.".to_owned()),
                Ok(n) => CommandReply::Done(format!("{n} forks discarded, conversation cleared.")),
                Err(error) => CommandReply::Failed(format!("could not clear: {error}")),
            },
            Command::Compact { instructions } => {
                replied(self.compact_on(instructions.as_deref(), branch).await)
            }
            Command::Cost => replied(self.cost_on(branch).await),
            Command::Model(_) | Command::Thinking(_) if branch != Branch::Main => {
                CommandReply::Failed(EXIT_FORK_FIRST.to_owned())
            }
            Command::Model(None) => match self.settings().await.model {
                Some(model) => CommandReply::Done(format!("model: {model}.")),
                None => {
                    CommandReply::Done(format!("model: default ({}).", self.default_model().await))
                }
            },
            Command::Model(Some(name)) => {
                // Checked where it enters, not at the next turn (issue 24 §3); an alias the
                // running CLI lists counts even when our own list doesn't know it yet.
                let model = if name.trim().eq_ignore_ascii_case("default") {
                    None
                } else {
                    match check_model(&name) {
                        Ok(name) => Some(name),
                        Err(error) => match self.cli_alias(&name).await {
                            Some(alias) => Some(alias),
                            None => return CommandReply::Failed(format!("{error}.")),
                        },
                    }
                };
                let said = model
                    .clone()
                    .unwrap_or_else(|| "the default model".to_owned());
                match self.set_model(model).await {
                    Ok(()) => CommandReply::Done(format!("switched to {said}.")),
                    Err(error) => {
                        CommandReply::Failed(format!("could not switch the model: {error}"))
                    }
                }
            }
            Command::Thinking(None) => {
                let thinking = self.settings().await.thinking;
                CommandReply::Done(format!("thinking: {}.", thinking_choice_name(thinking)))
            }
            Command::Thinking(Some(thinking)) => match self.set_thinking(thinking).await {
                Ok(()) => CommandReply::Done(format!(
                    "thinking: {}.{}",
                    thinking_choice_name(thinking),
                    self.thinking_caveat(thinking).await
                )),
                Err(error) => CommandReply::Failed(format!("could not change thinking: {error}")),
            },
            Command::Permissions(None) => {
                let mode = self.permission_mode_of(branch).await;
                CommandReply::Done(format!("permissions: {}.", mode.as_str()))
            }
            Command::Permissions(Some(mode)) => match self.permission_mode_on(mode, branch).await {
                Ok(()) => CommandReply::Done(format!("permissions: {}.", mode.as_str())),
                Err(error) => {
                    CommandReply::Failed(format!("could not change permissions: {error}"))
                }
            },
            Command::Config(request) => self.config_command(request).await,
            Command::Version => CommandReply::Done(crate::update::running_version().await.reply()),
        }
    }

    /// `/config` (SLC-10): shows, or validates, saves and applies (CFG-2, CFG-4).
    async fn config_command(&self, request: ConfigRequest) -> CommandReply {
        let runtime = &self.services.runtime;
        let (key, value) = match request {
            ConfigRequest::ShowAll => return CommandReply::Done(runtime.current().render_all()),
            ConfigRequest::Show(key) => {
                return CommandReply::Done(runtime.current().render_line(key));
            }
            ConfigRequest::Set(key, value) => (key, value),
        };
        let config = match runtime.update(key, &value) {
            Ok(config) => config,
            Err(ConfigUpdateError::Invalid { key, reason }) => {
                return CommandReply::Failed(format!("{}: {reason}", key.display_name()));
            }
            Err(error @ ConfigUpdateError::Save(_)) => {
                return CommandReply::Failed(error.to_string());
            }
        };
        if let Err(error) = self.apply_config(&config, key).await {
            tracing::warn!(%error, "could not apply the new setting live");
        }
        let caveat = match key {
            ConfigKey::ThinkingMain => self.thinking_caveat(config.thinking_main).await,
            _ => String::new(),
        };
        CommandReply::Done(format!("{}{caveat}", config.render_line(key)))
    }

    /// `name` as an alias the running CLI lists (its `initialize` answer), if it is one.
    /// What `default` stands for: the model the CLI resolves it to when its CLI is up and
    /// says, else who decides.
    async fn default_model(&self) -> String {
        let state = self.state.lock().await;
        let models = state
            .client
            .as_ref()
            .map(crate::claude::ClaudeClient::models)
            .unwrap_or_default();
        match find_model(&models, None).and_then(|model| model.resolved.clone()) {
            Some(resolved) => format!("{resolved}, Claude Code's pick for your account"),
            None => "Claude Code's pick for your account".to_owned(),
        }
    }

    async fn cli_alias(&self, name: &str) -> Option<String> {
        let state = self.state.lock().await;
        let models = state.client.as_ref()?.models();
        let model = find_model(&models, Some(name.trim()))?;
        Some(model.value.clone())
    }

    /// What to add when `thinking` is off but main's model can't turn thinking off (CLI
    /// 2.1.332's models report `supportsThinkingOff: false`): the CLI then thinks adaptively
    /// anyway, and the owner should know rather than believe it is off.
    async fn thinking_caveat(&self, thinking: Thinking) -> String {
        if thinking != Thinking::Off {
            return String::new();
        }
        let state = self.state.lock().await;
        let Some(client) = &state.client else {
            return String::new();
        };
        let models = client.models();
        match find_model(&models, state.settings.model.as_deref()) {
            Some(model) if !model.thinking_off => {
                let name = model.resolved.as_deref().unwrap_or(&model.display_name);
                format!(" ({name} can't turn thinking off: it still thinks when a task needs it.)")
            }
            _ => String::new(),
        }
    }

    /// Applies a changed setting now where it has an immediate effect (CFG-4).
    async fn apply_config(&self, config: &RuntimeConfig, key: ConfigKey) -> Result<(), AgentError> {
        match key {
            ConfigKey::ModelMain => self.set_model(config.model_main.clone()).await,
            ConfigKey::ThinkingMain => self.set_thinking(config.thinking_main).await,
            ConfigKey::PermissionMode => self.set_permission_mode(config.permission_mode).await,
            ConfigKey::ModelFork => self.set_fork_model(config.model_fork.clone()).await,
            _ => Ok(()),
        }
    }

    /// `model.fork` (CFG-4): every open fork switches now, live when its CLI runs, else when
    /// it wakes; `default` means main's model. A fork in the middle of a turn switches after
    /// it.
    async fn set_fork_model(&self, model: Option<String>) -> Result<(), AgentError> {
        let model = match model {
            Some(model) => Some(model),
            None => self.state.lock().await.settings.model.clone(),
        };
        for entry in self.forks.all() {
            let mut held = entry.lock().await;
            let Some(fork) = held.get_mut() else {
                continue;
            };
            fork.settings.model.clone_from(&model);
            if let Some(client) = fork.cli.client() {
                client.handle().set_model(model.as_deref()).await?;
            }
        }
        Ok(())
    }

    /// Forgets the conversation (`/clear`): session allowances reset, an open fork discarded
    /// with its exit embed, `cleared` logged, the CLI stopped, `sessions.json` deleted; the
    /// next message starts fresh (SES-5, SES-11, SES-18, IFK-15). Returns how many forks were
    /// discarded.
    pub async fn clear(&self) -> Result<usize, AgentError> {
        self.interrupt();
        let mut state = self.state.lock().await;
        state.permissions.reset();
        let discarded = self.discard_forks(&mut state, true).await;
        let client = self.take_client(&mut state);
        self.services.sessions.clear()?;
        if let Some(client) = client {
            client.disconnect(DISCONNECT_GRACE).await;
        }
        Ok(discarded)
    }

    /// Switches the model live, without reconnecting (not persisted).
    pub async fn set_model(&self, model: Option<String>) -> Result<(), AgentError> {
        let mut state = self.state.lock().await;
        state.settings.model.clone_from(&model);
        if let Some(client) = &state.client {
            client.handle().set_model(model.as_deref()).await?;
        }
        Ok(())
    }

    /// Changes the thinking mode; the CLI restarts with it (resuming the same session).
    /// An open fork is discarded first (IFK-21).
    pub async fn set_thinking(&self, thinking: Thinking) -> Result<(), AgentError> {
        let mut state = self.state.lock().await;
        // A fork in the conversation's own place ends (IFK-21); those in threads of their own
        // go on beside main.
        self.discard_forks(&mut state, false).await;
        state.settings.thinking = thinking;
        if let Some(client) = self.take_client(&mut state) {
            client.disconnect(DISCONNECT_GRACE).await;
        }
        self.ensure_connected(&mut state, StartFor::Command).await
    }

    /// Changes the permission mode (`dontAsk` is the bot's own; the CLI then runs `default`).
    /// Inside a fork only the fork's client changes; leaving the fork restores main's mode
    /// (PRM-7, IFK-9).
    /// A switch into or out of `dontAsk` also restarts the client (resuming the same session),
    /// so it is offered what the new mode permits (issue 17): main's at the next turn, an open
    /// fork's at once.
    pub async fn set_permission_mode(&self, mode: PermissionMode) -> Result<(), AgentError> {
        self.permission_mode_on(mode, self.branch_for(Target::MainDoor))
            .await
    }

    /// [`Self::set_permission_mode`] given in `branch`: that fork's when given in one, else
    /// main's.
    async fn permission_mode_on(
        &self,
        mode: PermissionMode,
        branch: Branch,
    ) -> Result<(), AgentError> {
        let dont_ask = mode == PermissionMode::DontAsk;
        // A fork's takes its lock only: main's turns go on meanwhile.
        if let Branch::Fork(id) = branch
            && let Some(entry) = self.forks.get(id)
        {
            let mut held = entry.lock().await;
            if let Some(fork) = held.get_mut() {
                let was_dont_ask = fork.permissions.dont_ask();
                fork.permissions.set_dont_ask(dont_ask);
                if offer_changes(was_dont_ask, dont_ask) {
                    return self.reoffer_fork(&mut held, mode).await;
                }
                // Kept with the fork, so a sleeping fork wakes in it (REST-3).
                fork.settings.permission_mode = mode;
                if let Some(client) = fork.cli.client() {
                    client
                        .handle()
                        .set_permission_mode(cli_permission_mode(mode))
                        .await?;
                }
                return Ok(());
            }
        }
        let mut state = self.state.lock().await;
        state.settings.permission_mode = mode;
        let was_dont_ask = state.permissions.dont_ask();
        state.permissions.set_dont_ask(dont_ask);
        if offer_changes(was_dont_ask, dont_ask)
            && let Some(client) = self.take_client(&mut state)
        {
            client.disconnect(DISCONNECT_GRACE).await;
            return Ok(());
        }
        if let Some(client) = &state.client {
            client
                .handle()
                .set_permission_mode(cli_permission_mode(mode))
                .await?;
        }
        Ok(())
    }
}

impl MainSession {
    /// The permission mode of `branch`: an open fork's own, else main's.
    async fn permission_mode_of(&self, branch: Branch) -> PermissionMode {
        if let Branch::Fork(id) = branch
            && let Some(entry) = self.forks.get(id)
            && let Some(fork) = entry.lock().await.get()
        {
            return fork.settings.permission_mode;
        }
        self.settings().await.permission_mode
    }
}

/// A slow command's outcome as a reply: its text, or the error's.
fn replied(outcome: Result<String, AgentError>) -> CommandReply {
    match outcome {
        Ok(text) => CommandReply::Done(text),
        Err(error) => CommandReply::Failed(error.to_string()),
    }
}

impl MainSession {
    /// Restarts the open fork's client in `mode`, resuming the fork's own session, so it is
    /// offered what the new mode permits (issue 17, PRM-7: only the fork changes). Without a
    /// session id yet, only the running client's mode changes.
    pub(super) async fn reoffer_fork(
        &self,
        held: &mut HeldFork,
        mode: PermissionMode,
    ) -> Result<(), AgentError> {
        let entry = std::sync::Arc::clone(&held.entry);
        let Some(fork) = held.get_mut() else {
            return Ok(());
        };
        fork.settings.permission_mode = mode;
        let Some(resume) = fork.cli.session_id().cloned() else {
            let cli_mode = super::cli_permission_mode(mode);
            let Some(client) = fork.cli.client() else {
                return Ok(());
            };
            return Ok(client.handle().set_permission_mode(cli_mode).await?);
        };
        if fork.cli.client().is_none() {
            // Asleep: it wakes in the new mode, offered what that mode permits (REST-3).
            return Ok(());
        }
        let client = self
            .resume_fork_cli(
                fork,
                (entry.id, &entry.front_end),
                resume,
                StartUp::TurnFirst,
            )
            .await?;
        entry.live.lock().set_client(Some(&client));
        let old = std::mem::replace(&mut fork.cli, ForkCli::Up(Box::new(client)));
        old.disconnect().await;
        Ok(())
    }
}
