//! What the agent's work costs (issue 27, USE-1…): one record per finished turn or run of
//! every session kind, appended to a ledger of monthly files under `state/usage/`, and the
//! sums the owner sees (`/cost`, `ollim-bot usage`) and the background budget counts.
//!
//! - [`record`]: one record and the kinds of work it can be about.
//! - [`ledger`]: appending and reading the monthly files.
//! - [`summary`]: totals over a window, by kind, job, model or day, with injected time;
//!   [`report`]: what `/cost` says from them.
//! - [`chart`]: a PNG of daily spend by kind, drawn in-process (USE-5).
//! - [`writer`]: the owned task that appends records off the turn's path.

pub mod chart;
pub mod ledger;
pub mod record;
pub mod report;
pub mod summary;
pub mod writer;

pub use ledger::{LedgerError, UsageLedger};
pub use record::{UsageKind, UsageRecord};
pub use summary::{Summary, Totals};
pub use writer::{UsageWorker, UsageWriter};
