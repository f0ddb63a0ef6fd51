//! Skill names (SKL-2): lowercase ASCII letters, digits and hyphens, equal to the skill's
//! directory name under `skills/`. A name that could leave that directory is never looked up.

/// Why a referenced name cannot be a skill name, in words for a pending update.
pub(super) enum NameIssue {
    /// The name would reach outside `skills/` (`../x`, `/abs`, `a/b`, `.`): treated as a
    /// missing skill, never looked up (SKL-2).
    EscapesSkillsDir,
    /// The name is not of the allowed shape (reason given).
    Invalid(String),
}

/// Checks a skill name against the SKL-2 rules.
pub(super) fn check_name(name: &str) -> Result<(), NameIssue> {
    if name.contains('/') || name.contains('\\') || name == "." || name == ".." {
        return Err(NameIssue::EscapesSkillsDir);
    }
    if name.is_empty() {
        return Err(NameIssue::Invalid("the name is empty".to_owned()));
    }
    if !name
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        return Err(NameIssue::Invalid(
            "skill names use only lowercase letters, digits and hyphens".to_owned(),
        ));
    }
    Ok(())
}
