//! Saving an interactive fork (SES-10, CHN-7): its client becomes main's without
//! reconnecting; what main said beside a fork with a thread of its own is carried over, and
//! what the saved fork said is kept for the forks still open, so a later Save of one of them
//! loses neither (issue 41 §1).

use super::{DISCONNECT_GRACE, MainSession, MainState, fork::ActiveFork, fork_registry::ForkEntry};
use crate::front_end::Branch;
use crate::{
    claude::{PermissionMode, SessionId},
    mcp::ToolScope,
};

impl MainSession {
    /// After a Save, what main said beside the fork reaches the promoted session as a pending
    /// update, so those turns are not lost with the old main session (CHN-7).
    pub(super) fn carry_over(&self, meanwhile: &[String]) {
        if meanwhile.is_empty() {
            return;
        }
        let update = format!(
            "While this fork was open, the conversation went on outside it (in the channel, \
             or in another fork saved meanwhile); that session was replaced by this one when \
             the fork was saved:\n- {}",
            meanwhile.join("\n- ")
        );
        if let Err(error) = self.services.pending.append(&update) {
            tracing::warn!(%error, "could not keep what main said beside the fork");
        }
    }

    /// Before `saved` becomes main: what it said is added to what each fork still open keeps
    /// for its own Save, since the main conversation those forks would replace is now this.
    pub(super) fn hand_on_said(&self, saved: &ForkEntry) {
        let said = std::mem::take(&mut *saved.said.lock());
        if said.is_empty() {
            return;
        }
        for other in self.forks.all() {
            other.meanwhile.lock().extend(
                said.iter()
                    .map(|line| format!("(in a fork saved as the main conversation) {line}")),
            );
        }
    }

    /// Makes the fork's client the main one without reconnecting (SES-10).
    pub(super) fn promote(&self, state: &mut MainState, fork: ActiveFork, id: &SessionId) {
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
        if let Some(rules) = fork.tools.rules() {
            state.rules = rules;
        }
        // Its permissions are main's now, in main's mode (PRM-7).
        state.permissions = fork.permissions;
        state
            .permissions
            .set_dont_ask(state.settings.permission_mode == PermissionMode::DontAsk);
        state.turns_since_compaction = 0;
        self.set_live(Branch::Main, state.client.as_ref());
        if let Some(old) = old {
            self.retire(old.disconnect(DISCONNECT_GRACE));
        }
    }
}

/// What the exit embed says of a Save: with exchanges in main beside the fork, that they were
/// kept as a note for the saved conversation (CHN-7); with `others` forks still open, that
/// they branched from the conversation this replaces (issue 41 §1).
pub(super) fn saved_description(meanwhile: &[String], others: usize) -> String {
    let kept = match meanwhile.len() {
        0 => "context saved".to_owned(),
        1 => "context saved — the exchange you had meanwhile outside this fork is kept as a \
              note for it"
            .to_owned(),
        n => format!(
            "context saved — the {n} exchanges you had meanwhile outside this fork are kept \
             as a note for it"
        ),
    };
    match others {
        0 => kept,
        1 => format!(
            "{kept}. The other open fork began before this one was saved: it can report to the \
             conversation now, and a Save of it keeps this one as a note."
        ),
        n => format!(
            "{kept}. The {n} other open forks began before this one was saved: they can report \
             to the conversation now, and a Save of one keeps this one as a note."
        ),
    }
}
