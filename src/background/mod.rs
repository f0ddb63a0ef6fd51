//! Background runs: routines, reminders and webhook requests working in their own Claude
//! session (BGF-1…21, WHK-11). Admission before anything starts (declared tools, skills,
//! subagent; `admission`, `tool_grant`), the gate that bounds how many run at once
//! (`run_gate`), the runner (its client is built by `agent::client::session_builder`), the preamble a
//! run is given, the dispatchers that implement the scheduler's `JobSink` (`job_dispatch`)
//! and the webhook server's `HookSink` (`webhook_dispatch`), and the daily ceiling on
//! scheduled background spend (`budget`, USE-6). Reminders open until answered are the nag
//! keeper's (`nag_keeper`, its cards in `nag_card`; issue 28 §1); busy calendar events become
//! quiet time in `busy_calendar` (QUI-5).

pub mod admission;
pub mod budget;
pub mod busy_calendar;
pub mod job_dispatch;
pub mod nag_card;
pub mod nag_keeper;
pub mod preamble;
pub mod reflection;
mod run_gate;
mod runner;
pub mod tool_grant;
pub mod webhook_dispatch;

pub use runner::{BgError, BgOutcome, BgRunner};
