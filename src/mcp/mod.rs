//! The in-process `discord` MCP server and its bridge to the CLI's `mcp_message` requests.

pub mod availability;
pub mod bridge;
pub mod embed;
pub mod tools;

pub use availability::ToolScope;
pub use bridge::{BridgeError, McpBridge};
pub use tools::{DiscordTools, ToolContext};

#[cfg(test)]
mod bridge_tests;
