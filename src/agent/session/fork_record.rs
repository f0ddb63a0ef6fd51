//! What a fork leaves behind (SES-8, SES-16): `interactive_fork` logged once it has a session
//! id, and the messages it sent recorded under that id with its origin, so a reply to one
//! resumes it with the same tools (issue 23 §4).

use super::{MainSession, fork_registry::HeldFork};
use crate::{
    agent::AgentError,
    claude::{ClaudeError, SessionId},
    state::{
        fork_messages::{RecordedSession, SessionOrigin},
        history::SessionEventKind,
    },
};

impl MainSession {
    /// After a fork turn: log `interactive_fork` once (SES-8) and record the fork's messages
    /// for reply tracking (SES-16). A dead fork client is reported like a main one.
    pub(super) fn finish_fork_turn(
        &self,
        held: &mut HeldFork,
        outcome: Result<crate::agent::TurnReport, ClaudeError>,
    ) -> Result<crate::agent::TurnReport, AgentError> {
        let fork_id = held.id();
        let Some(fork) = held.get_mut() else {
            return outcome.map_err(AgentError::from);
        };
        if let Some(id) = fork.cli.session_id().cloned()
            && !fork.logged
        {
            fork.logged = true;
            let parent = self
                .fork_control
                .main_session_at_start(fork_id)
                .and_then(|id| SessionId::parse(&id).ok());
            self.services
                .sessions
                .log(&id, SessionEventKind::InteractiveFork, parent.as_ref())?;
        }
        Ok(outcome?)
    }

    /// Records the fork's sent messages under its session id (SES-16), once that id is known.
    pub(super) fn record_fork_messages(&self, held: &HeldFork, extra: Vec<u64>) {
        let fork_id = held.id();
        let Some(fork) = held.get() else {
            return;
        };
        for id in extra {
            self.fork_control.note_message(fork_id, id);
        }
        let Some(session) = fork.cli.session_id() else {
            return;
        };
        let ids = self.fork_control.take_messages(fork_id);
        let parent = self.fork_control.main_session_at_start(fork_id);
        self.record_messages(&ids, session, parent.as_deref(), &fork.origin);
    }

    /// Writes `ids` to `fork_messages.json` under the fork's session (SES-16), with its
    /// origin, so a reply resumes it with the same tools (issue 23 §4).
    pub(super) fn record_messages(
        &self,
        ids: &[u64],
        session: &SessionId,
        parent: Option<&str>,
        origin: &SessionOrigin,
    ) {
        let session = RecordedSession {
            id: session.as_str(),
            parent,
            origin,
        };
        if let Err(error) = self.services.fork_messages.record(ids, &session) {
            tracing::warn!(%error, "could not record the fork's messages");
        }
    }
}
