//! Rendering: the canonical text, omitted defaults, escaping, and parse(render(x)) == x.

use chrono::DateTime;
use chrono_tz::Tz;

use super::render::quote;
use super::*;
use crate::domain::job_options::{BgSession, RunMode, RunOptions, ToolRestriction, UpdateMode};

const TZ: Tz = chrono_tz::America::Los_Angeles;

fn minimal_routine() -> Routine {
    let mut routine = Routine::new("0 9 * * 1-5", "Plan the day.");
    routine.id = "a1b2c3d4".into();
    routine
}

fn minimal_reminder() -> Reminder {
    let mut reminder = Reminder::new_in(
        30,
        "Move the laundry.",
        chrono::Utc::now().with_timezone(&TZ),
    );
    reminder.id = "c5d6e7f8".into();
    reminder.run_at = DateTime::parse_from_rfc3339("2026-02-24T13:00:00-08:00").unwrap();
    reminder
}

fn full_routine() -> Routine {
    Routine {
        id: "0042".into(),
        cron: "*/30 9-17 * * mon-fri".into(),
        description: "Say \"hi\" \\ wave\nthen\tgo".into(),
        run: RunMode::Background(BgSession::Persistent),
        options: RunOptions {
            model: Some("opus".into()),
            thinking: false,
            update_mode: UpdateMode::Freely,
            allow_ping: false,
            tools: ToolRestriction::Allowed(vec!["Bash(git status *)".into(), "mcp__x__y".into()]),
            skills: vec!["focus".into(), "déjà \"vu\"".into()],
            subagent: Some("researcher".into()),
            reflect: false,
        },
        until_done: Some(UntilDone {
            nag_every: Some(std::time::Duration::from_secs(90 * 60)),
            max_nags: None,
        }),
        message: "/focus\n\nCheck things:\n---\n- one\n- two".into(),
    }
}

fn full_reminder() -> Reminder {
    Reminder {
        id: "c5d6e7f8".into(),
        run_at: DateTime::parse_from_rfc3339("2026-07-04T09:30:15.123456+05:30").unwrap(),
        description: "CI: check #2 — 'quotes' & {braces}".into(),
        chain_depth: 1,
        max_chain: 3,
        chain_parent: Some("root0001".into()),
        set_by: SetBy::Background {
            job: "routine:0042".into(),
            generation: 2,
        },
        run: RunMode::Background(BgSession::Isolated),
        until_done: None,
        options: RunOptions {
            model: Some("haiku".into()),
            thinking: false,
            update_mode: UpdateMode::Blocked,
            allow_ping: false,
            tools: ToolRestriction::Disallowed(vec!["WebSearch".into()]),
            skills: vec!["ci".into()],
            subagent: Some("ollim-bot-guide".into()),
            reflect: false,
        },
        message: "Is CI green yet? If not, follow up.".into(),
    }
}

#[test]
fn minimal_routine_renders_only_id_cron_and_body() {
    assert_eq!(
        render_routine(&minimal_routine()),
        "---\nid: \"a1b2c3d4\"\ncron: \"0 9 * * 1-5\"\n---\nPlan the day.\n"
    );
}

#[test]
fn minimal_reminder_renders_only_id_run_at_and_body() {
    assert_eq!(
        render_reminder(&minimal_reminder()),
        "---\nid: \"c5d6e7f8\"\nrun-at: \"2026-02-24T13:00:00-08:00\"\n---\nMove the laundry.\n"
    );
}

#[test]
fn spec_examples_render_in_table_order() {
    let mut routine = Routine::new(
        "0 9 * * 1-5",
        "Review my Google Tasks and Calendar for today and flag anything urgent.",
    );
    routine.id = "a1b2c3d4".into();
    routine.description = "Morning task review".into();
    routine.run = RunMode::Background(BgSession::Forked);
    assert_eq!(
        render_routine(&routine),
        "---\nid: \"a1b2c3d4\"\ncron: \"0 9 * * 1-5\"\ndescription: \"Morning task review\"\n\
         background: true\n---\nReview my Google Tasks and Calendar for today and flag anything urgent.\n"
    );
    let mut reminder = minimal_reminder();
    reminder.description = "CI pipeline check".into();
    reminder.max_chain = 3;
    reminder.chain_parent = Some("c5d6e7f8".into());
    reminder.message = "Check the CI status.".into();
    assert_eq!(
        render_reminder(&reminder),
        "---\nid: \"c5d6e7f8\"\nrun-at: \"2026-02-24T13:00:00-08:00\"\ndescription: \"CI pipeline check\"\n\
         max-chain: 3\nchain-parent: \"c5d6e7f8\"\n---\nCheck the CI status.\n"
    );
}

#[test]
fn full_items_render_every_non_default_field() {
    assert_eq!(
        render_routine(&full_routine()),
        "---\nid: \"0042\"\ncron: \"*/30 9-17 * * mon-fri\"\n\
         description: \"Say \\\"hi\\\" \\\\ wave\\nthen\\tgo\"\nbackground: true\nuntil-done: true\n\
         nag-every: \"1h30m\"\nmodel: \"opus\"\n\
         thinking: false\nupdate-main-session: \"freely\"\nallow-ping: false\nallowed-tools:\n\
         \x20 - \"Bash(git status *)\"\n  - \"mcp__x__y\"\nskills:\n  - \"focus\"\n  - \"déjà \\\"vu\\\"\"\n\
         subagent: \"researcher\"\nreflect: false\nsession: \"persistent\"\n---\n\
         /focus\n\nCheck things:\n---\n- one\n- two\n"
    );
    assert_eq!(
        render_reminder(&full_reminder()),
        "---\nid: \"c5d6e7f8\"\nrun-at: \"2026-07-04T09:30:15.123456+05:30\"\n\
         description: \"CI: check #2 — 'quotes' & {braces}\"\nchain-depth: 1\n\
         max-chain: 3\nchain-parent: \"root0001\"\nset-by: \"routine:0042\"\ngeneration: 2\n\
         model: \"haiku\"\nthinking: false\nisolated: true\n\
         update-main-session: \"blocked\"\nallow-ping: false\ndisallowed-tools:\n  - \"WebSearch\"\n\
         skills:\n  - \"ci\"\nsubagent: \"ollim-bot-guide\"\nreflect: false\n---\n\
         Is CI green yet? If not, follow up.\n"
    );
}

/// E.1: background-only options are ignored in the foreground, so a foreground `isolated: true`
/// reads as a plain foreground job and is not written back; `skills: []` is no skills.
#[test]
fn foreground_isolated_and_empty_skills_are_canonicalised_away() {
    let text = "---\nid: \"m1\"\nrun-at: \"2026-02-24T13:00:00-08:00\"\nbackground: false\n\
                isolated: true\nskills: []\nallowed-tools: []\n---\nDo it.\n";
    let reminder = parse_reminder(text, TZ).unwrap();
    assert_eq!(reminder.run, RunMode::Foreground);
    assert!(reminder.options.skills.is_empty());
    assert_eq!(
        render_reminder(&reminder),
        "---\nid: \"m1\"\nrun-at: \"2026-02-24T13:00:00-08:00\"\nbackground: false\n\
         allowed-tools: []\n---\nDo it.\n"
    );
    let routine =
        parse_routine("---\nid: r1\ncron: \"0 9 * * *\"\nisolated: true\n---\nx\n").unwrap();
    assert_eq!(
        render_routine(&routine),
        "---\nid: \"r1\"\ncron: \"0 9 * * *\"\n---\nx\n"
    );
}

#[test]
fn round_trips() {
    for routine in [minimal_routine(), full_routine()] {
        assert_eq!(parse_routine(&render_routine(&routine)).unwrap(), routine);
    }
    for reminder in [minimal_reminder(), full_reminder()] {
        let back = parse_reminder(&render_reminder(&reminder), TZ).unwrap();
        assert_eq!(back, reminder);
        assert_eq!(back.run_at.offset(), reminder.run_at.offset());
    }
    // A fresh reminder keeps its zone offset and whole-second time.
    let fresh = Reminder::new_in(90, "x", chrono::Utc::now().with_timezone(&TZ));
    let back = parse_reminder(&render_reminder(&fresh), chrono_tz::UTC).unwrap();
    assert_eq!(back, fresh);
    assert_eq!(back.run_at.offset(), fresh.run_at.offset());
}

#[test]
fn strings_that_yaml_would_mangle_round_trip() {
    let awkward = [
        "",
        "plain",
        "yes",
        "null",
        "~",
        "123",
        "#not a comment",
        "key: value",
        "- dash",
        "*alias",
        "&anchor",
        "!tag",
        "{flow}",
        "[flow]",
        "'single'",
        "\"double\"",
        "back\\slash\\\\n",
        "  padded  ",
        "line\nbreak\r\nand\ttab",
        "bell\u{7}esc\u{1b}del\u{7f}nel\u{85}",
        "ls\u{2028}ps\u{2029}bom\u{feff}",
        "emoji 🎉 and CJK 日本",
    ];
    for text in awkward {
        let mut routine = minimal_routine();
        routine.description = text.into();
        routine.options.subagent = Some(text.into());
        routine.options.skills = vec![text.into(), "x".into()];
        let rendered = render_routine(&routine);
        assert_eq!(
            parse_routine(&rendered).unwrap(),
            routine,
            "{text:?}\n{rendered}"
        );
    }
}

#[test]
fn quoting_escapes_only_what_it_must() {
    assert_eq!(quote("a\"b\\c"), "\"a\\\"b\\\\c\"");
    assert_eq!(quote("é — 🎉"), "\"é — 🎉\"");
    assert_eq!(quote("a\u{1}b\u{85}"), "\"a\\u0001b\\u0085\"");
}

#[test]
fn message_is_written_trimmed_after_the_closing_line() {
    let mut routine = minimal_routine();
    routine.message = "\n  Hello\n\n".into();
    let text = render_routine(&routine);
    assert!(text.ends_with("---\nHello\n"), "{text}");
}

#[test]
fn new_items_have_defaults_and_fresh_ids() {
    let routine = Routine::new("0 9 * * *", "m");
    assert_eq!(routine.run, RunMode::Foreground);
    assert_eq!(routine.options, RunOptions::default());
    let reminder = Reminder::new_in(30, "m", chrono::Utc::now().with_timezone(&TZ));
    assert_eq!(
        reminder.run,
        RunMode::Background(BgSession::Forked),
        "REM-2: background by default"
    );
    assert_eq!(reminder.options, RunOptions::default());
    assert_eq!((reminder.chain_depth, reminder.max_chain), (0, 0));
    assert_eq!(reminder.chain_parent, None);
    let delay = reminder.run_at - chrono::Utc::now().fixed_offset();
    assert!(
        (29 * 60..=30 * 60).contains(&delay.num_seconds()),
        "{delay}"
    );
    assert_eq!(reminder.run_at.timestamp_subsec_nanos(), 0);
    let zone_offset = chrono::Utc::now().with_timezone(&TZ).fixed_offset();
    assert!(
        [-8 * 3600, -7 * 3600].contains(&reminder.run_at.offset().local_minus_utc()),
        "{zone_offset}"
    );
    for _ in 0..50 {
        let id = new_id();
        assert_eq!(id.len(), 8);
        assert!(
            id.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        );
    }
    assert_ne!(new_id(), new_id());
}
