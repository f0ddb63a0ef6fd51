//! Starting a background run's client: retries for a control-request timeout (AGT-13) and
//! waits while the CLI dies at start (issue 16).

use std::{sync::Arc, time::Duration};

use super::{BgRunner, RunHandles};
use crate::{
    agent::{
        AgentError,
        client::session_builder::{SessionDescription, SessionKind, connect_session},
    },
    claude::{ClaudeClient, ClaudeError, ClientOptions},
};

/// Pauses between client start attempts that hit a control-request timeout (AGT-13).
const START_BACKOFF: [Duration; 2] = [Duration::from_secs(5), Duration::from_secs(15)];

impl BgRunner {
    /// Starts the run's client, retrying a control-request timeout twice (AGT-13).
    pub(super) async fn connect(
        &self,
        options: &ClientOptions,
        handles: &RunHandles,
    ) -> Result<ClaudeClient, AgentError> {
        let mut attempt = 0;
        loop {
            match self.connect_once(options, handles).await {
                Err(AgentError::Claude(error @ ClaudeError::Timeout { .. }))
                    if attempt < START_BACKOFF.len() =>
                {
                    tracing::warn!(%error, attempt = attempt + 1, "background client start timed out; retrying");
                    self.services.clock.sleep(START_BACKOFF[attempt]).await;
                    attempt += 1;
                }
                // The CLI keeps dying at start: wait for the gate's next try, within the
                // run's own time limit, so the run still happens once it starts (issue 16).
                Err(AgentError::Claude(ClaudeError::NotStarting { retry_in_secs, .. })) => {
                    tracing::info!(retry_in_secs, "the CLI won't start; the run waits");
                    self.services
                        .clock
                        .sleep(Duration::from_secs(retry_in_secs))
                        .await;
                }
                other => return other,
            }
        }
    }

    async fn connect_once(
        &self,
        options: &ClientOptions,
        handles: &RunHandles,
    ) -> Result<ClaudeClient, AgentError> {
        let description = SessionDescription {
            services: &self.services,
            front_end: &self.front_end,
            chain: Arc::clone(&handles.chain),
            kind: SessionKind::Background {
                run: Arc::clone(&handles.run),
                scope: handles.scope,
            },
        };
        connect_session(description, options).await
    }
}
