//! Background runs — routines, reminders and (later) webhooks working in their own Claude
//! session (BGF-1…21): admission before anything starts (declared tools, skills, subagent),
//! the runner (its client is built by `agent::session_builder`), the preamble a run is given, and the dispatch that
//! implements the scheduler's `JobSink`.

pub mod admission;
pub mod job_dispatch;
pub mod preamble;
mod run_gate;
mod runner;
pub mod tool_grant;
pub mod webhook_dispatch;

pub use runner::{BgError, BgOutcome, BgRunner};
