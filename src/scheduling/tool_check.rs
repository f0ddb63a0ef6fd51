//! The tool patterns job files declare, checked whenever the folders are read (BOOT-10,
//! PRM-8): a refused pattern makes the file a problem reported once to the main session (the
//! job will not run until it is fixed, BGF-23); patterns the owner has not decided on are asked
//! about once, so the owner sees the question when the file appears, not only at its first fire.

use std::path::PathBuf;

use super::files::{FileProblem, JobFile, Reminder, Routine};
use crate::{
    agent::{AgentServices, FrontEnd},
    forks::background::tool_grant::{JobTools, ask_owner, judge},
    tool_policy::Source,
};

/// One job's declared tools.
struct Declared<'a> {
    source: Source,
    path: &'a PathBuf,
    tools: &'a [String],
}

/// Checks the declared tools of every job; returns the files to report as problems.
pub async fn check_job_tools(
    services: &AgentServices,
    front_end: &dyn FrontEnd,
    routines: &[JobFile<Routine>],
    reminders: &[JobFile<Reminder>],
) -> Vec<FileProblem> {
    let declared = routines
        .iter()
        .filter_map(|file| {
            Some(Declared {
                source: Source::Routine(file.item.id.clone()),
                path: &file.path,
                tools: file.item.allowed_tools.as_deref()?,
            })
        })
        .chain(reminders.iter().filter_map(|file| {
            Some(Declared {
                source: Source::Reminder(file.item.id.clone()),
                path: &file.path,
                tools: file.item.allowed_tools.as_deref()?,
            })
        }));
    let mut problems = Vec::new();
    for job in declared {
        match judge(services, &job.source, job.tools) {
            JobTools::Refused { reason } => problems.push(FileProblem {
                path: job.path.clone(),
                reason,
            }),
            JobTools::Run { undecided, .. } if !undecided.is_empty() => {
                ask_owner(services, front_end, &job.source, Some(job.path), &undecided).await;
            }
            JobTools::Run { .. } => {}
        }
    }
    problems
}
