//! What the scheduler needs from the session runtime, as a small trait: run a foreground
//! prompt in the main session, run a background job, judge the tools and skills a job
//! declares, and tell the owner about a lost fire. The runtime implements it; the scheduler
//! never sees a session, a runner or a front end, and can be driven by a test double.

use std::path::Path;

use super::{
    bg_job::BgJob,
    files::{FileProblem, JobFile, Reminder, Routine},
};
use crate::{
    claude::BoxFuture,
    domain::{job_options::RunOptions, open_nag::OpenNag},
    tool_policy::Source,
};

/// Where fired jobs go.
pub trait JobSink: Send + Sync {
    /// Runs a foreground job's prompt in the main session once its lock is free (RTN-3,
    /// REM-5). `Err` says why it was lost.
    fn run_foreground(&self, job: ForegroundJob) -> BoxFuture<'_, Result<(), String>>;

    /// Runs a background job to its end; failures are the sink's to report (BGF-5). Says
    /// whether it ran or waits for the next day's budget (USE-6).
    fn run_background(&self, job: BgJob) -> BoxFuture<'_, BgFate>;

    /// Checks the tools the loaded jobs declare (PRM-8, BGF-23): removes refused jobs from the
    /// lists and returns them as problems; asks the owner about new patterns once.
    fn check_job_tools<'a>(
        &'a self,
        routines: &'a mut Vec<JobFile<Routine>>,
        reminders: &'a mut Vec<JobFile<Reminder>>,
    ) -> BoxFuture<'a, Vec<FileProblem>>;

    /// The declared tools a foreground job's turn is granted (only that turn, issue 23 §4), or
    /// why the job must not run (SCH-8: a refused tool pattern or a missing skill). `version`
    /// is the job's version, which the owner's approvals are keyed by.
    fn admit_foreground(
        &self,
        source: &Source,
        version: &str,
        options: &RunOptions,
    ) -> Result<Vec<String>, String>;

    /// Tells the owner directly, e.g. that a foreground fire was lost.
    fn tell_owner(&self, text: String) -> BoxFuture<'_, ()>;

    /// A job that stays open until answered fired: keep `nag` and show its first card
    /// (NAG-4).
    fn open_nag(&self, nag: OpenNag) -> BoxFuture<'_, ()>;
}

/// What became of a background fire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BgFate {
    /// It ran (or failed, and the owner was told).
    Ran,
    /// Today's background budget is spent: nothing ran; a reminder keeps its file and fires
    /// after the reset (USE-6).
    OverBudget,
}

/// A foreground fire, ready for the main session.
#[derive(Debug, Clone)]
pub struct ForegroundJob {
    /// The prompt the main session gets.
    pub prompt: JobPrompt,
    /// The chain reminder being run, for `follow_up_chain` (REM-8).
    pub chain: Option<Reminder>,
    /// The declared tools the owner granted this job: allowed during its turn only, never to
    /// the main session's other turns (issue 23 §4).
    pub granted: Vec<String>,
}

/// A foreground job's prompt (RTN-3, REM-5): the text that follows the time stamp and the
/// updates, and the slash command that goes before them all (CTX-11).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct JobPrompt {
    /// The job's body when it starts with an approved skill or command, for the CLI to run.
    pub lead: Option<String>,
    /// The tag, markers, skills and chain context, and the body unless it leads.
    pub text: String,
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
