//! Scheduling: routines and reminders as markdown files, cron maths, and the scheduler that
//! fires them in the main session or as background runs.
//!
//! - [`files`]: the file formats (E.0–E.2), loading, writing and removal with git commits.
//! - [`cron`]: cron schedules in the owner's zone, DST-correct.
//! - [`registry`]: what is registered and what is due (no I/O).
//! - [`scheduler`]: the loop that syncs the folders and fires jobs.
//! - [`jobs`], [`chain`], [`missed`]: what a fire sends, reminder chains, missed-fire reports.
//! - [`lineage`]: how far background runs may cancel and schedule reminders (issue 39 §4).

pub mod bg_job;
pub mod chain;
pub mod cron;
pub mod due_time;
pub mod files;
pub mod forward;
pub mod job_sink;
pub mod jobs;
pub mod lineage;
pub mod missed;
mod persistent_guard;
pub mod registry;
pub mod scheduler;

pub use scheduler::Scheduler;
