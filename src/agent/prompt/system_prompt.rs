//! The text appended to Claude Code's preset system prompt (AGT-3, SYS-*).
//!
//! The prompt is the owner's profile files (`IDENTITY.md`, `USER.md`, verbatim) followed by
//! the operational manual, whose prose lives in [`text`] as one constant per section. It is
//! rebuilt on every call so edits to the profile files apply to the next client.

use std::fmt::Write as _;
use std::fs;
use std::io;
use std::path::Path;

use tracing::warn;

use super::system_prompt_text as text;

/// File name of the persona profile in the data dir (SYS-1, SYS-2).
pub const IDENTITY_FILE: &str = "IDENTITY.md";
/// File name of the optional owner profile in the data dir (SYS-1, SYS-3).
pub const USER_FILE: &str = "USER.md";

/// Skill directories with these prefixes are generated per job and not listed (SKL-7).
const GENERATED_SKILL_PREFIXES: [&str; 3] = ["routine-", "reminder-", "webhook-"];

/// What the system prompt depends on.
#[derive(Debug, Clone, Copy)]
pub struct SystemPromptInputs<'a> {
    /// The owner's name (`OLLIM_USER_NAME`).
    pub user_name: &'a str,
    /// The bot's name (`OLLIM_BOT_NAME`).
    pub bot_name: &'a str,
    /// The configured timezone; its IANA name appears in the prompt.
    pub timezone: chrono_tz::Tz,
    /// The data dir (`~/.ollim-bot`) holding the profile files and `skills/`.
    pub data_dir: &'a Path,
    /// Whether Google is connected (a usable `state/token.json`): the Tasks, Calendar and
    /// Gmail sections appear only then; otherwise one section says it isn't (issue 14).
    pub google_connected: bool,
}

/// Operational sections in prompt order (SYS-4). Skills is handled separately because the
/// custom-skill list is appended to it.
const SECTIONS_BEFORE_SKILLS: [&str; 5] = [
    text::INTRO,
    text::CONTEXT_BUDGET,
    text::TASK_CAPTURE,
    text::OUTPUT_GUIDANCE,
    text::CONFIGURATION,
];

/// The sections that only hold while Google is connected, each with what replaces it when
/// Google is not (`None`: dropped).
const GOOGLE_SECTIONS: [(&str, Option<&str>); 4] = [
    (text::TASK_CAPTURE, Some(text::TASK_CAPTURE_NO_GOOGLE)),
    (text::GOOGLE_TASKS, Some(text::GOOGLE_NOT_CONNECTED)),
    (text::GOOGLE_CALENDAR, None),
    (text::GMAIL, None),
];

/// Operational sections after the skills section, in prompt order (SYS-4).
const SECTIONS_AFTER_SKILLS: [&str; 13] = [
    text::GOOGLE_TASKS,
    text::GOOGLE_CALENDAR,
    text::ROUTINES_REMINDERS,
    text::GUIDE,
    text::GMAIL,
    text::HISTORY,
    text::RESPONSIVENESS,
    text::USER_PROXY,
    text::EMBEDS,
    text::WEB,
    text::FORKS,
    text::BACKGROUND,
    text::WEBHOOKS,
];

/// Builds the appended system prompt (SYS-1): the contents of `IDENTITY.md` and `USER.md`
/// verbatim (no substitution; trailing whitespace trimmed; absent or blank files omitted; a
/// read failure is logged and skipped), then the operational manual with the owner name, bot
/// name, timezone and the owner's custom skills filled in. Reads the files on every call.
pub fn build_system_prompt(inputs: &SystemPromptInputs) -> String {
    let mut parts: Vec<String> = [IDENTITY_FILE, USER_FILE]
        .iter()
        .filter_map(|name| read_profile(inputs.data_dir, name))
        .collect();
    parts.push(operational_section(inputs));
    parts.join("\n\n")
}

/// The operational manual alone (SYS-4), with placeholders filled.
fn operational_section(inputs: &SystemPromptInputs) -> String {
    let mut skills = text::SKILLS.to_owned();
    let custom = custom_skills(inputs.data_dir);
    if !custom.is_empty() {
        skills.push_str("\n\n");
        skills.push_str(text::CUSTOM_SKILLS_HEADING);
        for (name, description) in &custom {
            let _ = write!(skills, "\n- `{name}`");
            if !description.is_empty() {
                let _ = write!(skills, ": {description}");
            }
        }
    }
    let sections: Vec<&str> = SECTIONS_BEFORE_SKILLS
        .iter()
        .copied()
        .chain(std::iter::once(skills.as_str()))
        .chain(SECTIONS_AFTER_SKILLS.iter().copied())
        .filter_map(|section| google_variant(section, inputs.google_connected))
        .collect();
    fill(&sections.join("\n\n"), inputs)
}

/// `section` as it stands given whether Google is connected.
fn google_variant(section: &str, connected: bool) -> Option<&str> {
    if connected {
        return Some(section);
    }
    match GOOGLE_SECTIONS
        .iter()
        .find(|(google, _)| *google == section)
    {
        Some((_, replacement)) => *replacement,
        None => Some(section),
    }
}

/// Reads one profile file; `None` when absent, unreadable or blank.
fn read_profile(data_dir: &Path, name: &str) -> Option<String> {
    let path = data_dir.join(name);
    match fs::read_to_string(&path) {
        Ok(content) if content.trim().is_empty() => None,
        Ok(content) => Some(content.trim_end().to_owned()),
        Err(err) if err.kind() == io::ErrorKind::NotFound => None,
        Err(err) => {
            warn!(path = %path.display(), error = %err, "skipping unreadable profile file");
            None
        }
    }
}

/// Replaces `{user}`, `{bot}` and `{tz}` in one pass, so substituted values are never
/// re-scanned; any other brace text is kept as written.
fn fill(template: &str, inputs: &SystemPromptInputs) -> String {
    let tz = inputs.timezone.name();
    let mut out = String::with_capacity(template.len() + 64);
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open..];
        let replacement = [
            ("{user}", inputs.user_name),
            ("{bot}", inputs.bot_name),
            ("{tz}", tz),
        ]
        .into_iter()
        .find(|(key, _)| after.starts_with(key));
        if let Some((key, value)) = replacement {
            out.push_str(value);
            rest = &after[key.len()..];
        } else {
            out.push('{');
            rest = &after[1..];
        }
    }
    out.push_str(rest);
    out
}

/// User-authored skills as `(name, description)`, sorted by name (SKL-7). Generated job
/// skills and the bundled ones installed into `skills/` (SKL-8) are excluded. Unreadable entries are
/// skipped silently (the skills subsystem reports them elsewhere).
fn custom_skills(data_dir: &Path) -> Vec<(String, String)> {
    let approved = crate::state::paths::DataDir::new(data_dir).approved_skills_dir();
    let Ok(entries) = fs::read_dir(approved) else {
        return Vec::new();
    };
    let mut skills: Vec<(String, String)> = entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let name = entry.file_name().to_str()?.to_owned();
            if GENERATED_SKILL_PREFIXES.iter().any(|p| name.starts_with(p))
                || crate::skills::is_bundled(&name)
            {
                return None;
            }
            let body = fs::read_to_string(entry.path().join("SKILL.md")).ok()?;
            Some((name, frontmatter_description(&body)))
        })
        .collect();
    skills.sort();
    skills
}

/// The single-line `description:` value of a `---` YAML frontmatter block, unquoted; empty
/// when absent.
fn frontmatter_description(body: &str) -> String {
    let mut lines = body.lines();
    if lines.next().map(str::trim_end) != Some("---") {
        return String::new();
    }
    lines
        .take_while(|line| line.trim_end() != "---")
        .find_map(|line| line.strip_prefix("description:"))
        .map(|value| {
            let value = value.trim();
            let unquoted = value
                .strip_prefix('"')
                .and_then(|v| v.strip_suffix('"'))
                .or_else(|| value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')))
                .unwrap_or(value);
            unquoted.to_owned()
        })
        .unwrap_or_default()
}

/// The `IDENTITY.md` written on first start (SYS-2), with the owner's name baked in.
pub fn identity_template(user_name: &str) -> String {
    text::IDENTITY_TEMPLATE.replace("{user}", user_name)
}

/// Writes `IDENTITY.md` from [`identity_template`] unless the file already exists (SYS-2).
/// Returns whether it wrote the file. Never overwrites, even if the existing file is empty.
pub fn bootstrap_identity(data_dir: &Path, user_name: &str) -> io::Result<bool> {
    let path = data_dir.join(IDENTITY_FILE);
    match fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
    {
        Ok(mut file) => {
            io::Write::write_all(&mut file, identity_template(user_name).as_bytes())?;
            Ok(true)
        }
        Err(err) if err.kind() == io::ErrorKind::AlreadyExists => Ok(false),
        Err(err) => Err(err),
    }
}

#[cfg(test)]
#[path = "system_prompt_tests.rs"]
mod tests;
