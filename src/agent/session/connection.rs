//! The main session's CLI connection: started lazily, resumed from `sessions.json`, replaced
//! when it died (SES-1, SES-2, SES-18), and the handle interrupts go through.

use crate::front_end::Branch;
use std::{sync::Arc, time::Duration};

use super::{DISCONNECT_GRACE, LiveClient, LiveSide, MainSession, MainState, Phase};
use crate::{
    agent::{
        AgentError,
        client::{
            main_client::{ClientTools, MainClientParts},
            tool_offer::offer_is_stale,
        },
        compaction,
    },
    claude::{ClaudeClient, ClaudeError, StartUp},
    front_end::{TurnEvent, TurnSink},
};

/// What the conversation's CLI is started for.
#[derive(Clone, Copy)]
pub(super) enum StartFor<'a> {
    /// A turn; its sink hears when the saved conversation could not be found.
    Turn(&'a TurnSink),
    /// A command (`/compact`, `/cost`, a setting) or the start-up connect.
    Command,
    /// A message the owner is about to send (REST-2).
    Ahead,
}

impl MainSession {
    pub(super) fn take_client(&self, state: &mut MainState) -> Option<ClaudeClient> {
        self.set_live(Branch::Main, None);
        state.client.take()
    }

    pub(super) async fn ensure_connected(
        &self,
        state: &mut MainState,
        start: StartFor<'_>,
    ) -> Result<(), AgentError> {
        self.touch();
        let (sink, start_up) = match start {
            StartFor::Turn(sink) => (Some(sink), StartUp::TurnFirst),
            StartFor::Command => (None, StartUp::TurnFirst),
            StartFor::Ahead => (None, StartUp::WorkFirst),
        };
        if state
            .client
            .as_ref()
            .is_some_and(|c| !c.handle().is_closed())
        {
            if !offer_is_stale(
                state.offered.as_deref(),
                &state.permissions,
                &state.rules.current(),
            ) {
                return Ok(());
            }
            tracing::info!("the tool policy grew; restarting the main client to offer it");
            if let Some(client) = self.take_client(state) {
                client.disconnect(DISCONNECT_GRACE).await;
            }
        }
        if let Some(dead) = self.take_client(state) {
            dead.disconnect(Duration::ZERO).await;
        }
        let resume = self.services.sessions.current()?;
        let resume_id = resume.clone();
        state.turns_since_compaction = resume
            .as_ref()
            .and_then(|id| {
                let path = self
                    .services
                    .sandbox
                    .homes()
                    .transcript(id.as_str())
                    .ok()??;
                compaction::turns_since_last_compaction(&path)
            })
            .unwrap_or(0);
        let parts = MainClientParts {
            services: &self.services,
            front_end: &self.front_end,
            permissions: &state.permissions,
            turn: &state.turn,
            settings: &state.settings,
            fork_control: &self.fork_control,
            fork: None,
            chain: &state.chain,
            scope: Arc::clone(&self.main_scope),
            fork_session: false,
            tools: &ClientTools::Main(Arc::clone(&state.rules)),
            start_up,
        };
        let (client, offered) = match parts.connect_offering(resume).await {
            Err(AgentError::Claude(ClaudeError::SessionNotFound { session_id })) => {
                tracing::warn!(
                    session_id,
                    "the saved session no longer exists; starting a fresh one"
                );
                if let Some(sink) = sink {
                    let _ = sink.send(TurnEvent::Notice(
                        "the previous conversation could not be found — starting a fresh one."
                            .to_owned(),
                    ));
                }
                self.services.sessions.clear()?;
                parts.connect_offering(None).await?
            }
            other => other?,
        };
        if client.session_id() != resume_id.as_ref() {
            state.turns_since_compaction = 0;
        }
        self.set_live(Branch::Main, Some(&client));
        state.client = Some(client);
        state.offered = offered;
        Ok(())
    }

    /// Points interrupts addressed to `branch` at `client`.
    pub(super) fn set_live(&self, branch: Branch, client: Option<&ClaudeClient>) {
        self.with_live(branch, |side| side.set_client(client));
    }

    /// Marks `branch`'s reply as the one in progress until the guard drops.
    pub(super) fn replying(&self, branch: Branch) -> Replying<'_> {
        self.with_live(branch, |side| side.phase = Phase::Replying);
        Replying(self, branch)
    }
}

impl LiveSide {
    /// Points interrupts at `client`.
    pub(super) fn set_client(&mut self, client: Option<&ClaudeClient>) {
        self.client = client.map(|client| LiveClient {
            handle: client.handle(),
            pid: client.pid(),
        });
    }
}

/// While alive, `branch`'s reply is in progress ([`MainSession::replying`]).
pub(super) struct Replying<'a>(&'a MainSession, Branch);

impl Drop for Replying<'_> {
    fn drop(&mut self) {
        self.0.with_live(self.1, |side| side.phase = Phase::Idle);
    }
}
