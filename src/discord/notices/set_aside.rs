//! Telling the owner, once, about state files that were set aside because they couldn't be
//! read (`state::set_aside`; issue 16): one DM listing each file, where its content went, and
//! that it started fresh. A notice is forgotten only once the DM went out.

use std::{path::Path, sync::Arc, time::Duration};

use tokio_util::sync::CancellationToken;

use serenity::builder::CreateMessage;

use super::Notices;
use crate::state::set_aside::{SetAside, Trouble, forget_notices, pending_notices};

/// The DM for `notices` (paths shown relative to the data dir).
pub fn set_aside_message(notices: &[SetAside], root: &Path) -> String {
    let all_set_aside = notices.iter().all(|n| n.trouble == Trouble::Damaged);
    let mut text = String::from(if all_set_aside {
        "heads-up: some of my files were damaged, so I set them aside:"
    } else {
        "heads-up: some of my files need a look:"
    });
    for notice in notices {
        text.push_str("\n- ");
        text.push_str(&notice.describe(root));
    }
    text.push_str(if all_set_aside {
        "\neverything else is fine, and nothing is needed from you."
    } else {
        "\neverything else is fine."
    });
    text
}

impl Notices {
    /// Checks for set-aside notices once the owner is known and then every `every`, until
    /// `stop`.
    pub async fn watch_set_aside(self: Arc<Self>, every: Duration, stop: CancellationToken) {
        let state_dir = self.reach.services.data_dir.state_dir();
        self.reach
            .every_tick_once_ready(every, &stop, || self.tell_set_aside(&state_dir))
            .await;
    }

    /// One DM for the notices waiting in `state_dir`, forgotten once it went out.
    async fn tell_set_aside(&self, state_dir: &Path) {
        let notices = pending_notices(state_dir);
        if notices.is_empty() || self.reach.places.unasked().is_none() {
            return;
        }
        let message = set_aside_message(&notices, self.reach.services.data_dir.root());
        let message = CreateMessage::new().content(message);
        if self
            .reach
            .tell("the set-aside notice", message)
            .await
            .is_some()
            && let Err(error) = forget_notices(state_dir, notices.len())
        {
            tracing::warn!(%error, "could not clear the set-aside notices");
        }
    }
}
