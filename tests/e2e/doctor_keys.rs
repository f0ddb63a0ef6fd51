//! `doctor` on files that load but have a key their format doesn't (issue 24 §4), through the
//! real binary on a healthy install (the set-up is `doctor`'s).

use crate::doctor::{Install, Report, SPEC, write};

/// Whether `report` has a WARN about `file` noting `key` with `meant` as the key it was meant
/// to be.
fn warned(report: &Report, file: &str, key: &str, meant: &str) -> bool {
    report.lines("WARN").iter().any(|line| {
        line.contains(file)
            && line.contains(&format!("unknown key \"{key}\""))
            && line.contains(&format!("did you mean \"{meant}\""))
    })
}

/// Issue 24 §4: a misspelt key in a routine, a webhook spec, a skill or a subagent is a
/// warning with the key it was meant to be, and the file still loads (its next fire or its
/// path is shown); a model typo is the file's error.
#[tokio::test]
async fn a_misspelt_key_warns_and_a_model_typo_fails() {
    let install = Install::healthy().await;
    write(
        install.data(),
        "routines/walk.md",
        "---\nid: \"w\"\ncron: \"0 8 * * *\"\nbackgroud: true\n---\nGo for a walk.\n",
    );
    let report = install.doctor().await;
    assert!(
        report
            .lines("WARN")
            .iter()
            .any(|l| l.contains("routines/walk.md")
                && l.contains("unknown key \"backgroud\"")
                && l.contains("did you mean \"background\"")),
        "{report}"
    );
    assert!(
        report.stdout.contains("PASS routines/walk.md: next fire "),
        "{report}"
    );
    write(
        install.data(),
        "webhooks/ci.md",
        &SPEC.replacen("id: ci\n", "id: ci\nisolted: true\n", 1),
    );
    let report = install.doctor().await;
    assert!(
        warned(&report, "webhooks/ci.md", "isolted", "isolated"),
        "{report}"
    );
    // The CLI's own formats: only a near miss of a key it documents is noted.
    write(
        install.data(),
        "skills/standup/SKILL.md",
        "---\nname: standup\ndescription: Daily standup\nallowed_tool: Read\n\
         license: MIT\n---\nAsk what's next.\n",
    );
    write(
        install.data(),
        ".claude/agents/helper.md",
        "---\nname: helper\ndescription: Helps\nmodle: haiku\n---\nHelp.\n",
    );
    let report = install.doctor().await;
    assert!(
        warned(
            &report,
            "skills/standup/SKILL.md",
            "allowed_tool",
            "allowed-tools"
        ),
        "{report}"
    );
    assert!(
        warned(&report, ".claude/agents/helper.md", "modle", "model"),
        "{report}"
    );
    assert!(!report.stdout.contains("\"license\""), "{report}");
    assert!(
        report.stdout.contains("PASS skills/standup/SKILL.md loads"),
        "{report}"
    );
    assert!(
        report.stdout.contains("PASS webhooks/ci.md: POST /hook/ci"),
        "{report}"
    );
    write(
        install.data(),
        "routines/walk.md",
        "---\nid: \"w\"\ncron: \"0 8 * * *\"\nmodel: sonet\n---\nGo for a walk.\n",
    );
    let line = install
        .doctor()
        .await
        .assert_fails_on(&["routines/walk.md", "unknown model 'sonet'"]);
    assert!(line.contains("did you mean 'sonnet'"), "{line}");
}
