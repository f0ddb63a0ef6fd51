//! `spend_report` (USE-8): what the agent's work cost, from the usage ledger, for the spend
//! line of a weekly report or when the owner asks. Read-only; offered in every session.

use rmcp::{tool, tool_router};

use super::DiscordTools;
use crate::usage::report::ledger_report;

#[tool_router(router = spend_router, vis = "pub(super)")]
impl DiscordTools {
    #[tool(
        description = "What your work has cost, from the usage ledger: yesterday and the week \
                       so far, today / 7 / 30 days, the 30 days by kind of work, the priciest \
                       jobs and the cache's share. Read-only. Use it for the spend line of a \
                       weekly report, or when the owner asks what you cost."
    )]
    async fn spend_report(&self) -> String {
        let Some(services) = self.context.services() else {
            return "Error: the usage ledger is not available in this session.".to_owned();
        };
        services.usage.flush().await;
        ledger_report(
            &services.data_dir.usage_dir(),
            services.clock.now(),
            services.config.timezone,
        )
    }
}
