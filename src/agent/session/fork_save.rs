//! Saving an interactive fork (SES-10, CHN-7): its client becomes main's without
//! reconnecting, and what main said beside a fork with a thread of its own is carried over.

use super::{DISCONNECT_GRACE, MainSession, MainState, fork::ActiveFork};
use crate::front_end::Branch;
use crate::{claude::SessionId, mcp::ToolScope};

impl MainSession {
    /// After a Save, what main said beside the fork reaches the promoted session as a pending
    /// update, so those turns are not lost with the old main session (CHN-7).
    pub(super) fn carry_over(&self, meanwhile: &[String]) {
        if meanwhile.is_empty() {
            return;
        }
        let update = format!(
            "While this fork was open, the main conversation went on in the channel (that \
             session was replaced by this one when the fork was saved):\n- {}",
            meanwhile.join("\n- ")
        );
        if let Err(error) = self.services.pending.append(&update) {
            tracing::warn!(%error, "could not keep what main said beside the fork");
        }
    }

    /// Makes the fork's client the main one without reconnecting (SES-10).
    pub(super) async fn promote(&self, state: &mut MainState, fork: ActiveFork, id: &SessionId) {
        let previous = self.services.sessions.load();
        if let Err(error) = self.services.sessions.save_swapped(id, previous.as_ref()) {
            tracing::warn!(%error, "could not save the promoted fork's session id");
        }
        fork.scope.set(ToolScope::Main);
        // An asleep fork's session is resumed by main's next turn (REST-3).
        let old = std::mem::replace(&mut state.client, fork.cli.into_client());
        // The promoted client's callbacks emit into the fork's sink: main's turns use it now.
        state.turn = fork.turn;
        state.chain = fork.chain;
        state.turns_since_compaction = 0;
        self.set_live(Branch::Fork, None);
        self.set_live(Branch::Main, state.client.as_ref());
        if let Some(old) = old {
            old.disconnect(DISCONNECT_GRACE).await;
        }
    }
}

/// What the exit embed says of a Save: with exchanges in main beside the fork, that they were
/// kept as a note for the saved conversation (CHN-7).
pub(super) fn saved_description(meanwhile: &[String]) -> String {
    match meanwhile.len() {
        0 => "context saved".to_owned(),
        1 => "context saved — the exchange you had in the channel meanwhile is kept as a note \
              for it"
            .to_owned(),
        n => format!(
            "context saved — the {n} exchanges you had in the channel meanwhile are kept as a \
             note for it"
        ),
    }
}
