//! `/google-auth` (GOO-4, SLC-13) and the pasted redirect URL (MSG-6).
//!
//! The command starts the loopback flow (listener on 127.0.0.1, PKCE, `state`) and answers
//! with the sign-in link. The browser's redirect to the listener completes it; on a headless
//! server the owner pastes the address the browser ended on into the DM instead, and the
//! first valid answer wins. A DM that looks like such an address never reaches the agent or
//! a log, whether a flow is waiting or not. Outcome: `google connected.` or
//! `google auth failed.` in the DM; a timeout is silent. A second `/google-auth` replaces the
//! flow in progress.

use std::sync::{
    Arc,
    atomic::{AtomicU64, Ordering},
};

use parking_lot::Mutex;
use serenity::{all::CommandInteraction, model::channel::Message};
use tokio_util::sync::CancellationToken;

use super::Google;
use crate::discord::commands::reply_ephemeral;
use crate::discord::rate_limit::with_rate_limit_retries;
use crate::google::{
    AuthError, GoogleClient, GoogleError,
    loopback::{FLOW_TIMEOUT, LoopbackFlow, Offer, PasteHandle, looks_like_redirect},
};

/// Sent when the flow connected Google.
pub const CONNECTED: &str = "google connected.";
/// Sent when the flow failed (refused consent, failed exchange).
pub const FAILED: &str = "google auth failed.";
/// Answer to `/google-auth` when a usable token exists.
pub const ALREADY_CONNECTED: &str = "google already connected.";
/// Under the sign-in link.
pub const PASTE_HINT: &str = "-# on another device? paste the redirect url here · 5 min timeout";
/// A pasted address that doesn't belong to the flow in progress.
pub const WRONG_PASTE: &str =
    "-# that address isn't from the Google sign-in in progress; still waiting.";
/// A pasted address when no flow waits.
pub const NO_FLOW: &str = "-# no Google sign-in is waiting — run /google-auth to start one.";

/// The flow in progress: its paste side and how to stop it.
#[derive(Debug)]
struct Waiting {
    id: u64,
    paste: PasteHandle,
    cancel: CancellationToken,
}

/// The `/google-auth` flow in progress, if any. A new `/google-auth` replaces it (the owner
/// may have lost the ephemeral link), so there is never more than one.
#[derive(Debug, Default, Clone)]
pub struct PendingGoogleAuth {
    waiting: Arc<Mutex<Option<Waiting>>>,
    next_id: Arc<AtomicU64>,
}

impl PendingGoogleAuth {
    /// Registers a new flow, cancelling the one before; returns its id and cancel token.
    fn replace(&self, paste: PasteHandle) -> (u64, CancellationToken) {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let cancel = CancellationToken::new();
        let previous = self.waiting.lock().replace(Waiting {
            id,
            paste,
            cancel: cancel.clone(),
        });
        if let Some(previous) = previous {
            previous.cancel.cancel();
        }
        (id, cancel)
    }

    /// Forgets flow `id` if it is still the current one.
    fn finish(&self, id: u64) {
        let mut waiting = self.waiting.lock();
        if waiting.as_ref().is_some_and(|w| w.id == id) {
            waiting.take();
        }
    }

    fn paste(&self) -> Option<PasteHandle> {
        self.waiting.lock().as_ref().map(|w| w.paste.clone())
    }
}

impl Google {
    /// `/google-auth` (GOO-4).
    pub(crate) async fn auth_command(
        &self,
        command: &CommandInteraction,
    ) -> Result<(), serenity::Error> {
        let client = GoogleClient::from_env(&self.reach.services.data_dir);
        let files = client.files().clone();
        match files.load_secrets() {
            Ok(_) => {}
            Err(GoogleError::NoCredentials { path }) => {
                let text = format!(
                    "Google isn't set up: no OAuth client file at `{}`.\nCreate OAuth \
                     credentials of type **Desktop app** at https://console.cloud.google.com/ \
                     (enable the Tasks, Calendar and Gmail APIs; configure the consent screen: \
                     External, with your account as a test user; then Clients → Create client), \
                     download the JSON, save it there, then run /google-auth again.",
                    path.display()
                );
                return reply_ephemeral(&self.reach.http, command, text).await;
            }
            Err(other) => {
                return reply_ephemeral(&self.reach.http, command, other.to_string()).await;
            }
        }
        if files.is_connected() {
            return reply_ephemeral(&self.reach.http, command, ALREADY_CONNECTED).await;
        }
        let flow = match LoopbackFlow::start(&files, client.http().clone()).await {
            Ok(flow) => flow,
            Err(error) => {
                tracing::warn!(%error, "could not start the google sign-in");
                return reply_ephemeral(&self.reach.http, command, FAILED).await;
            }
        };
        let pending = self.pending_auth.clone();
        let (id, cancel) = pending.replace(flow.paste_handle());
        let text = format!("connect Google: {}\n{PASTE_HINT}", flow.url());
        let answered = reply_ephemeral(&self.reach.http, command, text).await;
        let http = Arc::clone(&self.reach.http);
        let channel = self.reach.places.dm().unwrap_or(command.channel_id);
        tokio::spawn(async move {
            let outcome = tokio::select! {
                outcome = flow.finish(&files, FLOW_TIMEOUT) => outcome,
                // Replaced by a newer /google-auth: stop quietly (the listener closes).
                () = cancel.cancelled() => return,
            };
            pending.finish(id);
            let text = match outcome {
                Ok(_) => CONNECTED,
                Err(GoogleError::Auth(AuthError::TimedOut)) => return,
                Err(error) => {
                    tracing::info!(%error, "google sign-in failed");
                    FAILED
                }
            };
            if let Err(error) = with_rate_limit_retries(|| channel.say(&http, text)).await {
                tracing::warn!(%error, "could not report the google sign-in");
            }
        });
        answered
    }

    /// MSG-6: a DM that looks like a loopback redirect is taken here, never sent to the agent.
    /// Returns whether it was taken.
    pub(crate) async fn take_pasted_redirect(&self, message: &Message) -> bool {
        if !looks_like_redirect(&message.content) {
            return false;
        }
        let paste = self.pending_auth.paste();
        let note = match paste.map(|paste| paste.offer_url(&message.content)) {
            Some(Offer::Accepted | Offer::AlreadyDone) => None,
            Some(Offer::Rejected(_)) => Some(WRONG_PASTE),
            None => Some(NO_FLOW),
        };
        if let Some(note) = note
            && let Err(error) =
                with_rate_limit_retries(|| message.channel_id.say(&self.reach.http, note)).await
        {
            tracing::debug!(%error, "could not answer a pasted google address");
        }
        true
    }
}
