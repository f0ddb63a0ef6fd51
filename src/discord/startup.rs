//! The first `READY` (BOOT-7): commands registered, the owner resolved, the DM opened and the
//! greeting sent (GRT-1/2). The conversation's CLI is not started here but on the owner's first
//! sign, as a sleeping one is woken (REST-6), unless it is to stay up (`cli_idle_minutes` 0).

use std::sync::Arc;

use serenity::{all::Context, builder::CreateMessage, model::id::UserId};

use super::conversations::setup::greeting_with_get_started;
use super::notices::greeting::greeting;
use crate::usage::{UsageLedger, report::greeting_line};

use super::{bot::Bot, commands, owner::application_owner, rate_limit::with_rate_limit_retries};

impl Bot {
    /// Runs once, on the first `READY`.
    pub(crate) async fn start(self: &Arc<Self>, _ctx: &Context) {
        match commands::register(&self.reach.http).await {
            Ok(count) => tracing::info!("synced {count} slash commands"),
            Err(error) => tracing::warn!(%error, "could not register slash commands"),
        }
        let Some(owner) = self.resolve_owner().await else {
            tracing::warn!("no owner found; scheduler and DM disabled");
            return;
        };
        self.reach.owner.resolve(owner);
        let channel =
            match with_rate_limit_retries(|| owner.create_dm_channel(&self.reach.http)).await {
                Ok(channel) => channel.id,
                Err(error) => {
                    tracing::error!(%error, "could not open the owner's DM channel");
                    return;
                }
            };
        self.reach.places.learn_dm(channel);
        self.mark_owner_ready();
        // Started at ready, the CLI would hold ~180 MiB through the idle limit after every
        // start before anyone said a word: it starts as a woken one does (typing, a click, a
        // command, a message, or a job's turn in main), unless it is kept up anyway (REST-6).
        if self.reach.session.idle_limit().is_none() {
            let session = Arc::clone(&self.reach.session);
            self.reach.work.spawn(async move {
                if let Err(error) = session.connect().await {
                    tracing::warn!(%error, "could not start the main session ahead of the first message");
                }
            });
        } else {
            tracing::debug!("the conversation's CLI starts on the owner's first sign");
        }
        let config = &self.reach.services.config;
        let has_session = self.reach.services.sessions.load().is_some();
        let version = crate::update::running_version().await.to_string();
        let mut text = greeting(has_session, &config.user_name, &config.bot_name, &version);
        if let crate::sandbox::Support::Unavailable { reason } =
            self.reach.services.sandbox.support()
        {
            text.push('\n');
            text.push_str(&super::notices::greeting::no_sandbox_line(reason));
        }
        if let crate::sandbox::ContainerSupport::Unavailable { reason } =
            self.reach.services.sandbox.containers()
        {
            text.push('\n');
            text.push_str(&super::notices::greeting::no_container_line(reason));
        }
        if let Some(line) = self.spend_line() {
            text.push('\n');
            text.push_str(&line);
        }
        let message = if has_session {
            CreateMessage::new().content(text)
        } else {
            greeting_with_get_started(text)
        };
        // Where the owner wants unasked messages (CHN-5): the DM, or the home channel.
        if let Some(greeting) = self.reach.tell("the greeting", message).await {
            self.arrivals.catch_up_from(greeting.id);
        }
        self.home.check_home_channel().await;
        self.release_early();
    }

    /// Yesterday's spend and the week's so far, from the ledger (USE-8).
    fn spend_line(&self) -> Option<String> {
        let now = self.reach.services.clock.now();
        let ledger = UsageLedger::new(self.reach.services.data_dir.usage_dir());
        let read = ledger.read_since(now - chrono::Duration::days(8)).ok()?;
        greeting_line(&read.records, now, self.reach.services.config.timezone)
    }

    /// The application's owner.
    async fn resolve_owner(&self) -> Option<UserId> {
        match application_owner(&self.reach.http).await {
            Ok(owner) => owner,
            Err(error) => {
                tracing::error!(%error, "could not read the application info");
                None
            }
        }
    }
}
