//! Asking the owner about content that waits: one embed per item and version, with what it
//! can do and Approve / Deny buttons.

use super::ContentItem;
use crate::{
    domain::embed::{Embed, EmbedButton, EmbedColor},
    front_end::FrontEnd,
    state::content_approvals::ContentApprovals,
};

/// Button action of the Approve button (`act:content_approve:<request id>`).
pub const APPROVE_ACTION: &str = "content_approve";
/// Button action of the Deny button.
pub const DENY_ACTION: &str = "content_deny";

/// Posts an approval embed for each of `pending` that has no open request for its bytes yet.
/// Failures are logged: the item stays unloaded and the next session start asks again.
pub async fn ask_owner(
    store: &ContentApprovals,
    front_end: &dyn FrontEnd,
    pending: &[ContentItem],
) {
    for item in pending {
        let file = item.path.display().to_string();
        let id = match store.open_request(&item.key(), &item.hash, &file) {
            Ok(Some(id)) => id,
            Ok(None) => continue,
            Err(error) => {
                tracing::warn!(%error, key = item.key(), "could not record a content approval request");
                continue;
            }
        };
        tracing::info!(
            key = item.key(),
            hash = item.hash,
            "asking the owner to approve content"
        );
        let recorded = match front_end.send_embed(approval_embed(&id, item)).await {
            Ok(Some(message_id)) => store.set_message(&id, message_id),
            Ok(None) => store.withdraw(&id),
            Err(error) => {
                tracing::warn!(%error, key = item.key(), "could not post a content approval request");
                store.withdraw(&id)
            }
        };
        if let Err(error) = recorded {
            tracing::warn!(%error, "could not update a content approval request");
        }
    }
}

/// The embed asking the owner about one item.
pub fn approval_embed(id: &str, item: &ContentItem) -> Embed {
    let lines: Vec<String> = item
        .capabilities()
        .iter()
        .map(|line| format!("- {line}"))
        .collect();
    Embed {
        title: format!("New {} waits for your approval", item.kind),
        description: Some(format!(
            "`{}` (version `{}`) isn't loaded until you approve these exact bytes:\n{}\n\
             Read it first. An edit asks again. From your shell: `ollim-bot approve {}`.",
            item.path.display(),
            item.short_hash(),
            lines.join("\n"),
            item.path.display(),
        )),
        color: EmbedColor::Yellow,
        fields: Vec::new(),
        buttons: EmbedButton::approve_deny(APPROVE_ACTION, DENY_ACTION, id),
        footer: None,
    }
}
