//! The `discord` MCP server: tools declared from Rust types with generated JSON schemas.
//!
//! Each CLI client gets its own [`DiscordTools`] bound to its [`ToolContext`], so a tool always
//! acts for the session that called it: the main session, an interactive fork, or one
//! background run with its own counters. All 16 tools are implemented (MCP-16 and the three
//! Google tools); a session's client lists only those it may ever use (see
//! [`super::availability::listed_tools`]), and a call outside its current scope answers with
//! the spec's error text. Failures of the Discord and reminder tools are text results starting
//! with `Error:`, as the spec words them, and like the Google tools' failures they are marked
//! tool errors (`isError`). Either way the agent can read and react to them.

use std::sync::Arc;

use rmcp::{
    ServerHandler,
    handler::server::router::tool::ToolRouter,
    model::{Implementation, ServerCapabilities, ServerConfig},
    tool_handler,
};

use super::availability::{ScopeCell, ToolScope};
use crate::{
    domain::fork_control::{ForkControl, ForkId},
    front_end::FrontEnd,
    mcp::run_state::BgRunState,
    scheduling::chain::ChainSlot,
    services::Services,
};

pub mod args;
mod file_guard;
mod fork;
mod google;
mod persistent;
mod recall;
mod reminders;
mod spend;
mod update_names;
mod visible;

pub use visible::build_embed;

/// What a tool call acts on.
pub struct ToolContext {
    /// The kind of session the client serves (a saved fork's client becomes main's).
    pub scope: Arc<ScopeCell>,
    /// Where visible output goes.
    pub front_end: Arc<dyn FrontEnd>,
    /// The session's state the tools act on.
    pub session: ToolSession,
}

/// The state a client's tools act on, by kind of session.
pub enum ToolSession {
    /// No session state (protocol tests, transcript replays): tools that need it refuse.
    Detached,
    /// The main session or an interactive fork, with its fork switchboard.
    Interactive {
        /// The shared stores.
        services: Arc<Services>,
        /// Requests the fork tools leave for the session.
        fork_control: Arc<ForkControl>,
        /// The interactive fork the client was started for (`None`: main's). A saved fork's
        /// client keeps it, but its scope then says main (SES-10).
        fork: Option<ForkId>,
        /// The chain reminder a foreground fire is running, for `follow_up_chain` (REM-8).
        chain: Arc<ChainSlot>,
    },
    /// A background run, with its own state.
    Background {
        /// The shared stores.
        services: Arc<Services>,
        /// The run's ping gate, counters and report flag.
        run: Arc<BgRunState>,
        /// The chain reminder being run, for `follow_up_chain` (REM-8).
        chain: Arc<ChainSlot>,
    },
}

impl ToolContext {
    /// A detached context with only a scope and a front end (tests, replays).
    pub fn new(scope: ToolScope, front_end: Arc<dyn FrontEnd>) -> Self {
        Self {
            scope: Arc::new(ScopeCell::new(scope)),
            front_end,
            session: ToolSession::Detached,
        }
    }

    /// The current scope.
    pub fn scope(&self) -> ToolScope {
        self.scope.get()
    }

    /// The shared stores, unless detached.
    pub fn services(&self) -> Option<&Arc<Services>> {
        match &self.session {
            ToolSession::Detached => None,
            ToolSession::Interactive { services, .. }
            | ToolSession::Background { services, .. } => Some(services),
        }
    }

    /// The fork switchboard of an interactive session.
    pub fn fork_control(&self) -> Option<&Arc<ForkControl>> {
        match &self.session {
            ToolSession::Interactive { fork_control, .. } => Some(fork_control),
            _ => None,
        }
    }

    /// The switchboard and the interactive fork this client serves, while it serves one (a
    /// saved fork's client serves main).
    pub fn own_fork(&self) -> Option<(&Arc<ForkControl>, ForkId)> {
        match &self.session {
            ToolSession::Interactive {
                fork_control,
                fork: Some(fork),
                ..
            } if self.scope() == ToolScope::InteractiveFork => Some((fork_control, *fork)),
            _ => None,
        }
    }

    /// The background run's state.
    pub fn bg_run(&self) -> Option<&Arc<BgRunState>> {
        match &self.session {
            ToolSession::Background { run, .. } => Some(run),
            _ => None,
        }
    }

    /// The chain slot, unless detached.
    pub fn chain(&self) -> Option<&Arc<ChainSlot>> {
        match &self.session {
            ToolSession::Detached => None,
            ToolSession::Interactive { chain, .. } | ToolSession::Background { chain, .. } => {
                Some(chain)
            }
        }
    }

    /// Notes a message sent outside background runs: inside an interactive fork it is kept
    /// for reply tracking (SES-16); in the main session nothing is tracked.
    pub(crate) fn note_sent(&self, message_id: Option<u64>) {
        if let (Some((control, fork)), Some(id)) = (self.own_fork(), message_id) {
            control.note_message(fork, id);
        }
    }
}

/// The in-process `discord` MCP server for one client.
#[derive(Clone)]
pub struct DiscordTools {
    router: ToolRouter<Self>,
    context: Arc<ToolContext>,
}

/// Every tool of the server.
pub const IMPLEMENTED_TOOLS: &[&str] = &crate::mcp::availability::ALL_TOOLS;

impl DiscordTools {
    /// A server for one client.
    pub fn new(context: ToolContext) -> Self {
        Self {
            router: Self::visible_router()
                + Self::fork_router()
                + Self::update_names_router()
                + Self::reminders_router()
                + Self::persistent_router()
                + Self::google_router()
                + Self::spend_router()
                + Self::recall_router(),
            context: Arc::new(context),
        }
    }

    /// A server for one client that lists only `tools` (issue 17): the others are not offered
    /// to the model at all, and a call to one fails as an unknown tool.
    pub fn listing(context: ToolContext, tools: &[&str]) -> Self {
        let mut server = Self::new(context);
        for name in IMPLEMENTED_TOOLS {
            if !tools.contains(name) {
                server.router.remove_route(name);
            }
        }
        server
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
    /// Every call through the router; a result whose text starts with `Error:` (the spec's
    /// wording of a refusal) is marked a tool error, so the CLI and the model treat it as one
    /// (issue 23 §5).
    async fn call_tool(
        &self,
        request: rmcp::model::CallToolRequestParams,
        context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::CallToolResponse, rmcp::ErrorData> {
        let call = rmcp::handler::server::tool::ToolCallContext::new(self, request, context);
        let mut response = self.router.call(call).await?;
        if let rmcp::model::CallToolResponse::Complete(result) = &mut response {
            mark_refusal(result);
        }
        Ok(response)
    }

    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("discord", env!("CARGO_PKG_VERSION")))
    }
}

/// Marks `result` a tool error when its first text starts with `Error:`.
fn mark_refusal(result: &mut rmcp::model::CallToolResult) {
    let refused = result
        .content
        .first()
        .and_then(|block| block.as_text())
        .is_some_and(|text| text.text.starts_with("Error:"));
    if refused {
        result.is_error = Some(true);
    }
}
