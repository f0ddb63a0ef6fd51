//! Shared helpers for the end-to-end tests: a scriptable mock of the Anthropic
//! Messages API and a sandbox for running the pinned Claude Code CLI against it.
//! Every test binary compiles all of this but uses only part of it.
#![allow(unreachable_pub)]
#![allow(dead_code)]

pub mod agent;
pub mod bot;
pub mod chat;
pub mod cli;
pub mod echo_bot;
pub mod fake_discord;
pub mod fake_google;
pub mod google_cli;
pub mod http;
pub mod mock_api;
pub mod power_loss;
pub mod procs;
pub mod replay;
