//! Forks: interactive branches of the main session and background runs (routines, reminders,
//! webhooks), with the preamble and forward schedule those runs are given.
//!
//! - [`control`]: requests the `discord` tools leave for the session (enter / exit a fork).
//! - [`interactive`]: the interactive fork's prompts, embeds and idle check (IFK).
//! - [`background`]: the background runner, its per-run state, policy and hooks (BGF).
//! - [`preamble`], [`schedule`]: the text a background run is given (BGF-10…21).

pub mod background;
pub mod control;
pub mod interactive;
pub mod preamble;
pub mod schedule;
