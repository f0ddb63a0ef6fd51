//! What the owner's approval of a routine's or reminder's tools covers (issue 39 §4, BOX-7):
//! the whole file but its `id` and `description` (a label for lists, which changes nothing the
//! job does) — its instructions, run mode, schedule, options, chain, `until-done` and, for a
//! reminder, who set it.

use std::fmt::Write as _;

use super::{Reminder, Routine, SetBy, UntilDone};
use crate::domain::job_options::{ApprovalScope, Schedule, Setting, chain_settings};

impl Routine {
    /// The scope and version the owner's tool approvals of this routine hold for.
    pub fn approval_scope(&self) -> ApprovalScope {
        ApprovalScope::new(
            &self.message,
            (self.run, Schedule::Cron(&self.cron)),
            &self.options,
            vec![until_done_setting(self.until_done)],
        )
    }
}

impl Reminder {
    /// The scope and version the owner's tool approvals of this reminder hold for.
    pub fn approval_scope(&self) -> ApprovalScope {
        let mut extra = chain_settings(
            self.chain_depth,
            self.max_chain,
            self.chain_parent.as_deref(),
        );
        extra.push(until_done_setting(self.until_done));
        // Who set it decides what it may cancel and schedule (REM-15).
        extra.push(Setting::new(
            "set-by",
            format!(
                "{}, generation {}",
                self.set_by.describe(),
                self.set_by.generation()
            ),
            self.set_by != SetBy::Owner,
        ));
        ApprovalScope::new(
            &self.message,
            (self.run, Schedule::At(self.run_at)),
            &self.options,
            extra,
        )
    }
}

/// `until-done` with its nag timing (NAG-1), named when the job stays open.
fn until_done_setting(until_done: Option<UntilDone>) -> Setting {
    let Some(until_done) = until_done else {
        return Setting::new("until-done", "false", false);
    };
    let mut value = "true".to_owned();
    if let Some(every) = until_done.nag_every {
        let _ = write!(value, ", nag-every {} s", every.as_secs());
    }
    if let Some(max) = until_done.max_nags {
        let _ = write!(value, ", max-nags {max}");
    }
    Setting::new("until-done", value, true)
}
