//! The conversations' buttons: the agent's buttons (BTN-4), answered as the owner's turn in
//! the conversation their message belongs to (a live fork session's message resumes it), and
//! a fork's entry embed buttons (Save, Report, Exit; IFK-10); a fork's thread archived by hand
//! ends that fork (issue 41 §1).

use serenity::all::{ChannelId, ComponentInteraction};

use super::Conversations;
use crate::discord::rate_limit::with_rate_limit_retries;
use crate::{
    agent::interactive_fork::button_resume_prompt,
    agent::{ForkCommandError, Prompt, prompt::context::relative_age},
    claude::SessionId,
    domain::fork_control::ExitAction,
    front_end::{Branch, ReplyPlace, TurnPlace},
    state::fork_messages::{ForkLookup, SessionOrigin},
};

/// The fork session that sent a message: its id, when the message was recorded, and its
/// origin (what resuming it runs with).
type SessionOwning = (SessionId, f64, SessionOrigin);

const EXPIRED_INQUIRY: &str = "this option has expired — ask again to revisit.";

impl Conversations {
    /// An agent button (BTN-4): its prompt, popped once, answered as the owner's turn.
    pub(crate) async fn agent_click(
        &self,
        component: &ComponentInteraction,
        inquiry_id: &str,
    ) -> Result<(), serenity::Error> {
        let owner = self.fork_owning(component.message.id.get());
        if owner.is_some()
            && let Err(no_room) = self.reach.session.fork_room()
        {
            return self.reach.ephemeral(component, no_room.owner_text()).await;
        }
        match self.reach.inquiries.pop(inquiry_id) {
            Some(prompt) => {
                with_rate_limit_retries(|| component.defer(&self.reach.http)).await?;
                self.run_button_prompt(component, prompt, owner).await;
                Ok(())
            }
            None => self.reach.ephemeral(component, EXPIRED_INQUIRY).await,
        }
    }

    /// A fork entry embed button (IFK-10), for the fork whose place it was clicked in:
    /// checked before and again under the lock.
    pub(crate) async fn fork_click(
        &self,
        component: &ComponentInteraction,
        exit: ExitAction,
    ) -> Result<(), serenity::Error> {
        let branch = self.reach.addressed_in(component.channel_id);
        if branch == Branch::Main {
            return self.reach.ephemeral(component, "no active fork.").await;
        }
        with_rate_limit_retries(|| component.defer(&self.reach.http)).await?;
        let here = TurnPlace::AskedIn(ReplyPlace(component.channel_id.get()));
        if let Err(error) = self.reach.session.fork_button(exit, here, branch).await {
            self.reach
                .click_followup(component, &error.to_string())
                .await?;
        }
        Ok(())
    }

    /// An open fork's thread was archived by someone (the bot archives it only after it
    /// closed the fork, issue 41 §1): that fork ends as Exit would, its outcome in the
    /// channel.
    pub(crate) async fn fork_thread_archived(&self, thread: ChannelId) {
        let Some(fork) = self.reach.places.fork_in(thread) else {
            return;
        };
        tracing::info!(%thread, "the fork's thread was archived; the fork ends");
        if let Err(error) = self
            .reach
            .session
            .fork_button(
                ExitAction::Exit,
                TurnPlace::Conversation,
                Branch::Fork(fork),
            )
            .await
        {
            tracing::info!(%error, "the archived thread's fork was already closed");
        }
    }

    /// The live fork session that sent `message_id`, unless it is the main session now.
    fn fork_owning(&self, message_id: u64) -> Option<SessionOwning> {
        let ForkLookup::Live {
            fork_session_id,
            recorded_at,
            origin,
            ..
        } = self.reach.services.fork_messages.lookup(message_id)
        else {
            return None;
        };
        let main = self.reach.services.sessions.load();
        if main.as_ref().map(SessionId::as_str) == Some(fork_session_id.as_str()) {
            return None;
        }
        SessionId::parse(&fork_session_id)
            .ok()
            .map(|id| (id, recorded_at, origin))
    }

    /// Answers an agent button (BTN-4): on a fork session's message the session is resumed as
    /// a fork with the button-resume prompt; otherwise `[button] <prompt>` goes to the current
    /// session (the open fork or main).
    async fn run_button_prompt(
        &self,
        component: &ComponentInteraction,
        prompt: String,
        owner: Option<SessionOwning>,
    ) {
        let here = TurnPlace::AskedIn(ReplyPlace(component.channel_id.get()));
        let turn = async {
            let Some((session_id, recorded_at, origin)) = owner else {
                return self.button_turn(component, &prompt, here).await;
            };
            #[allow(clippy::cast_possible_truncation)]
            // whole seconds of an age; `as` saturates
            let age = relative_age(chrono::Duration::seconds(
                (self.reach.services.clock.unix_secs() - recorded_at).max(0.0) as i64,
            ));
            let text = button_resume_prompt(&age, &prompt);
            match self
                .reach
                .session
                .resume_fork(session_id, origin, Prompt::text(text).answered_in(here))
                .await
            {
                Ok(report) => Ok(report),
                Err(ForkCommandError::Agent(error)) => Err(error),
                Err(_) => self.button_turn(component, &prompt, here).await,
            }
        };
        let said = format!("[button] {prompt}");
        self.owner_turn(component.channel_id, &said, turn).await;
    }

    /// `[button] <prompt>` in the conversation the button's message belongs to: a fork's
    /// thread talks to that fork, anywhere else to main beside it (CHN-6).
    async fn button_turn(
        &self,
        component: &ComponentInteraction,
        prompt: &str,
        here: TurnPlace,
    ) -> Result<crate::agent::TurnReport, crate::agent::AgentError> {
        let prompt = Prompt::text(format!("[button] {prompt}")).answered_in(here);
        let target = self.reach.target_of(component.channel_id);
        self.reach.session.button_exchange(target, prompt).await
    }
}
