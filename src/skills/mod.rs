//! Skills (SKL-*): folders `skills/<name>/SKILL.md` in the data dir (E.5) that the CLI
//! discovers through the `.claude/skills` link (SKL-1) and that jobs name in `skills:`.
//!
//! - [`resolve_skills`]: the skills a job references, checked at fire time (SKL-2, SKL-3);
//!   any problem means the job must not run, and each [`SkillProblem`] is one line for the
//!   pending update.
//! - [`list_skills`]: every valid skill, e.g. for the superset of tools skills may add.
//! - [`expand_dynamic_context`]: `` !`command` `` markers in a skill body replaced by the
//!   command's output (SKL-4, F-6).
//! - [`leading_command`]: the approved skill or command a job's body starts with (CTX-11).
//! - [`install_bundled_skills`]: the skills shipped with the bot (SKL-8), written into
//!   `skills/` when absent; [`is_bundled`] tells them apart for the custom-skill list (SKL-7).
//!
//! Plain Rust over the filesystem; it knows nothing of jobs, forks or the CLI.

mod bundled;
mod dynamic_context;
mod exec_surface;
mod name;
mod skill_file;
mod slash;

#[cfg(test)]
mod dynamic_context_tests;
#[cfg(test)]
mod resolve_tests;

use std::fmt;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

pub use bundled::{BUNDLED_SKILLS, install_bundled_skills, is_bundled};
pub use dynamic_context::{Limits, expand_dynamic_context};
pub use exec_surface::{ExecSurface, exec_surface};
pub use slash::leading_command;

use name::{NameIssue, check_name};
use skill_file::{SkillFileIssue, parse_skill_file};

/// The file every skill directory holds.
pub const SKILL_FILE: &str = "SKILL.md";

/// A skill that loaded: its `SKILL.md` frontmatter and body (E.5).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    /// The skill's name, equal to its directory name (SKL-2).
    pub name: String,
    /// What the skill does and when to use it. Always present for a skill that loaded
    /// (E.5 makes it required); optional in the type so callers need not care.
    pub description: Option<String>,
    /// Tools the skill adds to a background job that uses it (SKL-3); YAML list or a
    /// comma-separated string in the file, here one entry per tool pattern.
    pub allowed_tools: Vec<String>,
    /// The markdown after the frontmatter, trimmed, with `` !`command` `` markers unexpanded.
    pub body: String,
    /// The skill's directory (`skills/<name>`), for its reference files.
    pub dir: PathBuf,
    /// Frontmatter keys that look like misspellings of the CLI's skill keys (issue 24 §4).
    pub notes: Vec<String>,
}

/// Why a referenced skill cannot be used (SKL-3). `Display` is one line for the pending
/// update that explains why the job did not run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkillProblem {
    /// No `skills/<name>/SKILL.md`, or a name that would leave `skills/` (SKL-2).
    Missing {
        /// The name as the job wrote it.
        name: String,
    },
    /// The name breaks the SKL-2 rules, or `SKILL.md` names another skill.
    InvalidName {
        /// The name as the job wrote it.
        name: String,
        /// What is wrong with it.
        reason: String,
    },
    /// `SKILL.md` exists but cannot be read or is corrupt (E.5).
    Unreadable {
        /// The name as the job wrote it.
        name: String,
        /// Why it could not be used.
        reason: String,
    },
}

impl fmt::Display for SkillProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Missing { name } if check_name(name).is_ok() => {
                write!(f, "skill \"{name}\" not found (skills/{name}/{SKILL_FILE})")
            }
            Self::Missing { name } => write!(
                f,
                "skill \"{name}\" not found (a skill name can't point outside skills/)"
            ),
            Self::InvalidName { name, reason } => {
                write!(
                    f,
                    "skill \"{name}\" has an invalid name: {}",
                    one_line(reason)
                )
            }
            Self::Unreadable { name, reason } => write!(
                f,
                "skill \"{name}\" can't be used (skills/{name}/{SKILL_FILE}): {}",
                one_line(reason)
            ),
        }
    }
}

/// `text` with its line breaks turned into spaces (YAML errors can span lines).
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The skills a job references, in the order given (a repeated name counts once), or every
/// problem found (SKL-2, SKL-3). Names that would leave `skills_dir` (`../x`, `/abs`, `a/b`)
/// are reported as missing without touching the filesystem.
pub fn resolve_skills(
    skills_dir: &Path,
    names: &[String],
) -> Result<Vec<Skill>, Vec<SkillProblem>> {
    let mut skills = Vec::new();
    let mut problems = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for name in names {
        if seen.contains(&name.as_str()) {
            continue;
        }
        seen.push(name);
        match load_skill(skills_dir, name) {
            Ok(skill) => skills.push(skill),
            Err(problem) => problems.push(problem),
        }
    }
    if problems.is_empty() {
        Ok(skills)
    } else {
        Err(problems)
    }
}

/// The prompt that runs a skill the owner started by name (`/setup`, SLC-14): its body with
/// `$ARGUMENTS` filled in (`(none)` when empty), under a `[<name>]` tag. The owner's adapted
/// copy in `skills_dir` is what runs. `` !`command` `` markers are left as text: a file
/// never gets to run a command by being started this way.
pub fn skill_prompt(
    skills_dir: &Path,
    name: &str,
    arguments: &str,
) -> Result<String, SkillProblem> {
    let skill = load_skill(skills_dir, name)?;
    let arguments = arguments.trim();
    let arguments = if arguments.is_empty() {
        "(none)"
    } else {
        arguments
    };
    Ok(format!(
        "[{name}] The owner started the `{name}` skill. Follow it:\n\n{}",
        skill.body.replace("$ARGUMENTS", arguments)
    ))
}

/// Every skill in `skills_dir` that loads, sorted by name. Directories with a bad name or a
/// missing or corrupt `SKILL.md` are skipped (logged at debug level).
pub fn list_skills(skills_dir: &Path) -> Vec<Skill> {
    scan_skills(skills_dir)
        .into_iter()
        .filter_map(|loaded| match loaded {
            Ok(skill) => Some(skill),
            Err(problem) => {
                tracing::debug!(%problem, "skill skipped");
                None
            }
        })
        .collect()
}

/// Every directory in `skills_dir`, loaded or why not, sorted by directory name (`doctor`).
pub fn scan_skills(skills_dir: &Path) -> Vec<Result<Skill, SkillProblem>> {
    let Ok(entries) = fs::read_dir(skills_dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .filter(|entry| entry.path().is_dir())
        .filter_map(|entry| entry.file_name().into_string().ok())
        .collect();
    names.sort();
    names
        .iter()
        .map(|name| load_skill(skills_dir, name))
        .collect()
}

/// Loads one skill by name.
fn load_skill(skills_dir: &Path, name: &str) -> Result<Skill, SkillProblem> {
    let missing = || SkillProblem::Missing {
        name: name.to_owned(),
    };
    let dir = match check_name(name) {
        Ok(()) => skills_dir.join(name),
        Err(NameIssue::EscapesSkillsDir) => return Err(missing()),
        Err(NameIssue::Invalid(reason)) => {
            return Err(SkillProblem::InvalidName {
                name: name.to_owned(),
                reason,
            });
        }
    };
    let text = match fs::read_to_string(dir.join(SKILL_FILE)) {
        Ok(text) => text,
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
            ) =>
        {
            return Err(missing());
        }
        Err(e) => {
            return Err(SkillProblem::Unreadable {
                name: name.to_owned(),
                reason: e.to_string(),
            });
        }
    };
    parse_skill_file(&text, name, &dir).map_err(|issue| match issue {
        SkillFileIssue::BadName(reason) => SkillProblem::InvalidName {
            name: name.to_owned(),
            reason,
        },
        SkillFileIssue::Corrupt(reason) => SkillProblem::Unreadable {
            name: name.to_owned(),
            reason,
        },
    })
}
