//! Background runs: one runner for routines, reminders and webhooks (BGF-1…21).

pub mod admission;
mod job;
mod policy;
mod run_state;
mod runner;
pub mod tool_grant;

pub use job::{BgJob, BgMode};
pub use policy::{BgPolicy, bg_allowed_tools};
pub use run_state::{
    ALREADY_PINGED, BUDGET_EXHAUSTED, BgRunState, OWNER_BUSY, PINGS_DISABLED, PingPermit,
    REPORTING_DISABLED,
};
pub use runner::{BgError, BgOutcome, BgRunner};
