//! The main session's commands: `/compact`, `/cost`, `/clear`, and live changes of model,
//! thinking and permission mode.

use super::{DISCONNECT_GRACE, MainSession, cli_permission_mode};
use crate::{
    agent::{
        AgentError,
        compaction::{self, stats_line},
    },
    claude::{PermissionMode, Thinking, UserContent},
    state::now_in,
};

impl MainSession {
    /// Compacts the conversation (`/compact [instructions]`) and returns the stats line (SES-13).
    pub async fn compact(&self, instructions: Option<&str>) -> Result<String, AgentError> {
        let mut state = self.state.lock().await;
        if state.fork.is_some() {
            return Err(AgentError::Compaction("exit fork first.".to_owned()));
        }
        self.ensure_connected(&mut state, None).await?;
        let command = match instructions.map(str::trim).filter(|i| !i.is_empty()) {
            Some(instructions) => format!("/compact {instructions}"),
            None => "/compact".to_owned(),
        };
        let outcome = self.run_once(&mut state, &UserContent::Text(command)).await;
        let report = self.finish_turn(&mut state, outcome).await?;
        let Some(seen) = report.compaction else {
            let why = report.command_output.join("\n");
            let why = if why.is_empty() {
                report.result.error_summary()
            } else {
                why
            };
            return Err(AgentError::Compaction(why));
        };
        let turns = Some(state.turns_since_compaction);
        state.turns_since_compaction = 0;
        let history = self.services.sessions.history();
        let age = compaction::session_age(
            history.last_created_at(),
            now_in(self.services.config.timezone),
        );
        Ok(stats_line(turns, age, seen.pre_tokens))
    }

    /// Passes `/cost` to the CLI and returns its text (AGT-15).
    pub async fn cost(&self) -> Result<String, AgentError> {
        let mut state = self.state.lock().await;
        if state.fork.is_none() {
            self.ensure_connected(&mut state, None).await?;
        }
        let outcome = self
            .run_once(&mut state, &UserContent::Text("/cost".to_owned()))
            .await;
        let report = self.finish_turn(&mut state, outcome).await?;
        let mut parts = report.command_output;
        if !report.text.is_empty() {
            parts.push(report.text);
        }
        let text = parts.join("\n").trim().to_owned();
        Ok(if text.is_empty() {
            "done.".to_owned()
        } else {
            text
        })
    }

    /// Forgets the conversation (`/clear`): session allowances reset, an open fork discarded
    /// with its exit embed, `cleared` logged, the CLI stopped, `sessions.json` deleted; the
    /// next message starts fresh (SES-5, SES-11, SES-18, IFK-15). Returns whether a fork was
    /// discarded.
    pub async fn clear(&self) -> Result<bool, AgentError> {
        self.permissions.reset();
        self.interrupt();
        let mut state = self.state.lock().await;
        let discarded = self.discard_fork(&mut state).await;
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
        self.discard_fork(&mut state).await;
        state.settings.thinking = thinking;
        if let Some(client) = self.take_client(&mut state) {
            client.disconnect(DISCONNECT_GRACE).await;
        }
        self.ensure_connected(&mut state, None).await
    }

    /// Changes the permission mode (`dontAsk` is the bot's own; the CLI then runs `default`).
    /// Inside a fork only the fork's client changes; leaving the fork restores main's mode
    /// (PRM-7, IFK-9).
    pub async fn set_permission_mode(&self, mode: PermissionMode) -> Result<(), AgentError> {
        self.permissions
            .set_dont_ask(mode == PermissionMode::DontAsk);
        let mut state = self.state.lock().await;
        if let Some(fork) = &state.fork {
            fork.client
                .handle()
                .set_permission_mode(cli_permission_mode(mode))
                .await?;
            return Ok(());
        }
        state.settings.permission_mode = mode;
        if let Some(client) = &state.client {
            client
                .handle()
                .set_permission_mode(cli_permission_mode(mode))
                .await?;
        }
        Ok(())
    }
}
