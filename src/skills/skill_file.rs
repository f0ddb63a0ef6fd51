//! Reading `skills/<name>/SKILL.md` (E.5): a `---` YAML frontmatter with `name`,
//! `description` and optional `allowed-tools`, then the markdown body. Other Claude Code skill
//! keys (`argument-hint`, `model`, `context`, `hooks`, …) are tolerated and left to the CLI
//! (SKL-9).

use std::path::Path;

use serde_yaml::Value;

use super::Skill;
use super::name::{NameIssue, check_name};
use crate::{domain::frontmatter_keys::typo_notes, tool_policy::split_tool_list};

/// Why a `SKILL.md` could not be used.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum SkillFileIssue {
    /// The frontmatter `name` is malformed or differs from the directory name (SKL-2).
    BadName(String),
    /// The file is corrupt (E.5): no frontmatter, bad YAML, missing or mistyped fields.
    Corrupt(String),
}

/// Parses a `SKILL.md` found in `dir`, whose directory name is `dir_name`.
pub(super) fn parse_skill_file(
    text: &str,
    dir_name: &str,
    dir: &Path,
) -> Result<Skill, SkillFileIssue> {
    let corrupt = |reason: &str| SkillFileIssue::Corrupt(reason.to_owned());
    let (yaml, body) = split_frontmatter(text).map_err(|reason| corrupt(&reason))?;
    let value: Value = serde_yaml::from_str(yaml)
        .map_err(|e| SkillFileIssue::Corrupt(format!("the frontmatter is not valid YAML: {e}")))?;
    let Value::Mapping(fields) = value else {
        return Err(corrupt("the frontmatter is not a YAML mapping"));
    };
    let text_field = |key: &str| match fields.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.trim().to_owned())),
        Some(_) => Err(SkillFileIssue::Corrupt(format!(
            "\"{key}\" must be a string"
        ))),
    };
    let name = text_field("name")?
        .filter(|n| !n.is_empty())
        .ok_or_else(|| corrupt("missing required field \"name\""))?;
    match check_name(&name) {
        Ok(()) => {}
        Err(NameIssue::Invalid(reason)) => return Err(SkillFileIssue::BadName(reason)),
        Err(NameIssue::EscapesSkillsDir) => {
            return Err(SkillFileIssue::BadName(
                "a skill name can't contain '/' or be '.' or '..'".to_owned(),
            ));
        }
    }
    if name != dir_name {
        return Err(SkillFileIssue::BadName(format!(
            "SKILL.md names it \"{name}\" but its directory is \"{dir_name}\"; they must match"
        )));
    }
    let description = text_field("description")?
        .filter(|d| !d.is_empty())
        .ok_or_else(|| corrupt("missing required field \"description\""))?;
    let allowed_tools = match fields.get("allowed-tools") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(list)) => split_tool_list(list),
        Some(Value::Sequence(items)) => items
            .iter()
            .map(|item| match item {
                Value::String(tool) if !tool.trim().is_empty() => Ok(tool.trim().to_owned()),
                _ => Err(corrupt("\"allowed-tools\" entries must be tool names")),
            })
            .collect::<Result<_, _>>()?,
        Some(_) => {
            return Err(corrupt(
                "\"allowed-tools\" must be a list or a comma-separated string",
            ));
        }
    };
    Ok(Skill {
        name,
        description: Some(description),
        allowed_tools,
        body: body.to_owned(),
        dir: dir.to_path_buf(),
        notes: typo_notes(text, &SKILL_KEYS),
    })
}

/// The `SKILL.md` frontmatter keys Claude Code documents; a key close to one of these but not
/// it is a likely typo (the CLI may honour keys not listed here, so others pass unremarked).
const SKILL_KEYS: [&str; 17] = [
    "name",
    "description",
    "allowed-tools",
    "argument-hint",
    "disable-model-invocation",
    "user-invocable",
    "when_to_use",
    "model",
    "effort",
    "context",
    "agent",
    "hooks",
    "paths",
    "shell",
    "version",
    "license",
    "metadata",
];

/// The YAML between an opening `---` first line and the next `---` line, and the trimmed
/// body after it. A leading BOM is ignored.
fn split_frontmatter(text: &str) -> Result<(&str, &str), String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    let first = lines.next().unwrap_or_default();
    if first.trim_end() != "---" {
        return Err("no YAML frontmatter: SKILL.md must start with a --- line".to_owned());
    }
    let start = first.len();
    let mut offset = start;
    for line in lines {
        if line.trim_end() == "---" {
            return Ok((&text[start..offset], text[offset + line.len()..].trim()));
        }
        offset += line.len();
    }
    Err("the frontmatter is not closed: missing the second --- line".to_owned())
}
