//! Where the scheduler's fires go: [`JobDispatch`] implements [`JobSink`] over the main
//! session, the background runner and the front end.
//!
//! The tool patterns job files declare are checked whenever the folders are read (BOOT-10,
//! PRM-8): a file with a refused pattern is kept out of the schedule and reported once to the
//! main session, like a broken file (it runs once it is fixed, BGF-23); patterns the owner has
//! not decided on are asked about once, so the owner sees the question when the file appears,
//! not only at its first fire.

use std::{collections::HashSet, path::PathBuf, sync::Arc};

use super::{
    admission::admit_foreground,
    budget::{DailyBudget, OverBudget},
    nag_keeper::NagKeeper,
    runner::BgRunner,
    tool_grant::{JobTools, ask_owner, judge_quietly},
};
use crate::{
    agent::MainSession,
    claude::BoxFuture,
    domain::{
        job_options::{ApprovalScope, RunOptions},
        open_nag::OpenNag,
        prompt_tag::PromptTag,
    },
    front_end::FrontEnd,
    scheduling::{
        bg_job::BgJob,
        files::{FileProblem, JobFile, Reminder, Routine},
        job_sink::{BgFate, ForegroundJob, JobSink},
    },
    services::Services,
    state::tool_approvals::Decisions,
    tool_policy::Source,
};

/// The runtime side of the scheduler.
pub struct JobDispatch {
    services: Arc<Services>,
    session: Arc<MainSession>,
    runner: Arc<BgRunner>,
    front_end: Arc<dyn FrontEnd>,
    budget: Arc<DailyBudget>,
    nags: Arc<NagKeeper>,
}

impl JobDispatch {
    /// Fires into `session` (foreground) and `runner` (background), asking through
    /// `front_end`; open reminders go to `nags`.
    pub fn new(
        services: Arc<Services>,
        (session, runner): (Arc<MainSession>, Arc<BgRunner>),
        front_end: Arc<dyn FrontEnd>,
        budget: Arc<DailyBudget>,
        nags: Arc<NagKeeper>,
    ) -> Self {
        Self {
            services,
            session,
            runner,
            front_end,
            budget,
            nags,
        }
    }

    /// A background fire over today's budget (USE-6): the owner hears it once that day, and a
    /// routine's skipped fire is noted for the main conversation.
    async fn wait_for_budget(&self, job: &BgJob, over: &OverBudget) {
        tracing::debug!(tag = %job.tag, spent = over.spent, "over today's background budget; not run");
        if let PromptTag::RoutineBg(id) = &job.tag {
            let note = format!(
                "Skipped background routine {id}: today's background budget ({}) is spent.",
                over.limit()
            );
            if let Err(error) = self.services.pending.append(&note) {
                tracing::warn!(%error, "could not note the skipped routine");
            }
        }
        self.budget.tell_once(self.front_end.as_ref(), over).await;
    }
}

impl JobSink for JobDispatch {
    fn run_foreground(&self, job: ForegroundJob) -> BoxFuture<'_, Result<(), String>> {
        Box::pin(async move {
            self.session
                .scheduled(job)
                .await
                .map(|_| ())
                .map_err(|error| error.to_string())
        })
    }

    fn run_background(&self, job: BgJob) -> BoxFuture<'_, BgFate> {
        Box::pin(async move {
            if let Some(over) = self
                .budget
                .check(&self.services, self.services.clock.now())
                .await
            {
                self.wait_for_budget(&job, &over).await;
                return BgFate::OverBudget;
            }
            // Failures are reported to the owner by the runner itself (BGF-5).
            let _ = self.runner.run(job).await;
            BgFate::Ran
        })
    }

    fn check_job_tools<'a>(
        &'a self,
        routines: &'a mut Vec<JobFile<Routine>>,
        reminders: &'a mut Vec<JobFile<Reminder>>,
    ) -> BoxFuture<'a, Vec<FileProblem>> {
        Box::pin(check_job_tools(
            &self.services,
            self.front_end.as_ref(),
            routines,
            reminders,
        ))
    }

    fn admit_foreground(
        &self,
        source: &Source,
        version: &str,
        options: &RunOptions,
    ) -> Result<Vec<String>, String> {
        admit_foreground(&self.services, source, version, options)
    }

    fn open_nag(&self, nag: OpenNag) -> BoxFuture<'_, ()> {
        Box::pin(self.nags.opened(nag))
    }

    fn tell_owner(&self, text: String) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            if let Err(error) = self.front_end.send_text(text).await {
                tracing::warn!(%error, "could not tell the owner");
            }
        })
    }
}

/// One job's declared tools.
struct Declared<'a> {
    source: Source,
    path: &'a PathBuf,
    tools: &'a [String],
    scope: ApprovalScope,
}

/// Checks the declared tools of every job; removes the refused jobs from the lists and returns
/// them as problems to report.
async fn check_job_tools(
    services: &Services,
    front_end: &dyn FrontEnd,
    routines: &mut Vec<JobFile<Routine>>,
    reminders: &mut Vec<JobFile<Reminder>>,
) -> Vec<FileProblem> {
    let declared = routines
        .iter()
        .filter_map(|file| {
            Some(Declared {
                source: Source::Routine(file.item.id.clone()),
                path: &file.path,
                tools: file.item.options.tools.allowed()?,
                scope: file.item.approval_scope(),
            })
        })
        .chain(reminders.iter().filter_map(|file| {
            Some(Declared {
                source: Source::Reminder(file.item.id.clone()),
                path: &file.path,
                tools: file.item.options.tools.allowed()?,
                scope: file.item.approval_scope(),
            })
        }));
    let mut problems = Vec::new();
    // One read of the policy and the approvals for the whole pass.
    let policy = services.tool_policy.current();
    let approvals = services.tool_approvals.snapshot();
    let none = Decisions::default();
    for job in declared {
        let decisions = approvals
            .get(&job.source.to_string())
            .unwrap_or(&none)
            .at(Some(job.scope.version()));
        match judge_quietly(&policy, &decisions, job.tools) {
            JobTools::Refused { reason } => problems.push(FileProblem {
                path: job.path.clone(),
                reason,
            }),
            JobTools::Run { undecided, .. } if !undecided.is_empty() => {
                let asked = (Some(job.path.as_path()), Some(&job.scope));
                ask_owner(services, front_end, &job.source, asked, &undecided).await;
            }
            JobTools::Run { .. } => {}
        }
    }
    let refused: HashSet<PathBuf> = problems.iter().map(|p| p.path.clone()).collect();
    routines.retain(|file| !refused.contains(&file.path));
    reminders.retain(|file| !refused.contains(&file.path));
    problems
}
