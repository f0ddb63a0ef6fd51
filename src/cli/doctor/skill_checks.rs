//! SKILLS & SUBAGENTS: each `skills/<name>/SKILL.md` and each `.claude/agents/*.md`, read by
//! the loaders the bot uses, with a WARN for a key that looks misspelt (issue 24 §4). A broken
//! one is a warning, not a failure: the bot runs without it, and only the jobs that name it
//! stop.

use super::{Check, Group, jobs::note_checks};
use crate::{
    skills::scan_skills,
    state::paths::DataDir,
    subagents::{agents_dir, load_subagents},
};

/// Every skill and subagent spec in the data dir.
pub(super) fn skill_checks(data_dir: &DataDir) -> Vec<Check> {
    let group = Group::Skills;
    let mut checks = Vec::new();
    for loaded in scan_skills(&data_dir.skills_dir()) {
        match loaded {
            Ok(skill) => {
                let shown = format!("skills/{}/SKILL.md", skill.name);
                checks.extend(note_checks(group, &shown, &skill.notes));
                checks.push(Check::pass(group, format!("{shown} loads")));
            }
            Err(problem) => checks.push(Check::warn(
                group,
                format!("{problem}: fix it, or jobs that name the skill won't run"),
            )),
        }
    }
    let (specs, errors) = load_subagents(&agents_dir(data_dir.root()));
    for spec in specs {
        let shown = spec.path.strip_prefix(data_dir.root()).map_or_else(
            |_| spec.path.display().to_string(),
            |relative| relative.display().to_string(),
        );
        checks.extend(note_checks(group, &shown, &spec.notes));
        checks.push(Check::pass(
            group,
            format!("{shown}: subagent {}", spec.name),
        ));
    }
    checks.extend(errors.into_iter().map(|error| {
        Check::warn(
            group,
            format!("{error}: fix it, or the agent can't delegate to it"),
        )
    }));
    if checks.is_empty() {
        checks.push(Check::pass(group, "no skills or subagents"));
    }
    checks
}
