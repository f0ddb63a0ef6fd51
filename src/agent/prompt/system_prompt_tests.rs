//! Tests of the system prompt builder (SYS-1, SYS-2, SYS-4).

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
        google_connected: true,
    }
}

const HEADINGS: &str = "# Operating manual | ## Context budget | ## Capturing tasks | ## Shaping answers | \
    ## Configuration notes | ## Skills | ## Google Tasks | ## Google Calendar | \
    ## Routines & reminders | ## Questions about ollim-bot | ## Gmail | ## Claude history | \
    ## Responsiveness | ## What your work costs | ## Remembering | ## Quiet time and focus | ## User proxy | \
    ## Discord embeds | \
    ## Web & docs | \
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
    assert!(!prompt.contains("{user}") && !prompt.contains("{bot}") && !prompt.contains("{tz}"));
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
const REQUIRED_MARKERS: &str = "`google_tasks` | `google_calendar` | `gmail` tool | \
    `ollim-bot reminder add --delay <min> -m \"<text>\"` | --background | --foreground | \
    --max-chain <N> | `ollim-bot reminder list` | `ollim-bot reminder cancel <id>` | \
    `add_reminder` | `list_reminders` | `cancel_reminder` | routine-reminder-spec.md | \
    follow_up_chain(minutes_from_now=N) | job-config | gmail-reader | history-reviewer | \
    responsiveness-reviewer | ollim-bot-guide | user-proxy | `task_done:<id>` | \
    `task_del:<id>` | `event_del:<id>` | `agent:<prompt>` | `dismiss` | save_context | \
    report_updates | exit_fork | [fork-timeout] | [routine-bg:ID] | [reminder-bg:ID] | \
    [webhook:ID] | [button] | [system] | Notion | Slack | Trello | uv run | `always` | \
    `on_ping` | `freely` | `blocked` | allow-ping: false | webhook-spec.md | docs.ollim.ai | \
    `ollim-bot history` | [reminder:email-digest] | [reminder:resp-rev] | `spend_report` | \
    `recall`";

/// Google is reached through the tools: the prompt never tells the agent to run a Google
/// command in its shell, connected or not.
#[test]
fn google_is_reached_through_the_tools_only() {
    let dir = TempDir::new("google-tools");
    for google_connected in [true, false] {
        let prompt = build_system_prompt(&SystemPromptInputs {
            google_connected,
            ..inputs(&dir.0)
        });
        for command in [
            "ollim-bot tasks list",
            "ollim-bot cal today",
            "ollim-bot gmail unread",
        ] {
            assert!(
                !prompt.contains(command),
                "{command} (connected: {google_connected})"
            );
        }
        assert!(prompt.contains("`google_tasks`") && prompt.contains("`gmail`"));
    }
}

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
    // The approved copies are listed (issue 23 §2); drafts in `skills/` are not.
    let skills = crate::state::paths::DataDir::new(&dir.0).approved_skills_dir();
    fs::create_dir_all(dir.0.join("skills/unapproved-draft-skill")).expect("mkdir draft");
    fs::write(
        dir.0.join("skills/unapproved-draft-skill/SKILL.md"),
        "---\ndescription: d\n---\n",
    )
    .expect("draft");
    for (name, body) in [
        (
            "weekly-plan",
            "---\nname: weekly-plan\ndescription: \"Plan the week\"\n---\nbody",
        ),
        ("routine-abc", "---\ndescription: generated\n---\n"),
        (
            "job-config",
            "---\nname: job-config\ndescription: bundled (SKL-8)\n---\n",
        ),
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
    assert!(
        !prompt.contains("- `job-config`"),
        "bundled skills are not custom (SKL-7)"
    );
    assert!(!prompt.contains("empty-dir"));
    assert!(
        !prompt.contains("unapproved-draft-skill"),
        "an unapproved draft is not offered"
    );
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

/// SYS-8, SUB-8: history reading names the bundled `ollim-bot history`, never the Python
/// era's `claude-history`; user-proxy is for background runs with the three confidence rules.
#[test]
fn delegation_sections_name_our_commands() {
    let dir = TempDir::new("delegation");
    let prompt = build_system_prompt(&inputs(&dir.0));
    assert!(!prompt.contains("claude-history"));
    let proxy = prompt
        .split("## User proxy")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .expect("user proxy section");
    for needle in [
        "background runs",
        "interactive fork",
        "HIGH",
        "MEDIUM",
        "LOW",
        "report_updates",
    ] {
        assert!(proxy.contains(needle), "user proxy section lacks {needle}");
    }
}

/// Issue 14: without Google the Tasks, Calendar and Gmail sections give way to one that says
/// it isn't connected, and task capture doesn't claim to save anything.
#[test]
fn without_google_the_prompt_says_so() {
    let dir = TempDir::new("no-google");
    let prompt = build_system_prompt(&SystemPromptInputs {
        google_connected: false,
        ..inputs(&dir.0)
    });
    let found: Vec<&str> = prompt.lines().filter(|l| l.starts_with('#')).collect();
    let expected: Vec<&str> = HEADINGS
        .split(" | ")
        .filter(|h| !matches!(*h, "## Google Calendar" | "## Gmail"))
        .map(|h| {
            if h == "## Google Tasks" {
                "## Google"
            } else {
                h
            }
        })
        .collect();
    assert_eq!(found, expected);
    assert!(prompt.contains("Google isn't connected"));
    assert!(prompt.contains("/google-auth"));
    assert!(!prompt.contains("Use the `google_tasks` tool."));
    assert!(!prompt.contains("add it to Google Tasks straight away"));
}
