//! `compact_session` (MCP-15, PRS-7, F-7): only in persistent routine runs. The CLI can't
//! compact while the tool call that asks for it is still part of the turn, so the run
//! compacts right after the turn ends and before the fire completes; the tool says so.

use rmcp::{handler::server::wrapper::Parameters, tool, tool_router};

use super::{DiscordTools, args::CompactArgs};
use crate::mcp::availability::ToolScope;

/// The answer of a successful `compact_session` call.
pub(super) const COMPACTION_SCHEDULED: &str = "Compaction scheduled: it runs right after you finish \
     this reply, before this fire completes, and the routine's next fire continues from the \
     compacted session.";

#[tool_router(router = persistent_router, vis = "pub(super)")]
impl DiscordTools {
    #[tool(
        description = "Persistent routine runs only: compress this routine's own session when \
                       its context has grown large; `instructions` say what the summary must \
                       keep."
    )]
    async fn compact_session(&self, Parameters(args): Parameters<CompactArgs>) -> String {
        let (Some(run), ToolScope::PersistentRoutine) =
            (self.context.bg_run(), self.context.scope())
        else {
            return "Error: compact_session is only available in persistent routine sessions"
                .to_owned();
        };
        let instructions = args.instructions.trim();
        if instructions.is_empty() {
            return "Error: say what the compacted session must keep.".to_owned();
        }
        run.request_compaction(instructions);
        COMPACTION_SCHEDULED.to_owned()
    }
}
