//! The bot's shared state and its lifecycle: connected, reconnected, taking input or not.
//! What people do reaches it through the router (`router`), which checks the owner first.

use std::sync::{Arc, OnceLock};

use parking_lot::Mutex;

use serenity::{
    all::{Context, Ready},
    http::Http,
};
use tokio_util::{sync::CancellationToken, task::TaskTracker};
use tracing::Instrument;

use super::{
    arrivals::Arrivals,
    clicks::{google::DeleteConfirmations, reaction_approval::Approvals},
    commands::google_auth::PendingGoogleAuth,
    home_channel::ToldReaders,
    lifecycle::{Connected, Lifecycle},
    owner::OwnerGate,
    places::Places,
    reconnects::Reconnects,
};
use crate::{
    agent::MainSession, background::webhook_dispatch::WebhookDispatch, services::Services,
    state::inquiries::InquiryStore, update::Updater,
};

/// Everything the Discord side shares.
pub struct Bot {
    pub(crate) http: Arc<Http>,
    pub(crate) owner: Arc<OwnerGate>,
    /// The owner's DM, the home channel, and where the conversation is shown now.
    pub(crate) places: Arc<Places>,
    /// Who the owner was last told can read the home channel (CHN-3).
    pub(crate) told_readers: ToldReaders,
    pub(crate) session: Arc<MainSession>,
    pub(crate) services: Arc<Services>,
    pub(crate) approvals: Arc<Approvals>,
    pub(crate) inquiries: Arc<InquiryStore>,
    /// Delete buttons waiting for their confirming click.
    pub(crate) delete_confirmations: Mutex<DeleteConfirmations>,
    /// The `/google-auth` flow waiting for its redirect, if any.
    pub(crate) google_auth: PendingGoogleAuth,
    /// Turns and other owner-triggered work in flight; waited for on shutdown.
    pub(crate) work: TaskTracker,
    /// Where the owner's answers to held webhook requests go, once the server is set up.
    pub(crate) webhooks: OnceLock<WebhookDispatch>,
    /// Checks for and applies updates (`/update` and the auto-update loop; SLC-11, UPD-2).
    pub updater: Arc<Updater>,
    /// Backoff for gateway reconnect storms (issue 16).
    pub reconnects: Arc<Reconnects>,
    /// Where the bot is in its life, and the moments others wait for.
    lifecycle: Lifecycle,
    /// The messages that arrived: handled ones (each once), and the DMs held until the owner
    /// was known (then the owner's are answered, the rest dropped).
    pub(crate) arrivals: Arrivals,
}

impl Bot {
    /// The shared state of a bot that is about to connect.
    pub fn new(
        http: Arc<Http>,
        (places, owner): (Arc<Places>, Arc<OwnerGate>),
        session: Arc<MainSession>,
        services: Arc<Services>,
        approvals: Arc<Approvals>,
        inquiries: Arc<InquiryStore>,
    ) -> Self {
        let updater = Arc::new(Updater::from_env(&services.data_dir));
        Self {
            http,
            owner,
            places,
            told_readers: ToldReaders::default(),
            session,
            services,
            approvals,
            inquiries,
            delete_confirmations: Mutex::default(),
            google_auth: PendingGoogleAuth::default(),
            work: TaskTracker::new(),
            webhooks: OnceLock::new(),
            updater,
            reconnects: Arc::default(),
            lifecycle: Lifecycle::default(),
            arrivals: Arrivals::default(),
        }
    }

    /// Whether new owner input is still taken (false once shutdown began).
    pub fn is_accepting(&self) -> bool {
        self.lifecycle.is_accepting()
    }

    /// Stops taking new input (first step of shutdown).
    pub fn stop_intake(&self) {
        self.lifecycle.stop();
        self.work.close();
    }

    /// Asks the daemon to shut down in order and start again (SLC-12).
    pub fn request_restart(&self) {
        self.lifecycle.request_restart();
    }

    /// Resolves when a restart was requested.
    pub async fn restart_requested(&self) {
        self.lifecycle.restart_requested().await;
    }

    /// Resolves once the owner is known and their DM channel is open.
    pub async fn owner_ready(&self) {
        self.lifecycle.owner_ready().await;
    }

    /// Runs `step` once the owner is known and then every `every`, until `stop`; ticks that
    /// pass while a step runs are skipped. For the owner-facing watches (revocation, set-aside
    /// files).
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

    /// Marks the owner as known (start-up).
    pub(crate) fn mark_owner_ready(&self) {
        self.lifecycle.owner_known();
    }

    /// Whether a restart was requested.
    pub fn is_restarting(&self) -> bool {
        self.lifecycle.is_restarting()
    }

    /// Answers the owner's DMs held while the owner was unknown; drops everyone else's.
    pub(crate) fn release_early(self: &Arc<Self>) {
        let held = self.arrivals.take_early();
        for message in held.into_iter().filter(|m| self.accepts(m)) {
            let bot = Arc::clone(self);
            let span = self.turn_span(&message);
            self.work
                .spawn(async move { bot.handle_message(message).await }.instrument(span));
        }
    }

    /// The gateway is ready: the first time, the bot starts; after a lost session, what was
    /// missed is caught up on.
    pub(crate) async fn connected(self: &Arc<Self>, ctx: &Context, ready: &Ready) {
        tracing::info!(
            "{} online as {}",
            self.services.config.bot_name,
            ready.user.name
        );
        if self.lifecycle.ready() == Connected::Again {
            self.reconnected(ctx.shard_id).await;
            return;
        }
        self.start(ctx).await;
    }

    /// The gateway came back (a resume, or a new session after a lost one): the reconnect is
    /// counted and what was missed caught up on.
    pub(crate) async fn reconnected(self: &Arc<Self>, shard: serenity::all::ShardId) {
        self.reconnects.note(shard);
        self.backfill().await;
        tracing::debug!("caught up after the reconnect");
    }
}
