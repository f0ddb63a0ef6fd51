//! Parsing routine and reminder files: accepted shapes and every rejection reason.

use chrono::{DateTime, TimeZone};
use chrono_tz::Tz;

use super::*;
use crate::domain::job_options::{BgSession, RunMode, ToolRestriction, UpdateMode};

const TZ: Tz = chrono_tz::America::Los_Angeles;

fn at(text: &str) -> DateTime<FixedOffset> {
    DateTime::parse_from_rfc3339(text).unwrap()
}

fn routine_err(text: &str) -> String {
    parse_routine(text).unwrap_err()
}

fn reminder_err(text: &str) -> String {
    parse_reminder(text, TZ).unwrap_err()
}

/// A routine file with `extra` frontmatter lines after `id` and `cron`.
fn routine_with(extra: &str) -> String {
    format!("---\nid: \"r1\"\ncron: \"0 9 * * *\"\n{extra}---\nDo it.\n")
}

/// A reminder file with `extra` frontmatter lines after `id` and `run-at`.
fn reminder_with(extra: &str) -> String {
    format!("---\nid: \"m1\"\nrun-at: \"2026-02-24T13:00:00-08:00\"\n{extra}---\nDo it.\n")
}

#[test]
fn spec_routine_example_parses() {
    let text = "---\nid: \"a1b2c3d4\"\ncron: \"0 9 * * 1-5\"\ndescription: \"Morning task review\"\n\
                background: true\n---\nReview my Google Tasks and Calendar for today and flag anything urgent.\n";
    let routine = parse_routine(text).unwrap();
    let mut expected = Routine::new(
        "0 9 * * 1-5",
        "Review my Google Tasks and Calendar for today and flag anything urgent.",
    );
    expected.id = "a1b2c3d4".into();
    expected.description = "Morning task review".into();
    expected.run = RunMode::Background(BgSession::Forked);
    assert_eq!(routine, expected);
}

#[test]
fn spec_reminder_example_parses() {
    let text = "---\nid: \"c5d6e7f8\"\nrun-at: \"2026-02-24T13:00:00-08:00\"\ndescription: \"CI pipeline check\"\n\
                max-chain: 3\nchain-parent: \"c5d6e7f8\"\n---\nCheck the CI status. If still running, schedule a \
                follow-up in 15 minutes; if failed, ping me with the error.\n";
    let reminder = parse_reminder(text, TZ).unwrap();
    assert_eq!(reminder.id, "c5d6e7f8");
    assert_eq!(reminder.run_at, at("2026-02-24T13:00:00-08:00"));
    assert_eq!(reminder.run_at.offset().local_minus_utc(), -8 * 3600);
    assert_eq!(reminder.description, "CI pipeline check");
    assert_eq!(
        reminder.run,
        RunMode::Background(BgSession::Forked),
        "background defaults to true (REM-2)"
    );
    assert_eq!((reminder.chain_depth, reminder.max_chain), (0, 3));
    assert_eq!(reminder.chain_parent.as_deref(), Some("c5d6e7f8"));
    assert_eq!(reminder.options, RunOptions::default());
    assert_eq!(reminder.options.update_mode, UpdateMode::OnPing);
    assert!(reminder.message.starts_with("Check the CI status."));
    assert!(reminder.message.ends_with("with the error."));
}

#[test]
fn every_option_is_read() {
    let text = "---\nid: \"full\"\ncron: \"*/15 9-17 * * mon-fri\"\ndescription: \"All of it\"\n\
                background: true\nmodel: \"haiku\"\nthinking: false\nisolated: false\n\
                update-main-session: \"blocked\"\nallow-ping: false\nallowed-tools:\n  - \"Bash(ls *)\"\n  - \"WebSearch\"\n\
                skills:\n  - \"focus\"\nsubagent: \"researcher\"\nreflect: false\nsession: persistent\n---\nBody\n";
    let routine = parse_routine(text).unwrap();
    assert_eq!(routine.cron, "*/15 9-17 * * mon-fri");
    assert_eq!(routine.run, RunMode::Background(BgSession::Persistent));
    assert_eq!(
        routine.options,
        RunOptions {
            model: Some("haiku".to_owned()),
            thinking: false,
            update_mode: UpdateMode::Blocked,
            allow_ping: false,
            tools: ToolRestriction::Allowed(vec!["Bash(ls *)".into(), "WebSearch".into()]),
            skills: vec!["focus".to_owned()],
            subagent: Some("researcher".to_owned()),
            reflect: false,
        }
    );
}

#[test]
fn snake_case_legacy_keys_are_accepted() {
    let text = "---\nid: \"s1\"\nrun_at: \"2026-03-01T08:00:00+00:00\"\nchain_depth: 1\nmax_chain: 2\n\
                chain_parent: \"root\"\nupdate_main_session: always\nallow_ping: false\n\
                disallowed_tools:\n- WebSearch\nbackground: false\n---\nbody\n";
    let reminder = parse_reminder(text, TZ).unwrap();
    assert_eq!(reminder.run_at, at("2026-03-01T08:00:00Z"));
    assert_eq!((reminder.chain_depth, reminder.max_chain), (1, 2));
    assert_eq!(reminder.chain_parent.as_deref(), Some("root"));
    assert_eq!(reminder.options.update_mode, UpdateMode::Always);
    assert!(!reminder.options.allow_ping);
    assert_eq!(reminder.run, RunMode::Foreground);
    assert_eq!(
        reminder.options.tools,
        ToolRestriction::Disallowed(vec!["WebSearch".into()])
    );
}

#[test]
fn kebab_case_wins_over_snake_case_in_either_order() {
    let first = routine_with("allow_ping: true\nallow-ping: false\n");
    let second = routine_with("allow-ping: false\nallow_ping: true\n");
    assert!(!parse_routine(&first).unwrap().options.allow_ping);
    assert!(!parse_routine(&second).unwrap().options.allow_ping);
}

#[test]
fn scalar_ids_are_taken_as_written() {
    for (yaml, id) in [
        ("12345678", "12345678"),
        ("00123456", "00123456"),
        ("1234e567", "1234e567"),
        ("0x1f", "0x1f"),
        ("true", "true"),
        ("abc-def", "abc-def"),
        ("'quoted'", "quoted"),
    ] {
        let text = format!("---\nid: {yaml}\ncron: \"0 9 * * *\"\n---\nx\n");
        assert_eq!(parse_routine(&text).unwrap().id, id, "id: {yaml}");
    }
    let text =
        "---\nid: 42\ndescription: 7\nsubagent: 3.5\nrun-at: 2026-02-24T13:00:00-08:00\n---\nx\n";
    let reminder = parse_reminder(text, TZ).unwrap();
    assert_eq!(reminder.id, "42");
    assert_eq!(reminder.description, "7");
    assert_eq!(reminder.options.subagent.as_deref(), Some("3.5"));
}

#[test]
fn layout_text_before_frontmatter_body_trim_bom_crlf() {
    let text = "notes for myself\n\n---\nid: \"x\"\ncron: \"0 9 * * *\"\n---\n\n  Line one\n\n---\nLine two  \n\n";
    let routine = parse_routine(text).unwrap();
    assert_eq!(routine.message, "Line one\n\n---\nLine two");
    let crlf = "\u{feff}---\r\nid: \"x\"\r\ncron: \"0 9 * * *\"\r\n---\r\nHello\r\n";
    assert_eq!(parse_routine(crlf).unwrap().message, "Hello");
    let dashes_in_values = routine_with("description: \"a --- b\"\n");
    assert_eq!(
        parse_routine(&dashes_in_values).unwrap().description,
        "a --- b"
    );
}

#[test]
fn unknown_keys_and_nulls_are_ignored() {
    let text = routine_with(
        "owner: me\nnested: {a: [1, 2]}\nmodel: null\nthinking: ~\nskills:\nsubagent:\nsession: null\n",
    );
    let routine = parse_routine(&text).unwrap();
    assert_eq!(routine.options, RunOptions::default());
    assert_eq!(routine.run, RunMode::Foreground);
}

#[test]
fn yaml_one_one_booleans_lists_and_tags() {
    let text = routine_with(
        "background: yes\nisolated: On\nthinking: False\nallowed-tools: [Read, 42]\nskills: []\ndescription: !!str 12\n",
    );
    let routine = parse_routine(&text).unwrap();
    assert_eq!(routine.run, RunMode::Background(BgSession::Isolated));
    assert!(!routine.options.thinking);
    assert_eq!(
        routine.options.tools,
        ToolRestriction::Allowed(vec!["Read".into(), "42".into()])
    );
    assert!(routine.options.skills.is_empty());
    assert_eq!(routine.description, "12");
}

#[test]
fn structural_problems_have_reasons() {
    assert!(routine_err("id: x\ncron: \"0 9 * * *\"\n").contains("no YAML frontmatter"));
    assert!(routine_err("---\nid: x\ncron: \"0 9 * * *\"\nbody\n").contains("not closed"));
    assert!(routine_err("---\nid: [unclosed\n---\nbody\n").contains("not valid YAML"));
    assert!(routine_err("---\n- a\n- b\n---\nbody\n").contains("not a YAML mapping"));
    assert!(routine_err("---\n---\nbody\n").contains("not a YAML mapping"));
    assert_eq!(
        routine_err("---\ncron: \"0 9 * * *\"\n---\nbody\n"),
        "missing required field \"id\""
    );
    assert_eq!(
        routine_err("---\nid: x\n---\nbody\n"),
        "missing required field \"cron\""
    );
    assert_eq!(
        reminder_err("---\nid: x\n---\nbody\n"),
        "missing required field \"run-at\""
    );
    assert_eq!(
        routine_err("---\nid: \"\"\ncron: \"0 9 * * *\"\n---\nbody\n"),
        "\"id\" must not be empty"
    );
    assert!(
        routine_err("---\nid: \"a\\nb\"\ncron: \"0 9 * * *\"\n---\nbody\n").contains("control")
    );
    assert!(routine_err(&routine_with("").replace("Do it.", "  ")).contains("body"));
}

#[test]
fn field_type_problems_have_reasons() {
    let cases = [
        (
            "allow-ping: maybe\n",
            "\"allow-ping\" must be true or false",
        ),
        ("background: 1\n", "\"background\" must be true or false"),
        ("thinking: [true]\n", "\"thinking\" must be true or false"),
        ("description: [a, b]\n", "\"description\" must be a string"),
        ("model: {name: opus}\n", "\"model\" must be a string"),
        ("skills: focus\n", "\"skills\" must be a list of strings"),
        (
            "allowed-tools:\n  - [a]\n",
            "\"allowed-tools\" must be a list of strings",
        ),
        (
            "disallowed-tools:\n  - null\n",
            "\"disallowed-tools\" must be a list of strings",
        ),
        (
            "update-main-session: sometimes\n",
            "update-main-session must be one of always, on_ping, freely, blocked",
        ),
        (
            "allowed-tools: [Read]\ndisallowed-tools: [Bash]\n",
            "allowed-tools and disallowed-tools can't both be set",
        ),
    ];
    for (extra, reason) in cases {
        assert_eq!(routine_err(&routine_with(extra)), reason, "{extra}");
        assert_eq!(reminder_err(&reminder_with(extra)), reason, "{extra}");
    }
}

#[test]
fn cron_needs_five_fields() {
    for cron in ["0 9 * *", "0 9 * * * *", "", "@daily"] {
        let text = format!("---\nid: x\ncron: \"{cron}\"\n---\nbody\n");
        assert_eq!(
            routine_err(&text),
            "cron must have exactly 5 fields (minute hour day month weekday)",
            "{cron:?}"
        );
    }
    let text = "---\nid: x\ncron: \"  0   9 *\t* 1-5 \"\n---\nbody\n";
    assert_eq!(parse_routine(text).unwrap().cron, "  0   9 *\t* 1-5 ");
}

#[test]
fn persistent_session_rules() {
    let ok = parse_routine(&routine_with("background: true\nsession: \"persistent\"\n")).unwrap();
    assert_eq!(ok.run, RunMode::Background(BgSession::Persistent));
    assert_eq!(
        routine_err(&routine_with("session: persistent\n")),
        "session: persistent requires background: true"
    );
    assert_eq!(
        routine_err(&routine_with(
            "background: true\nisolated: true\nsession: persistent\n"
        )),
        "session: persistent can't be combined with isolated: true"
    );
    assert_eq!(
        routine_err(&routine_with("background: true\nsession: forked\n")),
        "session must be \"persistent\""
    );
    let bad_id =
        "---\nid: \"../x\"\ncron: \"0 9 * * *\"\nbackground: true\nsession: persistent\n---\nb\n";
    assert!(routine_err(bad_id).contains("ASCII letters"));
    // A plain routine may have any id.
    assert!(parse_routine("---\nid: \"../x\"\ncron: \"0 9 * * *\"\n---\nb\n").is_ok());
}

#[test]
fn chain_numbers_are_checked() {
    assert_eq!(
        reminder_err(&reminder_with("chain-depth: 3\nmax-chain: 2\n")),
        "chain-depth (3) is greater than max-chain (2)"
    );
    assert_eq!(
        reminder_err(&reminder_with("chain-depth: 1\n")),
        "chain-depth (1) is greater than max-chain (0)"
    );
    for bad in ["-1", "1.5", "\"2\"", "[1]", "99999999999"] {
        assert_eq!(
            reminder_err(&reminder_with(&format!("max-chain: {bad}\n"))),
            "\"max-chain\" must be a whole number (0 or more)",
            "{bad}"
        );
    }
    let ok = parse_reminder(&reminder_with("chain-depth: 2\nmax-chain: 2\n"), TZ).unwrap();
    assert_eq!((ok.chain_depth, ok.max_chain), (2, 2));
}

#[test]
fn run_at_shapes() {
    let pacific = |y, mo, d, h, mi, s| {
        TZ.with_ymd_and_hms(y, mo, d, h, mi, s)
            .unwrap()
            .fixed_offset()
    };
    let cases = [
        ("2026-02-24T13:00:00-08:00", at("2026-02-24T13:00:00-08:00")),
        (
            "2026-02-24T13:00:00.123456-08:00",
            at("2026-02-24T13:00:00.123456-08:00"),
        ),
        ("2026-02-24T21:00:00Z", at("2026-02-24T21:00:00+00:00")),
        ("2026-02-24 13:00:00-08:00", at("2026-02-24T13:00:00-08:00")),
        ("2026-02-24T13:00:00+0530", at("2026-02-24T13:00:00+05:30")),
        ("2026-02-24T13:00-08:00", at("2026-02-24T13:00:00-08:00")),
        ("2026-02-24T13:00:00", pacific(2026, 2, 24, 13, 0, 0)),
        ("2026-07-04 09:30:15.5", at("2026-07-04T09:30:15.5-07:00")),
        ("2026-07-04T09:30", pacific(2026, 7, 4, 9, 30, 0)),
        ("2026-07-04", pacific(2026, 7, 4, 0, 0, 0)),
        // Fall back: the earlier of the two 01:30s (PDT).
        ("2026-11-01T01:30:00", at("2026-11-01T01:30:00-07:00")),
        // Spring forward gap: 02:30 PST is 03:30 PDT.
        ("2026-03-08T02:30:00", at("2026-03-08T03:30:00-07:00")),
    ];
    for (text, expected) in cases {
        let got = parse_run_at(text, TZ).unwrap_or_else(|| panic!("{text}"));
        assert_eq!(got, expected, "{text}");
        assert_eq!(got.offset(), expected.offset(), "{text}");
    }
    for bad in [
        "tomorrow",
        "2026-02-30T10:00:00",
        "10:00",
        "2026-02-24T25:00:00Z",
        "",
    ] {
        assert!(parse_run_at(bad, TZ).is_none(), "{bad}");
    }
    assert_eq!(
        reminder_err("---\nid: x\nrun-at: \"in an hour\"\n---\nb\n"),
        "run-at is not an ISO-8601 datetime: \"in an hour\""
    );
}

#[test]
fn unquoted_run_at_is_read_as_written() {
    let text = "---\nid: x\nrun-at: 2026-02-24T13:00:00.5-08:00\n---\nb\n";
    assert_eq!(
        parse_reminder(text, TZ).unwrap().run_at,
        at("2026-02-24T13:00:00.5-08:00")
    );
}

#[test]
fn the_project_example_routines_parse() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("routines");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return;
    };
    for entry in entries {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.extension().is_some_and(|ext| ext == "md") && name != "README.md" {
            let text = std::fs::read_to_string(&path).unwrap();
            parse_routine(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
}

/// A YAML error names the line of the file, not of the frontmatter (issue 24 §4).
#[test]
fn yaml_errors_name_the_files_line() {
    let text = "---\nid: a\ncron: \"0 9 * * *\"\ndescription: [unclosed\n---\nx\n";
    let error = routine_err(text);
    assert!(error.contains("line 4"), "{error}");
    assert!(!error.contains("line 3 "), "{error}");
}
