//! What a job may start with, decided before any client exists (SCH-8): its declared tools
//! (BGF-23, PRM-8), its skills (SKL-2, SKL-3) and their tools, and its subagent (BGF-21). A
//! problem stops the job and the owner hears why through a pending update (PUP-7); tools the
//! owner has not approved are held back and asked about once.

use std::path::{Path, PathBuf};

use super::tool_grant::{JobTools, ask_owner, judge, source_of};
use crate::{
    domain::job_options::{ApprovalScope, RunOptions, ToolRestriction},
    front_end::FrontEnd,
    scheduling::{bg_job::BgJob, job_sink::refusal_update},
    services::Services,
    skills::{SKILL_FILE, SkillProblem, resolve_skills},
    subagents::{agents_dir, load_subagents, split_by_template},
    tool_policy::{Source, check_all},
};

/// The tools a job starts with beyond the defaults.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Admitted {
    /// Declared by the job, its skills or its subagent, and granted.
    pub granted: Vec<String>,
    /// Declared but withheld (denied, or waiting for the owner).
    pub held: Vec<String>,
}

/// Admits `job` or says why it must not run (the owner has been told). The job's declared
/// restriction is narrowed to the granted patterns, so the preamble lists what it really has.
pub async fn admit(
    services: &Services,
    front_end: &dyn FrontEnd,
    job: &mut BgJob,
) -> Result<Admitted, String> {
    let source = source_of(&job.tag).unwrap_or(Source::Main);
    let file = job.file.clone();
    let scope = job.approval.clone();
    let mut admitted = Admitted::default();
    if let ToolRestriction::Allowed(declared) = &job.options.tools {
        let (granted, held) = match decide(
            services,
            front_end,
            &source,
            (file.as_deref(), scope.as_ref()),
            declared,
        )
        .await
        {
            Ok(split) => split,
            Err(reason) => return Err(refuse(services, &source, file.as_deref(), reason)),
        };
        job.options.tools = ToolRestriction::Allowed(granted.clone());
        admitted.granted.extend(granted);
        admitted.held.extend(held);
    }
    if let Err(reason) = check_skills(services, front_end, &job.options.skills, &mut admitted).await
    {
        return Err(refuse(services, &source, file.as_deref(), reason));
    }
    if let Some(name) = job.options.subagent.as_deref()
        && let Err(reason) = check_subagent(services, front_end, name, &mut admitted).await
    {
        return Err(refuse(services, &source, file.as_deref(), reason));
    }
    Ok(admitted)
}

/// A bound subagent must exist (BGF-21); its tools are the run's too, since its tool calls
/// pass the run's guards: the bundled template's tools as shipped, anything an edit added as
/// source `subagent:<name>`.
async fn check_subagent(
    services: &Services,
    front_end: &dyn FrontEnd,
    name: &str,
    admitted: &mut Admitted,
) -> Result<(), String> {
    let agents_dir = agents_dir(services.data_dir.root());
    let (specs, _) = load_subagents(&agents_dir);
    let Some(spec) = specs.into_iter().find(|spec| spec.name == name) else {
        return Err(format!(
            "unknown subagent '{name}' (no .claude/agents/{name}.md)"
        ));
    };
    let (shipped, added) = split_by_template(name, spec.tools);
    admitted.granted.extend(check_all(&shipped).usable);
    let file = spec
        .path
        .strip_prefix(services.data_dir.root())
        .map(Path::to_path_buf)
        .unwrap_or(spec.path.clone());
    let source = Source::Subagent(name.to_owned());
    let (granted, held) = decide(services, front_end, &source, (Some(&file), None), &added).await?;
    admitted.granted.extend(granted);
    admitted.held.extend(held);
    Ok(())
}

/// The declared tools `version` of a foreground job is granted for its turn (issue 23 §4), or
/// why it must not run (SCH-8): a refused tool pattern or a missing skill. The caller tells
/// the owner. Undecided patterns were asked about when the file was read, and are withheld
/// until then. (`subagent` is a background-only field.)
pub fn admit_foreground(
    services: &Services,
    source: &Source,
    version: &str,
    options: &RunOptions,
) -> Result<Vec<String>, String> {
    let granted = match options.tools.allowed() {
        Some(declared) => match judge(services, source, Some(version), declared) {
            JobTools::Refused { reason } => return Err(reason),
            JobTools::Run { granted, .. } => granted,
        },
        None => Vec::new(),
    };
    resolve_skills(&services.data_dir.approved_skills_dir(), &options.skills)
        .map_err(|problems| skill_problems(services, &problems))?;
    Ok(granted)
}

async fn check_skills(
    services: &Services,
    front_end: &dyn FrontEnd,
    names: &[String],
    admitted: &mut Admitted,
) -> Result<(), String> {
    if names.is_empty() {
        return Ok(());
    }
    let skills = resolve_skills(&services.data_dir.approved_skills_dir(), names)
        .map_err(|problems| skill_problems(services, &problems))?;
    for skill in skills.iter().filter(|s| !s.allowed_tools.is_empty()) {
        let file = PathBuf::from("skills").join(&skill.name).join(SKILL_FILE);
        let source = Source::Skill(skill.name.clone());
        let (granted, held) = decide(
            services,
            front_end,
            &source,
            (Some(&file), None),
            &skill.allowed_tools,
        )
        .await?;
        admitted.granted.extend(granted);
        admitted.held.extend(held);
    }
    Ok(())
}

/// One line for the owner; a skill that is only a draft (not approved yet, or edited since)
/// says so and how to approve it (issue 23 §2).
fn skill_problems(services: &Services, problems: &[SkillProblem]) -> String {
    let lines: Vec<String> = problems
        .iter()
        .map(|problem| match problem {
            SkillProblem::Missing { name }
                if !name.contains(['/', '.'])
                    && services
                        .data_dir
                        .skills_dir()
                        .join(name)
                        .join(SKILL_FILE)
                        .is_file() =>
            {
                format!(
                    "skill \"{name}\" waits for your approval (`ollim-bot approve skills/{name}`, \
                     or the button in Discord)"
                )
            }
            other => other.to_string(),
        })
        .collect();
    lines.join("; ")
}

/// Judges one source's declared patterns, asking the owner about new ones.
async fn decide(
    services: &Services,
    front_end: &dyn FrontEnd,
    source: &Source,
    (file, scope): (Option<&Path>, Option<&ApprovalScope>),
    declared: &[String],
) -> Result<(Vec<String>, Vec<String>), String> {
    match judge(
        services,
        source,
        scope.map(ApprovalScope::version),
        declared,
    ) {
        JobTools::Refused { reason } => Err(format!("{source}: {reason}")),
        JobTools::Run {
            granted,
            held,
            undecided,
        } => {
            if !undecided.is_empty() {
                ask_owner(services, front_end, source, (file, scope), &undecided).await;
            }
            Ok((granted, held))
        }
    }
}

fn refuse(services: &Services, source: &Source, file: Option<&Path>, reason: String) -> String {
    if let Source::Webhook(id) = source {
        // The line the webhook rows give (WHK-13, BGF-21).
        tracing::error!("Webhook {id}: {reason}, skipping");
    } else {
        tracing::error!(%source, "{reason}; the job is not run");
    }
    let update = refusal_update(source, file, &reason);
    if let Err(error) = services.pending.append(&update) {
        tracing::warn!(%error, "could not queue a pending update");
    }
    reason
}
