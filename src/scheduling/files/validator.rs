//! The routine write validator (HKS-4, RTN-9): what a routine file would look like after the
//! agent's Write or Edit, judged before it lands.
//!
//! A file the scheduler could never run is refused: no frontmatter, YAML that does not close
//! or parse, no `id`, no `cron`, or a `cron` that is not a valid five-field expression. Other
//! doubts are warnings the agent reads while the write goes through: no `description` or
//! `background`, unscoped `Bash`/`Write`/`Edit`/`MultiEdit` tools, delegation (`Task`/`Agent`)
//! next to unscoped writes, legacy `snake_case` or unknown keys, files over 200 lines, and any
//! other reason [`parse_routine`] would skip the file.

use super::keys::ROUTINE_KEYS;
use super::parse_routine;
use crate::domain::frontmatter::{Fields, split};
use crate::domain::frontmatter_keys::written_keys;
use crate::scheduling::cron::{CronError, CronSchedule};

/// Every denial reason starts with this (HKS-4).
pub const VALIDATOR_PREFIX: &str = "routine-validator:";
/// Files longer than this many lines get a warning (HKS-4 constants table).
pub const LONG_ROUTINE_LINES: usize = 200;

/// The validator's judgement on a routine file's new content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RoutineVerdict {
    /// Refuse the write; the reason starts with [`VALIDATOR_PREFIX`].
    Deny(String),
    /// Let the write through and tell the agent these things.
    Warn(Vec<String>),
    /// Nothing to say.
    Clean,
}

/// Judges `content`, the full text a routine file would have after the write (HKS-4).
pub fn validate_routine_write(content: &str) -> RoutineVerdict {
    match check(content) {
        Err(reason) => RoutineVerdict::Deny(format!("{VALIDATOR_PREFIX} {reason}")),
        Ok(warnings) if warnings.is_empty() => RoutineVerdict::Clean,
        Ok(warnings) => RoutineVerdict::Warn(warnings),
    }
}

/// The warnings for `content`, or the reason to refuse it.
fn check(content: &str) -> Result<Vec<String>, String> {
    let (yaml, _) = split(content)?;
    let fields = Fields::parse(yaml, &["id", "cron"])?;
    let id = fields.required_text("id")?;
    if id.trim().is_empty() {
        return Err("\"id\" must not be empty".to_owned());
    }
    let cron = fields.required_text("cron")?;
    match CronSchedule::parse(&cron) {
        Ok(_) => {}
        Err(CronError::FieldCount { found }) => {
            return Err(format!(
                "cron must have exactly 5 fields (minute hour day month weekday); \
                 \"{cron}\" has {found}"
            ));
        }
        Err(error) => return Err(error.to_string()),
    }

    let keys = written_keys(yaml);
    let mut warnings = key_warnings(&keys);
    let present = |key: &str| keys.iter().any(|k| k.replace('_', "-") == key);
    if !present("description") {
        warnings.push(
            "no description: add a one-line \"description\" so lists and schedules can name it"
                .to_owned(),
        );
    }
    if !present("background") {
        warnings.push(
            "no background: it defaults to false (runs in the main conversation); \
             write background: true or false explicitly"
                .to_owned(),
        );
    }
    if let Ok(Some(tools)) = fields.list("allowed-tools") {
        warnings.extend(tool_warnings(&tools));
    }
    let lines = content.lines().count();
    if lines > LONG_ROUTINE_LINES {
        warnings.push(format!(
            "the file has {lines} lines (over {LONG_ROUTINE_LINES}): keep the prompt short \
             and move reference material into a skill"
        ));
    }
    if let Err(reason) = parse_routine(content) {
        warnings.push(format!(
            "the scheduler will skip this file until it is fixed: {reason}"
        ));
    }
    Ok(warnings)
}

/// Legacy `snake_case` spellings of known keys, and keys the routine format does not have.
fn key_warnings(keys: &[String]) -> Vec<String> {
    let mut warnings = Vec::new();
    for key in keys {
        let kebab = key.replace('_', "-");
        let known = ROUTINE_KEYS.contains(&kebab);
        if known && kebab != *key {
            warnings.push(format!("\"{key}\" is the old spelling: write \"{kebab}\""));
        } else if !known {
            warnings.push(format!(
                "unknown key \"{key}\" is ignored (see routine-reminder-spec.md)"
            ));
        }
    }
    warnings
}

/// Unscoped shell and write tools, and delegation next to unscoped writes.
fn tool_warnings(tools: &[String]) -> Vec<String> {
    let mut warnings = Vec::new();
    let mut unscoped_writes = false;
    let mut delegation = None;
    for tool in tools {
        let (name, specifier) = split_tool(tool);
        let unscoped = specifier.is_none_or(|s| s.chars().all(|c| matches!(c, '*' | '/' | '.')));
        match name {
            "Bash" if unscoped => warnings.push(format!(
                "\"{tool}\" in allowed-tools lets the run execute any command: name the \
                 command, e.g. Bash(ollim-bot history *)"
            )),
            "Write" | "Edit" | "MultiEdit" if unscoped => {
                unscoped_writes = true;
                warnings.push(format!(
                    "\"{tool}\" in allowed-tools lets the run change any file: limit it to a \
                     path, e.g. {name}(./notes/**)"
                ));
            }
            "Task" | "Agent" => delegation = Some(name),
            _ => {}
        }
    }
    if let (Some(delegate), true) = (delegation, unscoped_writes) {
        warnings.push(format!(
            "\"{delegate}\" delegates work while writes are unscoped: a helper could change \
             any file; scope Write/Edit to a path"
        ));
    }
    warnings
}

/// `Bash(git log *)` → (`Bash`, `Some("git log *")`); `Read` → (`Read`, `None`).
fn split_tool(tool: &str) -> (&str, Option<&str>) {
    let tool = tool.trim();
    match tool.split_once('(') {
        Some((name, rest)) => (
            name.trim(),
            Some(rest.strip_suffix(')').unwrap_or(rest).trim()),
        ),
        None => (tool, None),
    }
}
