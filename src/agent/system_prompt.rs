//! The text appended to Claude Code's preset system prompt (AGT-3, SYS-*).
//!
//! The prompt is the owner's profile files (`IDENTITY.md`, `USER.md`, verbatim) followed by
//! the operational manual, whose prose lives in [`text`] as one constant per section. It is
//! rebuilt on every call so edits to the profile files apply to the next client.

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
            skills.push_str(&format!("\n- `{name}`"));
            if !description.is_empty() {
                skills.push_str(&format!(": {description}"));
            }
        }
    }
    let sections: Vec<&str> = SECTIONS_BEFORE_SKILLS
        .iter()
        .copied()
        .chain(std::iter::once(skills.as_str()))
        .chain(SECTIONS_AFTER_SKILLS.iter().copied())
        .collect();
    fill(&sections.join("\n\n"), inputs)
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
        match replacement {
            Some((key, value)) => {
                out.push_str(value);
                rest = &after[key.len()..];
            }
            None => {
                out.push('{');
                rest = &after[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// User-authored skills as `(name, description)`, sorted by name (SKL-7). Generated job
/// skills are excluded; bundled skills never live in `skills/`. Unreadable entries are
/// skipped silently (the skills subsystem reports them elsewhere).
fn custom_skills(data_dir: &Path) -> Vec<(String, String)> {
    let Ok(entries) = fs::read_dir(data_dir.join("skills")) else {
        return Vec::new();
    };
    let mut skills: Vec<(String, String)> = entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let name = entry.file_name().to_str()?.to_owned();
            if GENERATED_SKILL_PREFIXES.iter().any(|p| name.starts_with(p)) {
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
mod tests {
    use super::*;

    /// A fresh, empty directory under the system temp dir, removed on drop.
    struct TempDir(std::path::PathBuf);

    impl TempDir {
        fn new(tag: &str) -> Self {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or_default();
            let dir = std::env::temp_dir().join(format!(
                "ollim-sysprompt-{tag}-{}-{nanos}",
                std::process::id()
            ));
            fs::create_dir_all(&dir).expect("create temp dir");
            TempDir(dir)
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    fn inputs(dir: &Path) -> SystemPromptInputs<'_> {
        SystemPromptInputs {
            user_name: "Julia",
            bot_name: "ollim",
            timezone: chrono_tz::Europe::Berlin,
            data_dir: dir,
        }
    }

    const HEADINGS: &str = "# Operating manual | ## Context budget | ## Capturing tasks | ## Shaping answers | \
        ## Configuration notes | ## Skills | ## Google Tasks | ## Google Calendar | \
        ## Routines & reminders | ## Questions about ollim-bot | ## Gmail | ## Claude history | \
        ## Responsiveness | ## User proxy | ## Discord embeds | ## Web & docs | \
        ## Interactive forks | ## Background sessions | ## Webhooks";

    #[test]
    fn headings_in_order() {
        let dir = TempDir::new("order");
        let prompt = build_system_prompt(&inputs(&dir.0));
        let found: Vec<&str> = prompt.lines().filter(|l| l.starts_with('#')).collect();
        assert_eq!(found, HEADINGS.split(" | ").collect::<Vec<_>>());
    }

    #[test]
    fn profiles_first_and_verbatim() {
        let dir = TempDir::new("profiles");
        let identity = "# Me\nI am {user}'s helper, *verbatim*.";
        let user = "Julia likes tea.\nWorks nights.";
        fs::write(dir.0.join(IDENTITY_FILE), identity).expect("write identity");
        fs::write(dir.0.join(USER_FILE), format!("{user}\n\n")).expect("write user");
        let prompt = build_system_prompt(&inputs(&dir.0));
        let expected_start = format!("{identity}\n\n{user}\n\n# Operating manual\n");
        assert!(prompt.starts_with(&expected_start), "{prompt}");
        // Profile text is not substituted.
        assert!(prompt.contains("I am {user}'s helper"));
    }

    #[test]
    fn user_profile_alone_and_blank_identity_skipped() {
        let dir = TempDir::new("useronly");
        fs::write(dir.0.join(IDENTITY_FILE), "  \n").expect("write identity");
        fs::write(dir.0.join(USER_FILE), "About Julia").expect("write user");
        let prompt = build_system_prompt(&inputs(&dir.0));
        assert!(
            prompt.starts_with("About Julia\n\n# Operating manual"),
            "{prompt}"
        );
    }

    #[test]
    fn unreadable_profile_is_skipped() {
        let dir = TempDir::new("unreadable");
        // A directory in place of the file makes the read fail with something other than
        // NotFound.
        fs::create_dir(dir.0.join(IDENTITY_FILE)).expect("mkdir");
        let prompt = build_system_prompt(&inputs(&dir.0));
        assert!(prompt.starts_with("# Operating manual"), "{prompt}");
    }

    #[test]
    fn names_and_timezone_substituted() {
        let dir = TempDir::new("subst");
        let prompt = build_system_prompt(&inputs(&dir.0));
        assert!(prompt.contains("You are ollim, the assistant Julia talks to"));
        assert!(prompt.contains("Times are read and written in Europe/Berlin."));
        assert!(
            !prompt.contains("{user}") && !prompt.contains("{bot}") && !prompt.contains("{tz}")
        );
        // Unknown placeholders survive.
        assert!(prompt.contains("`{field}` placeholders"));
    }

    #[test]
    fn fill_is_single_pass() {
        let dir = TempDir::new("fill");
        let tricky = SystemPromptInputs {
            user_name: "{tz}",
            ..inputs(&dir.0)
        };
        assert_eq!(
            fill("{user} in {tz} {x}", &tricky),
            "{tz} in Europe/Berlin {x}"
        );
    }

    /// Literal commands, tool names and markers the prompt must mention (SYS-4 .. SYS-13).
    const REQUIRED_MARKERS: &str = "`ollim-bot tasks list [--all]` | `ollim-bot cal upcoming [--days N]` | \
        `ollim-bot reminder add --delay <min> -m \"<text>\"` | --background | --foreground | \
        --max-chain <N> | `ollim-bot reminder list` | `ollim-bot reminder cancel <id>` | \
        `add_reminder` | `list_reminders` | `cancel_reminder` | routine-reminder-spec.md | \
        follow_up_chain(minutes_from_now=N) | job-config | gmail-reader | history-reviewer | \
        responsiveness-reviewer | ollim-bot-guide | user-proxy | `task_done:<id>` | \
        `task_del:<id>` | `event_del:<id>` | `agent:<prompt>` | `dismiss` | save_context | \
        report_updates | exit_fork | [fork-timeout] | [routine-bg:ID] | [reminder-bg:ID] | \
        [webhook:ID] | [button] | [system] | Notion | Slack | Trello | uv run | `always` | \
        `on_ping` | `freely` | `blocked` | allow-ping: false | webhook-spec.md | docs.ollim.ai";

    #[test]
    fn required_markers_present() {
        let dir = TempDir::new("markers");
        let prompt = build_system_prompt(&inputs(&dir.0));
        for needle in REQUIRED_MARKERS.split(" | ") {
            assert!(prompt.contains(needle), "missing {needle}");
        }
    }

    #[test]
    fn custom_skills_listed_without_generated_ones() {
        let dir = TempDir::new("skills");
        let skills = dir.0.join("skills");
        for (name, body) in [
            (
                "weekly-plan",
                "---\nname: weekly-plan\ndescription: \"Plan the week\"\n---\nbody",
            ),
            ("routine-abc", "---\ndescription: generated\n---\n"),
            ("bare", "no frontmatter"),
        ] {
            fs::create_dir_all(skills.join(name)).expect("mkdir skill");
            fs::write(skills.join(name).join("SKILL.md"), body).expect("write skill");
        }
        fs::create_dir_all(skills.join("empty-dir")).expect("mkdir");
        let prompt = build_system_prompt(&inputs(&dir.0));
        assert!(
            prompt.contains(
                "Custom skills:\n- `bare`\n- `weekly-plan`: Plan the week\n\n## Google Tasks"
            ),
            "{prompt}"
        );
        assert!(!prompt.contains("routine-abc"));
        assert!(!prompt.contains("empty-dir"));
        let bare = TempDir::new("noskills");
        assert!(!build_system_prompt(&inputs(&bare.0)).contains("Custom skills:"));
    }

    #[test]
    fn identity_template_contents() {
        let identity = identity_template("Julia");
        assert!(identity.contains("Julia's personal assistant"));
        assert!(!identity.contains("{user}"));
        for pronoun in [" he ", " she ", " his ", " her ", " him "] {
            assert!(
                !identity.to_lowercase().contains(pronoun),
                "gendered: {pronoun}"
            );
        }
    }

    #[test]
    fn bootstrap_writes_once() {
        let dir = TempDir::new("bootstrap");
        assert!(bootstrap_identity(&dir.0, "Julia").expect("first write"));
        let path = dir.0.join(IDENTITY_FILE);
        assert_eq!(
            fs::read_to_string(&path).expect("read"),
            identity_template("Julia")
        );
        fs::write(&path, "my own persona").expect("edit");
        assert!(!bootstrap_identity(&dir.0, "Someone").expect("second call"));
        assert_eq!(fs::read_to_string(&path).expect("read"), "my own persona");
        fs::write(&path, "").expect("empty");
        assert!(!bootstrap_identity(&dir.0, "Julia").expect("third call"));
        assert_eq!(fs::read_to_string(&path).expect("read"), "");
        assert!(bootstrap_identity(&dir.0.join("missing"), "Julia").is_err());
    }
}
