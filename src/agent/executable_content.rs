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
            options.settings = Some(prepared.delivery.settings);
        }
        Err(error) => {
            tracing::warn!(%error, "could not install the approved skills and commands: the CLI starts without them");
            options.settings = Some(FALLBACK_SETTINGS.to_owned());
        }
    }
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
