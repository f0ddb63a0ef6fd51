//! Skills shipped with the bot (SKL-8).
//!
//! Claude Code finds skills in `.claude/skills` (here a link to the owner's `skills/`, SKL-1),
//! in `~/.claude/skills` and in plugins. A plugin (`--plugin-dir`) would keep bundled skills
//! out of `skills/` but renames them `<plugin>:<skill>`, and `~/.claude/skills` belongs to
//! the owner's other projects; so bundled skills are written into `skills/` when absent
//! (never overwritten: the owner may adapt them; only an unedited copy of a [`RETIRED`]
//! version is brought up to date) and are left out of the system prompt's custom-skill list by
//! [`is_bundled`] (SKL-7).

use std::fs;
use std::io;
use std::path::Path;

use super::SKILL_FILE;
use crate::state::{StateError, atomic::write_atomic};

/// Name and `SKILL.md` text of every bundled skill.
pub const BUNDLED_SKILLS: &[(&str, &str)] = &[
    ("job-config", include_str!("bundled/job-config.md")),
    ("setup", include_str!("bundled/setup.md")),
    (
        "improve-routine",
        include_str!("bundled/improve-routine.md"),
    ),
];

/// Earlier versions of bundled skills: an installed `SKILL.md` that is exactly one of them was
/// never edited, so the current text replaces it (`job-config` once suggested Google commands
/// in Bash, which a background run can no longer use; then it didn't say how a job reaches a
/// host on the web, which a background run's network needs, issue 39 §3; `setup` pointed at
/// the README's Google section, which moved to `docs/google.md`, issue 44).
const RETIRED: &[(&str, &str)] = &[
    ("setup", include_str!("bundled/retired/setup.md")),
    ("job-config", include_str!("bundled/retired/job-config.md")),
    (
        "job-config",
        include_str!("bundled/retired/job-config-2.md"),
    ),
];

/// Whether `name` is one of the [`BUNDLED_SKILLS`].
pub fn is_bundled(name: &str) -> bool {
    BUNDLED_SKILLS.iter().any(|(bundled, _)| *bundled == name)
}

/// Writes each bundled skill to `skills_dir/<name>/SKILL.md` unless that file already exists
/// (an unedited copy of a [`RETIRED`] version is replaced). Returns the names written.
pub fn install_bundled_skills(skills_dir: &Path) -> Result<Vec<&'static str>, StateError> {
    let mut installed = Vec::new();
    for (name, text) in BUNDLED_SKILLS {
        let dir = skills_dir.join(name);
        let path = dir.join(SKILL_FILE);
        match fs::symlink_metadata(&path) {
            Ok(meta) if !(meta.is_file() && is_retired_copy(&path, name)) => continue,
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(StateError::io(&path, e)),
        }
        fs::create_dir_all(&dir).map_err(|e| StateError::io(&dir, e))?;
        write_atomic(&path, text.as_bytes())?;
        tracing::info!(skill = name, "installed bundled skill");
        installed.push(*name);
    }
    Ok(installed)
}

/// Whether the file at `path` is a [`RETIRED`] version of the bundled skill `name`.
fn is_retired_copy(path: &Path, name: &str) -> bool {
    fs::read_to_string(path).is_ok_and(|installed| {
        RETIRED
            .iter()
            .any(|(retired, text)| *retired == name && installed == *text)
    })
}
