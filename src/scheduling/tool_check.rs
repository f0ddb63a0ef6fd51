//! The tool patterns job files declare, checked whenever the folders are read (BOOT-10,
//! PRM-8): a file with a refused pattern is kept out of the schedule and reported once to the
//! main session, like a broken file (it runs once it is fixed, BGF-23); patterns the owner has
//! not decided on are asked about once, so the owner sees the question when the file appears,
//! not only at its first fire.

use std::{collections::HashSet, path::PathBuf};

use super::files::{FileProblem, JobFile, Reminder, Routine};
use crate::{
    agent::{AgentServices, FrontEnd},
    forks::background::tool_grant::{JobTools, ask_owner, judge_quietly},
    tool_policy::Source,
};

/// One job's declared tools.
struct Declared<'a> {
    source: Source,
    path: &'a PathBuf,
    tools: &'a [String],
}

/// Checks the declared tools of every job; removes the refused jobs from the lists and returns
/// them as problems to report.
pub async fn check_job_tools(
    services: &AgentServices,
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
        match judge_quietly(services, &job.source, job.tools) {
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
    let refused: HashSet<PathBuf> = problems.iter().map(|p| p.path.clone()).collect();
    routines.retain(|file| !refused.contains(&file.path));
    reminders.retain(|file| !refused.contains(&file.path));
    problems
}
