//! The Google part (issue 41 §2): everything Google the owner does in Discord. It owns the
//! armed delete buttons and the `/google-auth` flow waiting for its redirect, and answers:
//!
//! - [`clicks`]: the task and event buttons (BTN-5/6/7, GOO-8/9), and the revocation watch
//!   (SCH-3);
//! - [`auth`]: `/google-auth` (GOO-4, SLC-13) and the redirect address pasted into the DM
//!   (MSG-6), which never reaches the agent.

pub mod auth;
pub mod clicks;

use std::sync::Arc;

use parking_lot::Mutex;

use self::{auth::PendingGoogleAuth, clicks::DeleteConfirmations};
use super::reach::Reach;

/// The Google part.
pub struct Google {
    reach: Arc<Reach>,
    /// Delete buttons waiting for their confirming click.
    delete_confirmations: Mutex<DeleteConfirmations>,
    /// The `/google-auth` flow waiting for its redirect, if any.
    pending_auth: PendingGoogleAuth,
}

impl Google {
    /// The part, with nothing armed or waiting.
    pub fn new(reach: Arc<Reach>) -> Self {
        Self {
            reach,
            delete_confirmations: Mutex::default(),
            pending_auth: PendingGoogleAuth::default(),
        }
    }
}
