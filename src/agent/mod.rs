//! The channel-agnostic session runtime: the main session and its commands (`session`),
//! interactive forks, turns, context injection, compaction, the system prompt, the tool offer
//! and the live tool rules, permissions, hooks and the guards on what the agent writes
//! (`permissions`, `hooks`, `routine_guard`, `write_scope`, `outbound_hold`), the sandbox and
//! the approved content each CLI starts with, and the screening session for webhook payloads.
//! The front ends reach the owner through `front_end::FrontEnd`.

pub mod api_failure;
pub mod background_policy;
pub mod bash_rules;
pub mod command;
pub mod compaction;
pub mod context;
pub mod context_usage;
pub mod data_dir_setup;
mod executable_content;
pub mod hooks;
pub mod interactive_fork;
pub mod labels;
pub mod live_rules;
pub(crate) mod main_client;
pub mod main_tools;
pub mod outbound_hold;
pub mod permissions;
pub mod proposed_write;
pub mod routine_guard;
pub mod rule_match;
pub mod sandbox_setup;
pub mod screening;
pub mod session;
pub mod session_builder;
pub mod system_prompt;
mod system_prompt_text;
pub mod tool_offer;
pub mod turn;
pub mod write_scope;

pub use data_dir_setup::{OpenedServices, open_services};
pub use session::{ForkCommandError, ForkStart, MainSession, MainSettings, Prompt, PromptSource};
pub use turn::TurnReport;

use crate::{claude::ClaudeError, mcp::BridgeError, state::StateError};

/// What can go wrong in the agent core.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AgentError {
    /// The CLI failed or went away.
    #[error(transparent)]
    Claude(#[from] ClaudeError),
    /// A state file could not be read or written.
    #[error(transparent)]
    State(#[from] StateError),
    /// The in-process MCP server did not start.
    #[error(transparent)]
    Mcp(#[from] BridgeError),
    /// `/compact` did not compact.
    #[error("compaction failed: {0}")]
    Compaction(String),
    /// A run ended with an error result (an API error, a refused prompt).
    #[error("the run ended with an error: {0}")]
    RunFailed(String),
}
