//! The Claude Code CLI driver: spawns `claude` with stream-json I/O and speaks its control
//! protocol (initialize, permissions, hooks, in-process MCP), with no SDK in between.
//!
//! Lifecycle of a [`ClaudeClient`]: [`ClaudeClient::connect`] spawns the process in the session's
//! working directory and completes `initialize` while already serving the CLI's own requests;
//! [`ClaudeClient::send`] writes a prompt and [`ClaudeClient::recv`] yields the turn's frames up
//! to its [`ResultMessage`]; [`ClaudeClient::disconnect`] closes stdin, lets the CLI finish,
//! and kills it after a grace period. Dropping a client kills its process.

mod child_env;
mod cli_version;
mod client;
pub mod control;
mod error;
mod frame_fields;
mod message;
mod models;
mod options;
mod process;
mod result;
mod serve;
mod session_id;
mod start_gate;
mod stderr_tail;
mod stream_event;
mod subagent_report;
mod system;
mod transport;

pub use cli_version::{
    CliFit, CliVersion, CliVersionError, TESTED_CLI_VERSION, installed_cli_version,
    missing_cli_fix, tested_package,
};
pub use client::{ClaudeClient, ClientHandle, ImageAttachment, StreamConnection, UserContent};
pub use control::{
    BoxFuture, ControlHandlers, HookCallback, HookEvent, HookOutput, HookRegistration,
    McpMessageHandler, PermissionDecision, PermissionHandler, PermissionRequest,
};
pub use error::ClaudeError;
pub use message::{
    AssistantMessage, CompactBoundary, ContentBlock, InitInfo, McpServerStatus, Message,
    PermissionDenial, ResultMessage, StreamEvent, SystemMessage, Usage, UserMessage,
};
pub use models::{CliModel, find_model, offered_models};
pub use options::{
    Attachment, ClientOptions, Confine, Invocation, McpServerConfig, PermissionMode,
    ProcessAttachment, SessionObserver, StartUp, SystemPrompt, Thinking, Transcript,
};
pub use process::AGENT_CHILD_ENV;
pub use session_id::{InvalidSessionId, SessionId};
pub use start_gate::{BackoffPolicy, StartGate, StartTransition, Starter};
pub use subagent_report::SubagentReport;
