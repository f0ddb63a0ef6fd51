//! The `discord` MCP server: tools declared from Rust types with generated JSON schemas.
//!
//! Each CLI client gets its own [`DiscordTools`] bound to its [`ToolContext`], so a tool always
//! acts for the session that called it: the main session, an interactive fork, or one
//! background run with its own counters. Every tool is listed everywhere (MCP-16); a call
//! outside its scope answers with the spec's error text. Failures are ordinary text results
//! starting with `Error:`, so the agent can read and react to them.

use std::sync::Arc;

use rmcp::{
    ServerHandler,
    handler::server::router::tool::ToolRouter,
    model::{Implementation, ServerCapabilities, ServerConfig},
    tool_handler,
};

use super::availability::{ScopeCell, ToolScope};
use crate::{
    domain::fork_control::ForkControl, front_end::FrontEnd, mcp::run_state::BgRunState,
    scheduling::chain::ChainSlot, services::Services,
};

pub mod args;
mod file_guard;
mod fork;
mod persistent;
mod reminders;
mod update_names;
mod visible;

pub use visible::build_embed;

/// What a tool call acts on.
pub struct ToolContext {
    /// The kind of session the client serves (a saved fork's client becomes main's).
    pub scope: Arc<ScopeCell>,
    /// Where visible output goes.
    pub front_end: Arc<dyn FrontEnd>,
    /// The shared stores (pending updates, data dir, settings); tools that need them refuse
    /// without.
    pub services: Option<Arc<Services>>,
    /// The session's fork switchboard (main session and interactive forks).
    pub fork_control: Option<Arc<ForkControl>>,
    /// The background run this client belongs to.
    pub bg_run: Option<Arc<BgRunState>>,
    /// The chain reminder being run, for `follow_up_chain` (REM-8).
    pub chain: Option<Arc<ChainSlot>>,
}

impl ToolContext {
    /// A context with only a scope and a front end (tests, the terminal).
    pub fn new(scope: ToolScope, front_end: Arc<dyn FrontEnd>) -> Self {
        Self {
            scope: Arc::new(ScopeCell::new(scope)),
            front_end,
            services: None,
            fork_control: None,
            bg_run: None,
            chain: None,
        }
    }

    /// The current scope.
    pub fn scope(&self) -> ToolScope {
        self.scope.get()
    }

    /// Notes a message sent outside background runs: inside an interactive fork it is kept
    /// for reply tracking (SES-16); in the main session nothing is tracked.
    pub(crate) fn note_sent(&self, message_id: Option<u64>) {
        if self.scope() == ToolScope::InteractiveFork
            && let (Some(control), Some(id)) = (&self.fork_control, message_id)
        {
            control.note_message(id);
        }
    }
}

/// The in-process `discord` MCP server for one client.
#[derive(Clone)]
pub struct DiscordTools {
    router: ToolRouter<Self>,
    context: Arc<ToolContext>,
}

/// Every tool of the server (MCP-16).
pub const IMPLEMENTED_TOOLS: &[&str] = &crate::mcp::availability::ALL_TOOLS;

impl DiscordTools {
    /// A server for one client.
    pub fn new(context: ToolContext) -> Self {
        Self {
            router: Self::visible_router()
                + Self::fork_router()
                + Self::update_names_router()
                + Self::reminders_router()
                + Self::persistent_router(),
            context: Arc::new(context),
        }
    }

    /// Names of the tools this instance lists.
    pub fn listed_tools(&self) -> Vec<String> {
        self.router
            .list_all()
            .into_iter()
            .map(|tool| tool.name.to_string())
            .collect()
    }
}

#[tool_handler(router = self.router)]
impl ServerHandler for DiscordTools {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("discord", env!("CARGO_PKG_VERSION")))
    }
}
