//! What every part of the Discord front end reaches through (issue 41 §2): the REST client,
//! who the owner is, the places they talk in, the main session, the services, the agent
//! buttons' prompts, the work in flight and the bot's stage; and the ways of answering every
//! part shares — an ephemeral answer to a click, a note in a channel, a message the owner
//! didn't ask for, a watch that ticks while the bot is up. The parts own their state; this
//! holds only what they all read.

use std::sync::Arc;

use serenity::{
    all::{ChannelId, CommandInteraction, ComponentInteraction},
    builder::{
        CreateInteractionResponse, CreateInteractionResponseFollowup,
        CreateInteractionResponseMessage, CreateMessage,
    },
    http::Http,
    model::channel::Message,
};
use tokio_util::{sync::CancellationToken, task::TaskTracker};

use super::{
    lifecycle::Lifecycle, owner::OwnerGate, places::Places, rate_limit::with_rate_limit_retries,
};
use crate::{
    agent::{MainSession, Target},
    front_end::Branch,
    services::Services,
    state::inquiries::InquiryStore,
};

/// What the parts share.
pub struct Reach {
    pub(crate) http: Arc<Http>,
    pub(crate) owner: Arc<OwnerGate>,
    /// The owner's DM, the home channel, the forks' threads, where unasked messages go.
    pub(crate) places: Arc<Places>,
    pub(crate) session: Arc<MainSession>,
    pub(crate) services: Arc<Services>,
    /// The prompts behind the agent's buttons (BTN-4).
    pub(crate) inquiries: Arc<InquiryStore>,
    /// Turns and other owner-triggered work in flight; waited for on shutdown.
    pub(crate) work: TaskTracker,
    /// Where the bot is in its life, and the moments others wait for.
    pub(crate) lifecycle: Lifecycle,
}

impl Reach {
    /// What the parts of a bot about to connect share.
    pub fn new(
        http: Arc<Http>,
        (places, owner): (Arc<Places>, Arc<OwnerGate>),
        session: Arc<MainSession>,
        services: Arc<Services>,
        inquiries: Arc<InquiryStore>,
    ) -> Self {
        Self {
            http,
            owner,
            places,
            session,
            services,
            inquiries,
            work: TaskTracker::new(),
            lifecycle: Lifecycle::default(),
        }
    }

    /// Where a message, click or command in `channel` is addressed (issue 41 §1): a fork's
    /// thread to that fork; anywhere else to main's door.
    pub(crate) fn target_of(&self, channel: ChannelId) -> Target {
        self.places
            .fork_in(channel)
            .map_or(Target::MainDoor, Target::Fork)
    }

    /// The conversation a message, click or command in `channel` reaches now: a fork's thread
    /// that fork; the DM and the home channel main, or the fork without a thread of its own
    /// while one is open (a fork opened in the DM, IFK-1).
    pub(crate) fn addressed_in(&self, channel: ChannelId) -> Branch {
        self.session.branch_for(self.target_of(channel))
    }

    /// An ephemeral answer to a click.
    pub(crate) async fn ephemeral(
        &self,
        component: &ComponentInteraction,
        text: &str,
    ) -> Result<(), serenity::Error> {
        let message = CreateInteractionResponseMessage::new()
            .content(text)
            .ephemeral(true);
        let response = CreateInteractionResponse::Message(message);
        with_rate_limit_retries(|| component.create_response(&self.http, response.clone())).await
    }

    /// An ephemeral follow-up to a deferred click (the click's answer when it failed).
    pub(crate) async fn click_followup(
        &self,
        component: &ComponentInteraction,
        text: &str,
    ) -> Result<(), serenity::Error> {
        let follow_up = CreateInteractionResponseFollowup::new()
            .content(text)
            .ephemeral(true);
        with_rate_limit_retries(|| component.create_followup(&self.http, follow_up.clone()))
            .await
            .map(drop)
    }

    /// An ephemeral follow-up to a deferred command (the command's answer when it failed).
    pub(crate) async fn command_followup(
        &self,
        command: &CommandInteraction,
        text: &str,
    ) -> Result<(), serenity::Error> {
        let follow_up = CreateInteractionResponseFollowup::new()
            .content(text)
            .ephemeral(true);
        with_rate_limit_retries(|| command.create_followup(&self.http, follow_up.clone()))
            .await
            .map(drop)
    }

    /// Posts `text` in `channel`, best effort.
    pub(crate) async fn say_in(&self, channel: ChannelId, text: &str) {
        let message = CreateMessage::new().content(text);
        if let Err(error) =
            with_rate_limit_retries(|| channel.send_message(&self.http, message.clone())).await
        {
            tracing::warn!(%error, %channel, "could not post a note");
        }
    }

    /// Sends a message the owner didn't ask for where they want those (CHN-5): the home
    /// channel when they chose it, else the DM; a home channel that refuses it (deleted, the
    /// bot's access taken away) gives way to the DM. `None` (logged as `what`) when it went
    /// nowhere.
    pub(crate) async fn tell(&self, what: &str, message: CreateMessage) -> Option<Message> {
        let dm = self.places.dm();
        let Some(channel) = self.places.unasked().or(dm) else {
            tracing::warn!("no channel yet to send {what} to");
            return None;
        };
        let sent = with_rate_limit_retries(|| channel.send_message(&self.http, message.clone()));
        match sent.await {
            Ok(sent) => return Some(sent),
            Err(error) => tracing::warn!(%error, %channel, "could not send {what}"),
        }
        let dm = dm.filter(|dm| *dm != channel)?;
        match with_rate_limit_retries(|| dm.send_message(&self.http, message.clone())).await {
            Ok(sent) => Some(sent),
            Err(error) => {
                tracing::warn!(%error, "could not send {what} to the DM either");
                None
            }
        }
    }

    /// Resolves once the owner is known and their DM channel is open.
    pub async fn owner_ready(&self) {
        self.lifecycle.owner_ready().await;
    }

    /// Runs `step` once the owner is known and then every `every`, until `cancel`; ticks that
    /// pass while a step runs are skipped. For the owner-facing watches (revocation, set-aside
    /// files, the quiet-time digest, …).
    pub(crate) async fn every_tick_once_ready<Step: Future<Output = ()>>(
        &self,
        every: std::time::Duration,
        cancel: &CancellationToken,
        mut step: impl FnMut() -> Step,
    ) {
        tokio::select! {
            () = cancel.cancelled() => return,
            () = self.owner_ready() => {}
        }
        let mut ticks = tokio::time::interval(every);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        loop {
            tokio::select! {
                () = cancel.cancelled() => return,
                _ = ticks.tick() => {}
            }
            step().await;
        }
    }
}
