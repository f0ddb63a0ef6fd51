//! ollim-bot: an ADHD-friendly personal assistant that lives in one person's Discord DMs,
//! driven by the Claude Code CLI.
//!
//! The crate is laid out by domain:
//! - [`claude`]: the Claude Code CLI driver (process, stream-json, control protocol).
//! - [`mcp`]: the in-process `discord` MCP server and its bridge to the CLI.
//! - [`agent`]: the channel-agnostic main session, context injection and the system prompt.
//! - [`state`]: file-backed state under the data dir (atomic writes, git auto-commit).
//! - [`config`]: configuration from `.env` and the environment.
//! - [`cli`]: the command-line interface and the `chat` terminal front end.
//! - [`discord`]: the Discord front end (serenity); [`app`]: the daemon around it.
//! - [`subagents`]: the bundled subagent specs and the reading of installed ones.
//! - [`transcripts`]: reading the CLI's session transcripts (`ollim-bot history`).
#![forbid(unsafe_code)]

pub mod agent;
pub mod app;
pub mod claude;
pub mod cli;
pub mod config;
pub mod discord;
pub mod forks;
pub mod mcp;
pub mod scheduling;
pub mod skills;
pub mod state;
pub mod subagents;
pub mod tool_policy;
pub mod transcripts;
