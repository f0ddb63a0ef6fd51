//! The channel-agnostic session runtime. The front ends reach the owner through
//! `front_end::FrontEnd`; everything here is the same for Discord and the terminal.
//!
//! - [`session`]: the main session and the interactive fork beside it, each behind its own
//!   lock; its commands, connection, exchange (a turn and the fork transitions it asked for);
//!   [`interactive_fork`]: the fork's embeds, prompts and idle clock.
//! - [`turn`]: streaming one turn from CLI frames to `TurnEvent`s, with the tool labels, the
//!   API-failure line and the context-usage warning it shows.
//! - [`command`]: the session commands both front ends parse; [`compaction`]: `/compact`'s line.
//! - [`prompt`]: what a session is told: the system prompt and its text, and the context
//!   injected into each user turn (timestamp header, pending updates, prompt tags).
//! - [`client`]: how every kind of session's CLI client is built: the session builder, the
//!   main client's options and `--allowedTools`, the tool offer, the approved content it loads.
//! - [`permissions`]: what a session may do: the permission policies (main and forks, a
//!   background run), the hooks and guards on Bash, writes, routines and outbound tools after
//!   mail, the rule matching they share and the live rules.
//! - [`setup`]: start-up: the data dir and the shared `Services`, the agent's sandbox.
//! - [`screening`]: the tool-less session that screens webhook payloads.

pub mod answer_only;
pub mod client;
pub mod command;
pub mod compaction;
pub mod interactive_fork;
pub mod permissions;
pub mod prompt;
pub mod screening;
pub mod session;
pub mod setup;
pub mod turn;

pub use client::main_client::MainSettings;
pub use session::{ForkCommandError, ForkStart, MainSession, NoRoom, Prompt, PromptSource, Target};
pub use setup::data_dir::{OpenedServices, open_services};
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
    /// The CLI stopped a run at its `--max-turns` limit (USE-7).
    #[error("the run reached its limit of model calls")]
    TurnLimit,
}
