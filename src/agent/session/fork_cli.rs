//! The open fork's CLI, up or asleep (issue 29, REST-1…REST-3): with nothing to do for the idle
//! time it is stopped and only its session id kept; the fork's next turn (or the owner typing
//! in its place) starts it again on that session, with the fork's own model, thinking,
//! permission mode and tools, so the fork goes on where it was.

use std::sync::Arc;

use super::{DISCONNECT_GRACE, MainSession, fork::ActiveFork, fork_registry::HeldFork};
use crate::front_end::{ForkId, FrontEnd};
use crate::{
    agent::{AgentError, client::main_client::MainClientParts},
    claude::{ClaudeClient, SessionId, StartUp},
};

/// The open fork's CLI.
pub(super) enum ForkCli {
    /// Running (boxed: a client is large, a kept id small).
    Up(Box<ClaudeClient>),
    /// Stopped while idle; the next turn resumes this session.
    Asleep(SessionId),
}

impl ForkCli {
    /// The fork's session id: the running CLI's (none before its first turn) or the kept one.
    pub(super) fn session_id(&self) -> Option<&SessionId> {
        match self {
            ForkCli::Up(client) => client.session_id(),
            ForkCli::Asleep(id) => Some(id),
        }
    }

    /// The running CLI.
    pub(super) fn client(&self) -> Option<&ClaudeClient> {
        match self {
            ForkCli::Up(client) => Some(client),
            ForkCli::Asleep(_) => None,
        }
    }

    /// The running CLI, to run a turn on.
    pub(super) fn client_mut(&mut self) -> Option<&mut ClaudeClient> {
        match self {
            ForkCli::Up(client) => Some(client),
            ForkCli::Asleep(_) => None,
        }
    }

    /// Whether it was running and its process is gone (not asleep: that was on purpose).
    pub(super) fn is_lost(&self) -> bool {
        self.client()
            .is_some_and(|client| client.handle().is_closed())
    }

    /// The running CLI, taken out (a Save makes it main's), or `None` if asleep.
    pub(super) fn into_client(self) -> Option<ClaudeClient> {
        match self {
            ForkCli::Up(client) => Some(*client),
            ForkCli::Asleep(_) => None,
        }
    }

    /// Stops the running CLI, if any.
    pub(super) async fn disconnect(self) {
        if let ForkCli::Up(client) = self {
            client.disconnect(DISCONNECT_GRACE).await;
        }
    }
}

impl MainSession {
    /// Starts the held fork's CLI if it is asleep, resuming its session with the fork's own
    /// settings and tools (REST-3). `start_up`: for a turn, or ahead of one (REST-2).
    pub(super) async fn ensure_fork_connected(
        &self,
        held: &mut HeldFork,
        start_up: StartUp,
    ) -> Result<(), AgentError> {
        let entry = Arc::clone(&held.entry);
        let Some(fork) = held.get_mut() else {
            return Ok(());
        };
        fork.touch(self.services.clock.instant());
        let ForkCli::Asleep(resume) = &fork.cli else {
            return Ok(());
        };
        let on = (entry.id, &entry.front_end);
        let client = self
            .resume_fork_cli(fork, on, resume.clone(), start_up)
            .await?;
        entry.live.lock().set_client(Some(&client));
        fork.cli = ForkCli::Up(Box::new(client));
        Ok(())
    }

    /// Starts a CLI on the fork's session `resume`, with the fork's own settings and tools,
    /// its output going to `front_end`.
    pub(super) async fn resume_fork_cli(
        &self,
        fork: &ActiveFork,
        (id, front_end): (ForkId, &Arc<dyn FrontEnd>),
        resume: SessionId,
        start_up: StartUp,
    ) -> Result<ClaudeClient, AgentError> {
        let parts = MainClientParts {
            services: &self.services,
            front_end,
            permissions: &fork.permissions,
            turn: &fork.turn,
            settings: &fork.settings,
            fork_control: &self.fork_control,
            fork: Some(id),
            chain: &fork.chain,
            scope: Arc::clone(&fork.scope),
            fork_session: false,
            tools: &fork.tools,
            start_up,
        };
        parts.connect(Some(resume)).await
    }

    /// Stops the held fork's CLI when it has had nothing to do for `limit` and its session id
    /// is known (a fork's branch gets its id at its first turn). Returns whether it was stopped.
    pub(super) async fn sleep_fork_if_idle(
        &self,
        held: &mut HeldFork,
        limit: std::time::Duration,
    ) -> bool {
        let entry = Arc::clone(&held.entry);
        let Some(fork) = held.get_mut() else {
            return false;
        };
        if fork.idle_for(self.services.clock.instant()) < limit {
            return false;
        }
        let Some(id) = fork.cli.session_id().cloned() else {
            return false;
        };
        if fork.cli.client().is_none() {
            return false;
        }
        let running = std::mem::replace(&mut fork.cli, ForkCli::Asleep(id));
        entry.live.lock().set_client(None);
        entry.rest_stop.during(running.disconnect()).await;
        tracing::info!(
            idle_secs = limit.as_secs(),
            fork = entry.id.0,
            "the fork's CLI is asleep until it is needed"
        );
        true
    }
}
