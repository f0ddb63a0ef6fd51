//! What the scheduler needs from the session runtime, as a small trait: run a foreground
//! prompt in the main session, run a background job, judge the tools and skills a job
//! declares, and tell the owner about a lost fire. The runtime implements it; the scheduler
//! never sees a session, a runner or a front end, and can be driven by a test double.

use std::path::Path;

use super::{
    bg_job::BgJob,
    files::{FileProblem, JobFile, Reminder, Routine},
};
use crate::{claude::BoxFuture, tool_policy::Source};

/// Where fired jobs go.
pub trait JobSink: Send + Sync {
    /// Runs `prompt` in the main session once its lock is free (RTN-3, REM-5); `chain` is the
    /// chain reminder being run, for `follow_up_chain`. `Err` says why it was lost.
    fn run_foreground(
        &self,
        prompt: String,
        chain: Option<Reminder>,
    ) -> BoxFuture<'_, Result<(), String>>;

    /// Runs a background job to its end; failures are the sink's to report (BGF-5).
    fn run_background(&self, job: BgJob) -> BoxFuture<'_, ()>;

    /// Checks the tools the loaded jobs declare (PRM-8, BGF-23): removes refused jobs from the
    /// lists and returns them as problems; asks the owner about new patterns once.
    fn check_job_tools<'a>(
        &'a self,
        routines: &'a mut Vec<JobFile<Routine>>,
        reminders: &'a mut Vec<JobFile<Reminder>>,
    ) -> BoxFuture<'a, Vec<FileProblem>>;

    /// Why a foreground job must not run, if it must not (SCH-8: a refused tool pattern or a
    /// missing skill).
    fn foreground_refusal(
        &self,
        source: &Source,
        declared: Option<&[String]>,
        skills: &[String],
    ) -> Option<String>;

    /// Tells the owner directly, e.g. that a foreground fire was lost.
    fn tell_owner(&self, text: String) -> BoxFuture<'_, ()>;
}

/// The pending-update text for a job that was not run (PUP-7).
pub fn refusal_update(source: &Source, file: Option<&Path>, reason: &str) -> String {
    let file = file.map_or_else(String::new, |f| format!(" ({})", f.display()));
    let after = match source {
        Source::Reminder(_) => "The reminder was removed; set it again once that is fixed.",
        _ => "It runs again once that is fixed.",
    };
    format!("Did not run {source}{file}: {reason}. {after}")
}
