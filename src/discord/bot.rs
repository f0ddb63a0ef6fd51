//! The bot: the router's state (issue 41 §2) — what is shared ([`Reach`]), the parts that
//! own their state and handlers, the messages that arrived, the updater and the reconnect
//! backoff — and its lifecycle: connected, reconnected, taking input or not. What people do
//! reaches it through the router (`router`), which checks the owner first and hands each
//! input to its part.

use std::sync::Arc;

use serenity::all::{Context, Ready};
use tracing::Instrument;

use super::{
    approvals::{Approvals, reactions::ReactionApprovals},
    arrivals::Arrivals,
    conversations::Conversations,
    google::Google,
    home::HomeChannel,
    lifecycle::Connected,
    link::{LinkWatch, tell_back},
    nags::Nags,
    notices::Notices,
    quiet::QuietTime,
    reach::Reach,
    recall::Recall,
    reconnects::Reconnects,
};
use crate::update::Updater;

/// The router's state and the parts it hands input to.
pub struct Bot {
    /// What every part shares.
    pub(crate) reach: Arc<Reach>,
    /// The main conversation and the forks: messages, agent and fork buttons, the
    /// conversation's slash commands, `/setup`.
    pub(crate) conversations: Arc<Conversations>,
    /// Tool, content and webhook approvals, by button and by reaction.
    pub(crate) approvals: Arc<Approvals>,
    /// Google's buttons, `/google-auth` and its pasted redirect, the revocation watch.
    pub(crate) google: Arc<Google>,
    /// `/quiet`, `/focus`, the focus timer and the quiet-time digest.
    pub(crate) quiet: Arc<QuietTime>,
    /// Reminders open until answered: their buttons and `/nags`.
    pub(crate) nags: Arc<Nags>,
    /// `/home` and who can read the home channel.
    pub(crate) home: Arc<HomeChannel>,
    /// What the owner is told unasked: set-aside files, unfinished work, disk space.
    pub(crate) notices: Arc<Notices>,
    /// `/recall` and `/forget`.
    pub(crate) recall: Arc<Recall>,
    /// Checks for and applies updates (`/update` and the auto-update loop; SLC-11, UPD-2).
    pub updater: Arc<Updater>,
    /// Backoff for gateway reconnect storms (issue 16).
    pub reconnects: Arc<Reconnects>,
    /// The messages that arrived: handled ones (each once), and the DMs held until the owner
    /// was known (then the owner's are answered, the rest dropped).
    pub(crate) arrivals: Arrivals,
    /// The gateway link as the terminal is told of it (BOOT-13).
    pub(crate) link: LinkWatch,
}

impl Bot {
    /// A bot about to connect, its parts sharing `reach`.
    pub fn new(reach: Reach, reactions: Arc<ReactionApprovals>) -> Self {
        let reach = Arc::new(reach);
        let updater = Arc::new(Updater::from_env(&reach.services.data_dir));
        let part = |reach: &Arc<Reach>| Arc::clone(reach);
        Self {
            conversations: Arc::new(Conversations::new(part(&reach))),
            approvals: Arc::new(Approvals::new(part(&reach), reactions)),
            google: Arc::new(Google::new(part(&reach))),
            quiet: Arc::new(QuietTime::new(part(&reach))),
            nags: Arc::new(Nags::new(part(&reach))),
            home: Arc::new(HomeChannel::new(part(&reach))),
            notices: Arc::new(Notices::new(part(&reach))),
            recall: Arc::new(Recall::new(part(&reach))),
            reach,
            updater,
            reconnects: Arc::default(),
            arrivals: Arrivals::default(),
            link: LinkWatch::default(),
        }
    }

    /// Whether new owner input is still taken (false once shutdown began).
    pub fn is_accepting(&self) -> bool {
        self.reach.lifecycle.is_accepting()
    }

    /// Stops taking new input (first step of shutdown).
    pub fn stop_intake(&self) {
        self.reach.lifecycle.stop();
        self.reach.work.close();
    }

    /// Asks the daemon to shut down in order and start again (SLC-12).
    pub fn request_restart(&self) {
        self.reach.lifecycle.request_restart();
    }

    /// Resolves when a restart was requested.
    pub async fn restart_requested(&self) {
        self.reach.lifecycle.restart_requested().await;
    }

    /// Marks the owner as known (start-up).
    pub(crate) fn mark_owner_ready(&self) {
        self.reach.lifecycle.owner_known();
    }

    /// Whether a restart was requested.
    pub fn is_restarting(&self) -> bool {
        self.reach.lifecycle.is_restarting()
    }

    /// Answers the owner's DMs held while the owner was unknown; drops everyone else's.
    pub(crate) fn release_early(self: &Arc<Self>) {
        let held = self.arrivals.take_early();
        for message in held.into_iter().filter(|m| self.accepts(m)) {
            let span = self.turn_span(&message);
            self.reach
                .work
                .spawn(Arc::clone(self).take_message(message).instrument(span));
        }
    }

    /// The gateway is ready: the first time, the bot starts; after a lost session, what was
    /// missed is caught up on.
    pub(crate) async fn connected(self: &Arc<Self>, ctx: &Context, ready: &Ready) {
        tracing::info!(
            "{} online as {}",
            self.reach.services.config.bot_name,
            ready.user.name
        );
        if self.reach.lifecycle.ready() == Connected::Again {
            self.reconnected(ctx.shard_id).await;
            return;
        }
        self.start(ctx).await;
        if self.reach.owner.owner().is_some() {
            self.reach.lifecycle.started(ready.user.name.clone());
        }
    }

    /// Resolves, with who the bot is in Discord, once it started and takes the owner's DMs
    /// (issue 44: the terminal's ready line).
    pub async fn started(&self) -> String {
        self.reach.lifecycle.wait_started().await
    }

    /// The gateway came back (a resume, or a new session after a lost one): the reconnect is
    /// counted and what was missed caught up on.
    pub(crate) async fn reconnected(self: &Arc<Self>, shard: serenity::all::ShardId) {
        tell_back(&self.link, self.reach.services.clock.instant());
        self.reconnects.note(shard);
        self.backfill().await;
        tracing::debug!("caught up after the reconnect");
    }
}
