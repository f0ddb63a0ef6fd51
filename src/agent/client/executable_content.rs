//! What the CLI may load (issue 23 §2, BOX-2): no setting sources at all, so nothing from
//! the data dir or the CLI's config dir loads by itself; the skills, commands, subagents and
//! settings the owner approved (or the bot shipped) are handed over instead.

use crate::{
    claude::ClientOptions,
    content_approval::{ContentItem, ScanLimits, Trust, loadable, prepare, scan},
    services::Services,
};

/// Settings every CLI gets when the approved content can't be installed: auto-memory off
/// (AGT-20), nothing else.
const FALLBACK_SETTINGS: &str = r#"{"autoMemoryEnabled":false}"#;

/// Sets `options` to load the approved content only.
pub(crate) fn deliver(services: &Services, options: &mut ClientOptions) {
    options.setting_sources = Some(Vec::new());
    let config = &services.config;
    let prepared = prepare(
        services.data_dir.root(),
        &services.data_dir.approved_dir(),
        &services.content_approvals.decisions(),
        (&config.user_name, &config.bot_name),
    );
    match prepared {
        Ok(prepared) => {
            options.plugin_dirs = vec![prepared.delivery.plugin_dir];
            options.agents = prepared.delivery.agents;
            options.settings = Some(with_forced_settings(&prepared.delivery.settings));
        }
        Err(error) => {
            tracing::warn!(%error, "could not install the approved skills and commands: the CLI starts without them");
            options.settings = Some(with_forced_settings(FALLBACK_SETTINGS));
        }
    }
}

/// `settings` with what every CLI of the bot's runs with, whatever was approved: no
/// compaction while idle (CLI 2.1.290 and later compact a long conversation on their own
/// after about 54 idle minutes; a session's work happens in the turns the bot starts, where
/// compaction is counted and reported, SES-13).
fn with_forced_settings(settings: &str) -> String {
    let mut value = match serde_json::from_str::<serde_json::Value>(settings) {
        Ok(value) if value.is_object() => value,
        // The approval store writes an object; anything else goes through as it was.
        _ => return settings.to_owned(),
    };
    if let Some(object) = value.as_object_mut() {
        object.insert("idleCompaction".into(), serde_json::Value::Bool(false));
    }
    value.to_string()
}

/// The items that wait for the owner: neither approved nor bundled, and not denied.
pub(crate) fn pending_content(services: &Services) -> Vec<ContentItem> {
    let config = &services.config;
    let decisions = services.content_approvals.decisions();
    let (items, _) = scan(services.data_dir.root(), ScanLimits::default());
    items
        .into_iter()
        .filter(|item| {
            loadable(item, &decisions, &config.user_name, &config.bot_name) == Trust::Pending
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idle_compaction_is_off_whatever_was_approved() {
        let forced: serde_json::Value =
            serde_json::from_str(&with_forced_settings(r#"{"idleCompaction":true,"a":1}"#))
                .unwrap();
        assert_eq!(forced, serde_json::json!({"idleCompaction": false, "a": 1}));
        let fallback: serde_json::Value =
            serde_json::from_str(&with_forced_settings(FALLBACK_SETTINGS)).unwrap();
        assert_eq!(fallback["autoMemoryEnabled"], false);
        assert_eq!(fallback["idleCompaction"], false);
    }
}
