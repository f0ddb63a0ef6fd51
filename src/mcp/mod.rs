//! The in-process `discord` MCP server and its bridge to the CLI's `mcp_message` requests.

pub mod availability;
pub mod bridge;
pub mod run_state;
pub mod tools;

pub use availability::ToolScope;
pub use bridge::{BridgeError, McpBridge};
pub use run_state::{
    ALREADY_PINGED, BUDGET_EXHAUSTED, BgRunState, OWNER_BUSY, PINGS_DISABLED, PingPermit,
    REPORTING_DISABLED,
};
pub use tools::{DiscordTools, ToolContext, ToolSession};

#[cfg(test)]
mod bridge_tests;
