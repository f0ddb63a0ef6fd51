//! ollim-bot: an ADHD-friendly personal assistant that lives in one person's Discord DMs,
//! driven by the Claude Code CLI.
//!
//! The crate is laid out in layers, each importing only the ones below it (see
//! `docs/architecture.md`):
//! - ground floor: [`claude`] (the CLI driver), [`domain`] (shared plain types),
//!   [`tool_policy`] (tool-pattern logic), [`transcripts`] (reading the CLI's transcripts),
//!   [`clock`] (the one clock, which tests move);
//! - [`config`], [`state`] (files under the data dir), [`front_end`] (the `FrontEnd` trait),
//!   [`google`] (the owner's Google account);
//! - [`services`] (the shared stores bundle), [`skills`], [`subagents`], [`update`]
//!   (self-update from the git checkout), [`recall`] (ranked recall over everything said and
//!   noted);
//! - [`scheduling`] (job files, cron, the scheduler loop), [`mcp`] (the `discord` tools);
//! - the session runtime: [`agent`] (main session, interactive forks), [`background`]
//!   (background runs);
//! - [`sandbox`] (the kernel boundary around the agent) sits beside [`state`];
//! - front ends: [`discord`], [`cli`]; and [`app`], the daemon that wires them.
// Unsafe code is refused everywhere but in `sandbox`'s kernel calls (a raw Landlock version
// query and the pre-exec hook that confines a child), which allow it by name.
#![deny(unsafe_code)]

pub mod agent;
pub mod app;
pub mod background;
pub mod claude;
pub mod cli;
pub mod clock;
pub mod config;
pub mod content_approval;
pub mod discord;
pub mod domain;
pub mod front_end;
pub mod google;
pub mod mcp;
pub mod recall;
pub mod sandbox;
pub mod scheduling;
pub mod services;
pub mod skills;
pub mod state;
pub mod subagents;
pub mod tool_policy;
pub mod transcripts;
pub mod update;
pub mod usage;
pub mod webhooks;
