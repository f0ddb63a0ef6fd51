//! Whether an item may be loaded: the owner approved its bytes, or they are the bot's own.

use super::{ContentItem, ContentKind};
use crate::state::content_approvals::{ContentDecision, ContentDecisions};

/// Why an item may or may not be loaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trust {
    /// The owner approved these bytes.
    Approved,
    /// The bot's own text, as shipped (a bundled skill or subagent, the settings file the bot
    /// writes): trusted like the binary.
    Bundled,
    /// Waiting for the owner: not loaded.
    Pending,
    /// The owner refused these bytes: not loaded, not asked again.
    Denied,
}

impl Trust {
    /// Whether the CLI gets the item.
    pub fn loads(self) -> bool {
        matches!(self, Self::Approved | Self::Bundled)
    }
}

/// The trust of `item` given the owner's `decisions`; `user_name` and `bot_name` fill the
/// bundled subagent templates.
pub fn loadable(
    item: &ContentItem,
    decisions: &ContentDecisions,
    user_name: &str,
    bot_name: &str,
) -> Trust {
    match decisions.decision(&item.key(), &item.hash) {
        ContentDecision::Approved => return Trust::Approved,
        ContentDecision::Denied => return Trust::Denied,
        ContentDecision::Undecided => {}
    }
    if is_bundled(item, user_name, bot_name) {
        Trust::Bundled
    } else {
        Trust::Pending
    }
}

fn is_bundled(item: &ContentItem, user_name: &str, bot_name: &str) -> bool {
    let [file] = item.files.as_slice() else {
        return false;
    };
    match item.kind {
        ContentKind::Skill => crate::skills::BUNDLED_SKILLS
            .iter()
            .any(|(name, text)| *name == item.name && file.bytes == text.as_bytes()),
        ContentKind::Subagent => crate::subagents::bundled_spec(&item.name, user_name, bot_name)
            .is_some_and(|text| file.bytes == text.as_bytes()),
        // The file the bot itself writes (AGT-20): nothing in it but that key.
        ContentKind::Settings => serde_json::from_slice::<serde_json::Value>(&file.bytes)
            .ok()
            .and_then(|value| value.as_object().cloned())
            .is_some_and(|object| object.keys().all(|key| key == "autoMemoryEnabled")),
        ContentKind::Command => false,
    }
}
