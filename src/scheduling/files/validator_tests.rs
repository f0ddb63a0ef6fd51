//! HKS-4 / RTN-9: the routine write validator's denials and warnings.

use super::keys::ROUTINE_KEYS;
use super::{RoutineVerdict, validate_routine_write};

const CLEAN: &str = "---\nid: \"a1b2c3d4\"\ncron: \"0 9 * * 1-5\"\ndescription: \"Check-in\"\n\
background: true\n---\nLook at today's tasks.\n";

fn denial(content: &str) -> String {
    match validate_routine_write(content) {
        RoutineVerdict::Deny(reason) => reason,
        other => panic!("expected a denial, got {other:?}"),
    }
}

fn warnings(content: &str) -> Vec<String> {
    match validate_routine_write(content) {
        RoutineVerdict::Warn(warnings) => warnings,
        other => panic!("expected warnings, got {other:?}"),
    }
}

/// CLEAN with `extra` frontmatter lines added.
fn with(extra: &str) -> String {
    CLEAN.replacen(
        "background: true\n",
        &format!("background: true\n{extra}"),
        1,
    )
}

#[test]
fn hks4_a_complete_routine_is_clean() {
    assert_eq!(validate_routine_write(CLEAN), RoutineVerdict::Clean);
    let scoped = with(
        "allowed-tools:\n  - \"Bash(ollim-bot gmail *)\"\n  - \"Write(./notes/**)\"\n  - Task\n  - WebSearch\n",
    );
    assert_eq!(validate_routine_write(&scoped), RoutineVerdict::Clean);
}

#[test]
fn hks4_unusable_files_are_denied_with_the_prefix() {
    let cases = [
        ("Just a prompt, no frontmatter.\n", "no YAML frontmatter"),
        ("---\nid: x\ncron: \"0 9 * * *\"\nbody\n", "not closed"),
        (
            "---\nid: [x\ncron: \"0 9 * * *\"\n---\nbody\n",
            "not valid YAML",
        ),
        ("---\n- id\n- cron\n---\nbody\n", "not a YAML mapping"),
        ("---\n---\nbody\n", "not a YAML mapping"),
        (
            "---\ncron: \"0 9 * * *\"\n---\nbody\n",
            "missing required field \"id\"",
        ),
        ("---\nid: x\n---\nbody\n", "missing required field \"cron\""),
        (
            "---\nid: \" \"\ncron: \"0 9 * * *\"\n---\nbody\n",
            "\"id\" must not be empty",
        ),
        (
            "---\nid: x\ncron: \"0 0 9 * * *\"\n---\nbody\n",
            "cron must have exactly 5 fields (minute hour day month weekday); \"0 0 9 * * *\" has 6",
        ),
        ("---\nid: x\ncron: \"@daily\"\n---\nbody\n", "has 1"),
        (
            "---\nid: x\ncron: \"99 9 * * *\"\n---\nbody\n",
            "invalid cron expression",
        ),
    ];
    for (content, expected) in cases {
        let reason = denial(content);
        assert!(reason.starts_with("routine-validator: "), "{reason}");
        assert!(reason.contains(expected), "{content:?} → {reason}");
    }
}

#[test]
fn hks4_missing_description_and_background_warn() {
    let found = warnings("---\nid: x\ncron: \"0 9 * * *\"\n---\nbody\n");
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found[0].starts_with("no description"));
    assert!(found[1].starts_with("no background"));
}

#[test]
fn hks4_unscoped_shell_and_write_tools_warn() {
    let found = warnings(&with(
        "allowed-tools:\n  - Bash\n  - \"Bash(*)\"\n  - Write\n  - \"Edit(**)\"\n  - \"MultiEdit(/**)\"\n  - \"Bash(git log *)\"\n",
    ));
    assert_eq!(found.len(), 5, "{found:?}");
    assert!(found[0].starts_with("\"Bash\" in allowed-tools lets the run execute any command"));
    assert!(found[1].starts_with("\"Bash(*)\""));
    assert!(found[2].starts_with("\"Write\" in allowed-tools lets the run change any file"));
    assert!(found[3].starts_with("\"Edit(**)\""));
    assert!(found[4].starts_with("\"MultiEdit(/**)\""));
}

#[test]
fn hks4_delegation_with_unscoped_writes_warns() {
    let found = warnings(&with("allowed-tools:\n  - Agent\n  - Edit\n"));
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found[1].starts_with("\"Agent\" delegates work while writes are unscoped"));
    let scoped = with("allowed-tools:\n  - \"Task(researcher)\"\n  - \"Edit(./notes/**)\"\n");
    assert_eq!(validate_routine_write(&scoped), RoutineVerdict::Clean);
}

#[test]
fn hks4_snake_case_and_unknown_keys_warn() {
    let found = warnings(&with(
        "allow_ping: false\nupdate_main_session: always\ncolour: blue\nretry_count: 2\n",
    ));
    assert_eq!(
        found,
        vec![
            "\"allow_ping\" is the old spelling: write \"allow-ping\"",
            "\"update_main_session\" is the old spelling: write \"update-main-session\"",
            "unknown key \"colour\" is ignored (see routine-reminder-spec.md)",
            "unknown key \"retry_count\" is ignored (see routine-reminder-spec.md)",
        ]
    );
}

#[test]
fn hks4_files_over_200_lines_warn() {
    let body = |lines: usize| "line\n".repeat(lines);
    // CLEAN has 7 lines, one of them the body.
    let at_limit = CLEAN.replace("Look at today's tasks.\n", &body(194));
    assert_eq!(at_limit.lines().count(), 200);
    assert_eq!(validate_routine_write(&at_limit), RoutineVerdict::Clean);
    let over = CLEAN.replace("Look at today's tasks.\n", &body(195));
    let found = warnings(&over);
    assert_eq!(found.len(), 1);
    assert!(
        found[0].starts_with("the file has 201 lines (over 200)"),
        "{found:?}"
    );
}

#[test]
fn hks4_other_load_errors_warn_that_the_scheduler_will_skip_it() {
    let found = warnings(&CLEAN.replace(
        "background: true\n",
        "background: false\nsession: persistent\n",
    ));
    assert_eq!(
        found,
        vec![
            "the scheduler will skip this file until it is fixed: session: persistent requires \
             background: true"
        ]
    );
    let empty_body = warnings(&CLEAN.replace("Look at today's tasks.\n", ""));
    assert!(empty_body[0].contains("the body"), "{empty_body:?}");
}

#[test]
fn routine_keys_come_from_the_renderer_and_cover_e1() {
    let mut keys = ROUTINE_KEYS.clone();
    keys.sort();
    assert_eq!(
        keys,
        vec![
            "allow-ping",
            "allowed-tools",
            "background",
            "cron",
            "description",
            "disallowed-tools",
            "id",
            "isolated",
            "max-nags",
            "model",
            "nag-every",
            "reflect",
            "session",
            "skills",
            "subagent",
            "thinking",
            "until-done",
            "update-main-session",
        ]
    );
}
