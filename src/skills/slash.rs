//! A job whose body starts with a slash command (CTX-11): `/name …` or `/ollim:name …`, where
//! `name` is a skill or command the CLI loads as approved. Only those: a body starting with a
//! CLI built-in (`/clear`, `/model`) or with a name nothing approved carries stays text for
//! the model to read, never a command the CLI runs.

use std::path::Path;

use super::{SKILL_FILE, name::check_name};
use crate::state::paths::DataDir;

/// The plugin name the CLI lists approved skills and commands under (`ollim:<name>`).
const PLUGIN_PREFIX: &str = "ollim:";

/// The skill or command `body` starts with, when the CLI loads one by that name from the
/// approved plugin of `data_dir` (`DataDir::approved_skills_dir`, `approved_commands_dir`).
pub fn leading_command(body: &str, data_dir: &DataDir) -> Option<String> {
    leading_in(
        body,
        &data_dir.approved_skills_dir(),
        &data_dir.approved_commands_dir(),
    )
}

/// [`leading_command`] over a skill in `skills_dir/<name>/SKILL.md` or a command in
/// `commands_dir/<name>.md`.
fn leading_in(body: &str, skills_dir: &Path, commands_dir: &Path) -> Option<String> {
    let word = body
        .trim_start()
        .strip_prefix('/')?
        .split_whitespace()
        .next()?;
    let name = word.strip_prefix(PLUGIN_PREFIX).unwrap_or(word);
    check_name(name).ok()?;
    let loaded = skills_dir.join(name).join(SKILL_FILE).is_file()
        || commands_dir.join(format!("{name}.md")).is_file();
    loaded.then(|| name.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plugin() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("skills/weekly-review")).unwrap();
        std::fs::write(dir.path().join("skills/weekly-review/SKILL.md"), "x").unwrap();
        std::fs::create_dir_all(dir.path().join("commands")).unwrap();
        std::fs::write(dir.path().join("commands/standup.md"), "x").unwrap();
        dir
    }

    #[test]
    fn only_a_loaded_skill_or_command_leads() {
        let dir = plugin();
        let (skills, commands) = (dir.path().join("skills"), dir.path().join("commands"));
        let lead = |body: &str| leading_in(body, &skills, &commands);
        assert_eq!(
            lead("/weekly-review focus on work").as_deref(),
            Some("weekly-review")
        );
        assert_eq!(
            lead("  /ollim:weekly-review").as_deref(),
            Some("weekly-review")
        );
        assert_eq!(lead("/standup\nthen plan").as_deref(), Some("standup"));
        for body in [
            "weekly-review",
            "run /weekly-review",
            "/clear",
            "/model opus",
            "/missing-skill",
            "/../skills/weekly-review",
            "/Weekly-Review",
            "/",
            "",
        ] {
            assert_eq!(lead(body), None, "{body:?}");
        }
    }
}
