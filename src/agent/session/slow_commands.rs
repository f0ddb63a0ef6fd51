//! The session commands that run a CLI turn (SES-13, AGT-15, USE-3): `/compact` and `/cost`,
//! each for the conversation it was given in, under that conversation's lock.

use super::{Held, MainSession, StartFor, Target};
use crate::{
    agent::{
        AgentError,
        compaction::{self, stats_line},
    },
    claude::{StartUp, UserContent},
    front_end::Branch,
    usage::report::ledger_report,
};

impl MainSession {
    /// Compacts the conversation (`/compact [instructions]`) and returns the stats line (SES-13).
    pub async fn compact(&self, instructions: Option<&str>) -> Result<String, AgentError> {
        self.compact_on(instructions, self.branch_for(Target::MainDoor))
            .await
    }

    /// `/compact` given in `branch`: main's conversation only (a fork's is refused).
    pub(super) async fn compact_on(
        &self,
        instructions: Option<&str>,
        branch: Branch,
    ) -> Result<String, AgentError> {
        if branch != Branch::Main {
            return Err(AgentError::Compaction("exit fork first.".to_owned()));
        }
        let mut state = self.state.lock().await;
        self.ensure_connected(&mut state, StartFor::Command).await?;
        let command = match instructions.map(str::trim).filter(|i| !i.is_empty()) {
            Some(instructions) => format!("/compact {instructions}"),
            None => "/compact".to_owned(),
        };
        let content = UserContent::Text(command);
        let turn = state.turn.clone();
        let outcome = match state.client.as_mut() {
            Some(client) => self.run_once(client, &turn, &content, Branch::Main).await,
            None => Err(crate::claude::ClaudeError::Closed),
        };
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
            crate::state::stored_time_in(self.services.clock.now(), self.services.config.timezone),
        );
        Ok(stats_line(turns, age, seen.pre_tokens))
    }

    /// `/cost`: the CLI's line for the current session (AGT-15), then the ledger's today, 7
    /// and 30 days (USE-3).
    pub async fn cost(&self) -> Result<String, AgentError> {
        self.cost_on(self.branch_for(Target::MainDoor)).await
    }

    /// `/cost` given in `branch`: that conversation's session line, then the ledger.
    pub(super) async fn cost_on(&self, branch: Branch) -> Result<String, AgentError> {
        let session = self.session_cost(branch).await?;
        self.services.usage.flush().await;
        let spend = ledger_report(
            &self.services.data_dir.usage_dir(),
            self.services.clock.now(),
            self.services.config.timezone,
        );
        Ok(format!("{session}\n\n{spend}"))
    }

    /// Passes `/cost` to the CLI and returns its text (AGT-15).
    async fn session_cost(&self, branch: Branch) -> Result<String, AgentError> {
        let content = UserContent::Text("/cost".to_owned());
        let target = match branch {
            Branch::Main => Target::MainDoor,
            Branch::Fork(id) => Target::Fork(id),
        };
        let report = match self.hold(target).await {
            Held::Main(mut state) => {
                self.ensure_connected(&mut state, StartFor::Command).await?;
                let turn = state.turn.clone();
                let outcome = match state.client.as_mut() {
                    Some(client) => self.run_once(client, &turn, &content, Branch::Main).await,
                    None => Err(crate::claude::ClaudeError::Closed),
                };
                self.finish_turn(&mut state, outcome).await?
            }
            Held::Fork(mut held) => {
                self.ensure_fork_connected(&mut held, StartUp::TurnFirst)
                    .await?;
                let id = held.id();
                let fork = held.get_mut().ok_or(crate::claude::ClaudeError::Closed)?;
                let turn = fork.turn.clone();
                let client = fork
                    .cli
                    .client_mut()
                    .ok_or(crate::claude::ClaudeError::Closed)?;
                self.run_once(client, &turn, &content, Branch::Fork(id))
                    .await?
            }
        };
        // The command's own output is the last block: a resumed session replays earlier
        // commands' output first (issue 24 §8).
        let own = report
            .command_output
            .into_iter()
            .rev()
            .find(|part| !part.trim().is_empty());
        let text = own
            .into_iter()
            .chain(Some(report.text).filter(|text| !text.is_empty()))
            .collect::<Vec<_>>()
            .join("\n")
            .trim()
            .to_owned();
        Ok(if text.is_empty() {
            "done.".to_owned()
        } else {
            text
        })
    }
}
