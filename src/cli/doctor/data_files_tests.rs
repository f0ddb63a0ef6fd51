//! `doctor`'s checks of the data dir's files (CMD-7): routines, reminders, webhook specs,
//! declared tool patterns and state files, on temporary data dirs.

use std::{fs, net::TcpListener};

use chrono::TimeZone;

use super::{
    CheckStatus, jobs, state_files,
    tests::{TZ, data_dir, only_failure, statuses, write},
    tool_patterns,
};
use crate::config::{DEFAULT_WEBHOOK_BIND, WebhookSetting};

#[test]
fn routines_show_their_next_fire_and_broken_files_fail() {
    let (dir, data) = data_dir();
    let now = TZ.with_ymd_and_hms(2026, 1, 5, 8, 0, 0).unwrap();
    assert_eq!(
        jobs::routine_checks(&data, now)[0].to_string(),
        "PASS no routines"
    );
    write(
        dir.path(),
        "routines/plan.md",
        "---\nid: \"r1\"\ncron: \"0 9 * * 1-5\"\n---\nPlan.\n",
    );
    write(
        dir.path(),
        "routines/broken.md",
        "---\nid: \"r2\"\n---\nNo cron.\n",
    );
    write(
        dir.path(),
        "routines/never.md",
        "---\nid: \"r3\"\ncron: \"0 9 31 2 *\"\n---\nX.\n",
    );
    let checks = jobs::routine_checks(&data, now);
    let lines: Vec<String> = checks.iter().map(ToString::to_string).collect();
    assert!(
        lines.contains(
            &"PASS routines/plan.md: next fire Mon 2026-01-05 09:00 CET (cron 0 9 * * 1-5)"
                .to_owned()
        ),
        "{lines:#?}"
    );
    let broken = lines.iter().find(|l| l.contains("broken.md")).unwrap();
    assert!(broken.starts_with("FAIL routines/broken.md: "), "{broken}");
    assert!(broken.contains("cron"), "{broken}");
    let never = lines.iter().find(|l| l.contains("never.md")).unwrap();
    assert!(never.starts_with("FAIL routines/never.md: "), "{never}");
}

#[test]
fn overdue_reminders_warn() {
    let (dir, data) = data_dir();
    let now = TZ.with_ymd_and_hms(2026, 1, 5, 8, 0, 0).unwrap();
    write(
        dir.path(),
        "reminders/late.md",
        "---\nid: \"m1\"\nrun-at: \"2026-01-05T07:00:00+01:00\"\n---\nLate.\n",
    );
    write(
        dir.path(),
        "reminders/soon.md",
        "---\nid: \"m2\"\nrun-at: \"2026-01-05T10:00:00+01:00\"\n---\nSoon.\n",
    );
    let checks = jobs::reminder_checks(&data, now);
    assert_eq!(statuses(&checks), [CheckStatus::Warn, CheckStatus::Pass]);
    assert!(
        checks[0]
            .text
            .contains("overdue since Mon 2026-01-05 07:00 CET")
    );
    assert!(checks[0].text.contains("ollim-bot reminder cancel m1"));
    assert_eq!(
        checks[1].text,
        "reminders/soon.md: fires Mon 2026-01-05 10:00 CET"
    );
}

#[test]
fn webhook_specs_and_the_port() {
    let (dir, data) = data_dir();
    write(
        dir.path(),
        "webhooks/ci.md",
        "---\nid: ci\nfields:\n  type: object\n  properties:\n    repo: {type: string}\n---\nCI for {repo}.\n",
    );
    write(dir.path(), "webhooks/bad.md", "---\nid: bad\n---\nx\n");
    let on = WebhookSetting::On {
        port: 8080,
        secret: crate::config::WebhookSecret::new("s"),
    };
    let checks = jobs::webhook_spec_checks(&data, &on);
    assert!(only_failure(&checks).text.contains("bad.md"));
    assert!(
        checks
            .iter()
            .any(|c| c.text == "webhooks/ci.md: POST /hook/ci")
    );
    // With the server off a good spec can't be reached (issue 24 §8).
    let off = jobs::webhook_spec_checks(&data, &WebhookSetting::Off);
    assert!(
        off.iter()
            .any(|c| c.status == CheckStatus::Warn && c.text.contains("server is off")),
        "{off:?}"
    );

    let taken = TcpListener::bind(("127.0.0.1", 0)).unwrap();
    let port = taken.local_addr().unwrap().port();
    let busy = jobs::port_check(
        &WebhookSetting::MissingSecret { port },
        DEFAULT_WEBHOOK_BIND,
    )
    .unwrap();
    assert_eq!(busy.status, CheckStatus::Warn);
    assert!(
        busy.text.contains("in use (is the bot running?)"),
        "{}",
        busy.text
    );
    drop(taken);
    let free = jobs::port_status(
        (DEFAULT_WEBHOOK_BIND, port),
        TcpListener::bind(("127.0.0.1", port)),
    );
    assert_eq!(free.status, CheckStatus::Pass);
    assert_eq!(
        jobs::port_check(&WebhookSetting::Off, DEFAULT_WEBHOOK_BIND),
        None
    );
}

#[test]
fn refused_tool_patterns_fail_naming_file_and_pattern() {
    let lists = vec![
        (
            "routines/a.md".to_owned(),
            vec!["Bash(ollim-bot history *)".to_owned()],
        ),
        (
            "webhooks/b.md".to_owned(),
            vec!["Bash(ls; rm -rf x)".to_owned(), "Read(*)".to_owned()],
        ),
    ];
    let checks = tool_patterns::judge_lists(&lists);
    assert_eq!(statuses(&checks), [CheckStatus::Fail, CheckStatus::Warn]);
    assert!(
        checks[0]
            .text
            .starts_with("webhooks/b.md: tool pattern \"Bash(ls; rm -rf x)\"")
    );
    assert!(checks[1].text.contains("\"Read(*)\""));
    let fine = tool_patterns::judge_lists(&lists[..1]);
    assert_eq!(
        fine[0].to_string(),
        "PASS 1 declared tool pattern(s) in 1 file(s) are well-formed"
    );
}

#[test]
fn tool_patterns_come_from_jobs_and_the_policy_file() {
    let (dir, data) = data_dir();
    write(
        dir.path(),
        "routines/r.md",
        "---\nid: \"r1\"\ncron: \"0 9 * * *\"\nbackground: true\nallowed-tools: [\"Bash(*)\"]\n---\nGo.\n",
    );
    write(
        dir.path(),
        "tool-policy.yaml",
        "main_session:\n  additional_allowed: [\"Write(state/*)\"]\n",
    );
    let checks = tool_patterns::tool_pattern_checks(&data, TZ);
    let failures: Vec<&str> = checks
        .iter()
        .filter(|c| c.status == CheckStatus::Fail)
        .map(|c| c.text.as_str())
        .collect();
    assert_eq!(failures.len(), 2, "{checks:#?}");
    assert!(failures[0].starts_with("routines/r.md: tool pattern \"Bash(*)\""));
    assert!(failures[1].starts_with("tool-policy.yaml: tool pattern \"Write(state/*)\""));
    write(dir.path(), "tool-policy.yaml", "surprise: 1\n");
    let checks = tool_patterns::tool_pattern_checks(&data, TZ);
    assert!(
        checks[0]
            .text
            .starts_with("tool-policy.yaml is not a valid tool policy")
    );
}

#[test]
fn state_files_are_judged_by_the_bots_readers_without_being_touched() {
    let (dir, data) = data_dir();
    assert_eq!(
        state_files::state_file_checks(&data)[0].status,
        CheckStatus::Pass
    );
    // A bare session id is what the bot writes (issue 24 §1).
    write(
        dir.path(),
        "state/sessions.json",
        "2f1c7a8e-55b1-4d3c-9e0a-1b2c3d4e5f60",
    );
    write(dir.path(), "state/pending_updates.json", "[{\"message\": ");
    write(dir.path(), "state/config.json", "{\"bg_fork_timeout\": 45}");
    let checks = state_files::state_file_checks(&data);
    assert!(
        checks
            .iter()
            .any(|c| c.text == "state/sessions.json reads fine" && c.status == CheckStatus::Pass),
        "{checks:?}"
    );
    let damaged: Vec<_> = checks
        .iter()
        .filter(|c| c.status != CheckStatus::Pass)
        .collect();
    assert_eq!(damaged.len(), 1, "{checks:?}");
    assert_eq!(damaged[0].status, CheckStatus::Fail);
    assert!(
        damaged[0]
            .text
            .starts_with("state/pending_updates.json is damaged")
    );
    assert!(
        checks
            .iter()
            .any(|c| c.text == "state/config.json reads fine")
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("state/pending_updates.json")).unwrap(),
        "[{\"message\": ",
        "left in place"
    );
    write(dir.path(), "state/config.json", "[1]");
    let checks = state_files::state_file_checks(&data);
    let config = checks
        .iter()
        .find(|c| c.text.starts_with("state/config.json"))
        .unwrap();
    assert_eq!(config.status, CheckStatus::Fail);
    assert!(config.text.contains("not a JSON object"));
    assert!(
        dir.path().join("state/config.json").exists(),
        "not moved aside"
    );
}
