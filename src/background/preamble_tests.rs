//! Tests of the background preamble (BGF-10 … BGF-21, PRS-11, REM-7).

use std::sync::LazyLock;

use super::*;

const STATUS: &str = "3/5 available (refills 1 every 90 min, next in 45 min)";

/// The default options: pings allowed, `on_ping`, no declared tools, skills or subagent.
static DEFAULTS: LazyLock<RunOptions> = LazyLock::new(RunOptions::default);

/// A forked job with `options`: not busy, no extras, Google connected.
fn with(options: &RunOptions) -> PreambleInputs<'_> {
    PreambleInputs {
        session: BgSession::Forked,
        options,
        busy: false,
        budget_status: Some(STATUS.to_string()),
        schedule_text: Some("No more bg tasks today.".to_string()),
        held_tools: &[],
        may_delegate: false,
        google_connected: true,
        chain: None,
        quiet_until: None,
    }
}

/// A plain forked job with the default options.
fn base() -> PreambleInputs<'static> {
    with(&DEFAULTS)
}

/// The preamble's sections (split on blank lines).
fn sections(text: &str) -> Vec<&str> {
    text.split("\n\n").collect()
}

#[test]
fn update_mode_parses_and_prints() {
    for mode in [
        UpdateMode::OnPing,
        UpdateMode::Always,
        UpdateMode::Freely,
        UpdateMode::Blocked,
    ] {
        assert_eq!(UpdateMode::parse(mode.as_str()), Some(mode));
    }
    assert_eq!(UpdateMode::parse("sometimes"), None);
    assert_eq!(UpdateMode::default(), UpdateMode::OnPing);
}

#[test]
fn each_update_mode_has_its_own_text() {
    let text = |mode, allow_ping| update_section(mode, allow_ping);
    let always = text(UpdateMode::Always, true);
    let on_ping = text(UpdateMode::OnPing, true);
    let freely = text(UpdateMode::Freely, true);
    let blocked_ping = text(UpdateMode::Blocked, true);
    let blocked_silent = text(UpdateMode::Blocked, false);
    let all = [always, on_ping, freely, blocked_ping, blocked_silent];
    for (i, a) in all.iter().enumerate() {
        assert!(a.contains("report_updates"), "{a}");
        for b in &all[i + 1..] {
            assert_ne!(a, b);
        }
    }
    assert!(always.contains("MUST call `report_updates(message)`"));
    assert!(on_ping.contains("ping or an embed, you MUST call `report_updates`"));
    assert!(on_ping.contains("call neither"));
    assert!(freely.contains("optional"));
    assert!(freely.contains("If you pinged the user, do report"));
    assert!(blocked_ping.contains("not available"));
    assert!(blocked_ping.contains("won't even know this task ran"));
    assert!(blocked_ping.contains("ping the user directly"));
    assert!(blocked_silent.contains("runs silently"));
    assert!(!blocked_silent.contains("ping"));
}

#[test]
fn ping_disabled_is_stated_and_budget_omitted() {
    let options = RunOptions {
        allow_ping: false,
        ..RunOptions::default()
    };
    let mut inputs = with(&options);
    inputs.busy = true;
    let text = build_preamble(&inputs);
    assert!(text.starts_with("Nobody reads your text output here"));
    assert!(text.contains("Pinging is disabled for this task"));
    assert!(!text.contains("Ping budget:"));
    assert!(!text.contains("middle of a conversation"));
    assert!(!text.contains("No more bg tasks today."));
}

#[test]
fn busy_line_only_when_busy_and_ping_allowed() {
    assert!(!build_preamble(&base()).contains("middle of a conversation"));
    let mut busy = base();
    busy.busy = true;
    let text = build_preamble(&busy);
    let line = sections(&text)[2];
    assert!(line.starts_with("The user is in the middle of a conversation"));
    assert!(line.contains("`critical=True`"));
    assert!(line.contains("`report_updates`"));
    let blocked = RunOptions {
        update_mode: UpdateMode::Blocked,
        ..RunOptions::default()
    };
    busy.options = &blocked;
    let text = build_preamble(&busy);
    assert!(!sections(&text)[2].contains("report_updates"));
}

#[test]
fn budget_section_contents() {
    let text = build_preamble(&base());
    let budget = sections(&text)[2];
    assert!(budget.starts_with(&format!(
        "Ping budget: {STATUS}.\nNo more bg tasks today.\n"
    )));
    assert!(budget.contains("Send at most 1 ping or embed per bg session."));
    assert!(budget.contains("would the user be sorry to have missed it?"));
    assert!(budget.contains("`report_updates`"));
    assert!(budget.contains("`critical=True` bypasses the budget"));

    let options = RunOptions {
        update_mode: UpdateMode::Blocked,
        ..RunOptions::default()
    };
    let mut blocked = with(&options);
    blocked.budget_status = None;
    blocked.schedule_text = None;
    let text = build_preamble(&blocked);
    let budget = sections(&text)[2];
    assert!(budget.starts_with("Send at most 1 ping or embed per bg session."));
    assert!(budget.contains("Skip low-stakes check-ins"));
    assert!(!budget.contains("report_updates"));
}

#[test]
fn blocked_without_ping_is_silent() {
    let options = RunOptions {
        allow_ping: false,
        update_mode: UpdateMode::Blocked,
        ..RunOptions::default()
    };
    let mut inputs = with(&options);
    inputs.google_connected = false;
    assert_eq!(
        build_preamble(&inputs),
        "Nobody reads your text output here; it is discarded. Pinging is disabled for this \
         task: `ping_user` and `discord_embed` are not available.\n\n\
         This task runs silently: reporting is blocked (`report_updates` is not available) \
         and nothing from it reaches the main session.\n\n\
         Google is not connected: skip the Google tools (`google_tasks`, `google_calendar`, \
         `gmail`) and carry on with the rest of the task."
    );
}

#[test]
fn tool_restrictions_only_when_declared() {
    assert!(!build_preamble(&base()).contains("TOOL RESTRICTIONS"));
    let allowed = RunOptions {
        tools: ToolRestriction::Allowed(vec!["mcp__discord__gmail".into(), "Read".into()]),
        ..RunOptions::default()
    };
    assert!(build_preamble(&with(&allowed)).contains(
        "\n\nTOOL RESTRICTIONS: Only these tools are available for this task:\n  \
         - mcp__discord__gmail\n  - Read\n\n"
    ));
    let disallowed = RunOptions {
        tools: ToolRestriction::Disallowed(vec!["WebSearch".into()]),
        ..RunOptions::default()
    };
    assert!(build_preamble(&with(&disallowed)).contains(
        "\n\nTOOL RESTRICTIONS: These tools are NOT available for this task:\n  - WebSearch\n\n"
    ));
}

#[test]
fn user_proxy_hint_only_when_delegation_possible() {
    assert!(!build_preamble(&base()).contains("user-proxy"));
    let mut inputs = base();
    inputs.may_delegate = true;
    assert!(
        build_preamble(&inputs).contains("For preference decisions, spawn the user-proxy subagent")
    );
}

#[test]
fn persistent_note_comes_first_as_two_lines() {
    assert!(!build_preamble(&base()).contains("SESSION:"));
    let mut inputs = base();
    inputs.session = BgSession::Persistent;
    let text = build_preamble(&inputs);
    let first = sections(&text)[0];
    assert_eq!(
        first.lines().collect::<Vec<_>>(),
        [
            "SESSION: Persistent — your context carries across fires.",
            "You have a `compact_session` tool to compress context when it grows large.",
        ]
    );
    assert!(sections(&text)[1].starts_with("Nobody reads your text output"));
}

#[test]
fn skills_and_subagent_blocks() {
    let options = RunOptions {
        skills: vec!["morning-plan".to_string(), "inbox-zero".to_string()],
        subagent: Some("gmail-reader".to_string()),
        ..RunOptions::default()
    };
    let text = build_preamble(&with(&options));
    let all = sections(&text);
    let n = all.len();
    assert_eq!(
        all[n - 2],
        "REQUIRED SKILLS: Before you start on the task, invoke each of these skills with the \
         Skill tool and follow its instructions:\n  - morning-plan\n  - inbox-zero"
    );
    assert!(all[n - 1].starts_with(
        "REQUIRED SUBAGENT: Hand the core of this task to the `gmail-reader` subagent"
    ));
    assert!(all[n - 3].starts_with("Google is connected"));
    assert_eq!(skills_block(&[]), None);
    assert_eq!(subagent_block("  "), None);
}

#[test]
fn chain_context_mid_and_final() {
    let mid = chain_context(&ChainContext { depth: 0, max: 2 }).unwrap();
    assert!(mid.starts_with("CHAIN CONTEXT: This is a follow-up chain reminder (check 1 of 3)."));
    assert!(mid.contains("`follow_up_chain(minutes_from_now=N)`"));
    assert!(mid.contains("\"checking in again\""));
    let last = chain_context(&ChainContext { depth: 2, max: 2 }).unwrap();
    assert!(last.starts_with("CHAIN CONTEXT: This is the FINAL check"));
    assert!(last.contains("(check 3 of 3)"));
    assert!(last.contains("`follow_up_chain` is NOT available"));
    assert!(last.contains("`report_updates`"));
    assert_eq!(chain_context(&ChainContext { depth: 0, max: 0 }), None);

    let chain = ChainContext { depth: 1, max: 2 };
    let options = RunOptions {
        skills: vec!["x".to_string()],
        ..RunOptions::default()
    };
    let mut inputs = with(&options);
    inputs.chain = Some(&chain);
    let text = build_preamble(&inputs);
    let all = sections(&text);
    assert!(
        all[all.len() - 1]
            .starts_with("CHAIN CONTEXT: This is a follow-up chain reminder (check 2 of 3)")
    );
    assert!(all[all.len() - 2].starts_with("REQUIRED SKILLS"));
}

/// One realistic preamble in full, so that any wording change is deliberate.
#[test]
fn golden_busy_chain_reminder() {
    let options = RunOptions {
        tools: ToolRestriction::Allowed(vec![
            "mcp__discord__google_calendar".to_string(),
            "Agent".to_string(),
        ]),
        skills: vec!["meds-check".to_string()],
        ..RunOptions::default()
    };
    let chain = ChainContext { depth: 1, max: 3 };
    let schedule = "Upcoming bg tasks (next 3h):\n\
                    - 9:00 AM: Chain reminder (2/4) — \"Did you take your meds?\" (reminders/meds.md) [this task]\n\
                    - 9:30 AM: Routine (silent) — \"Check email\" (routines/email-digest.md)\n\
                    - 12:00 PM: Lunch break — \"Lunch break\" (routines/lunch.md)\n\
                    ~2 refills before last task.";
    let inputs = PreambleInputs {
        session: BgSession::Forked,
        options: &options,
        busy: true,
        budget_status: Some(STATUS.to_string()),
        schedule_text: Some(format!("{schedule}\n")),
        held_tools: &[],
        may_delegate: true,
        google_connected: false,
        chain: Some(&chain),
        quiet_until: None,
    };
    let expected = "\
Nobody reads your text output here; it is discarded. To reach the user, call `ping_user` for a plain-text alert or `discord_embed` for structured information.

This is a separate background session, and by default nothing from it reaches the main session.
- To pass something on, call `report_updates(message)`; the main session sees it on its next turn.
- If you sent a ping or an embed, you MUST call `report_updates` as well.
- If nothing useful happened, call neither.

The user is in the middle of a conversation right now. Don't use `ping_user` or `discord_embed` unless the matter warrants `critical=True`; put your findings in `report_updates` instead, and they will show up once the conversation ends.

Ping budget: 3/5 available (refills 1 every 90 min, next in 45 min).
Upcoming bg tasks (next 3h):
- 9:00 AM: Chain reminder (2/4) — \"Did you take your meds?\" (reminders/meds.md) [this task]
- 9:30 AM: Routine (silent) — \"Check email\" (routines/email-digest.md)
- 12:00 PM: Lunch break — \"Lunch break\" (routines/lunch.md)
~2 refills before last task.
Send at most 1 ping or embed per bg session.
Regret test before any ping: would the user be sorry to have missed it? Informational summaries and low-stakes check-ins belong in `report_updates`; time-sensitive actions, accountability nudges and health routines deserve a ping.
When the budget is tight, spend pings only on tasks that pass the regret test.
`critical=True` bypasses the budget; keep it for things the user would be devastated to miss.

TOOL RESTRICTIONS: Only these tools are available for this task:
  - mcp__discord__google_calendar
  - Agent

For preference decisions, spawn the user-proxy subagent (Agent tool) instead of guessing what the user would choose.

Google is not connected: skip the Google tools (`google_tasks`, `google_calendar`, `gmail`) and carry on with the rest of the task.

REQUIRED SKILLS: Before you start on the task, invoke each of these skills with the Skill tool and follow its instructions:
  - meds-check

CHAIN CONTEXT: This is a follow-up chain reminder (check 2 of 4). If the matter still needs following up, call `follow_up_chain(minutes_from_now=N)` to schedule the next check; if it is done or no longer needs attention, don't call it and the chain ends here. When you ping, make the follow-up nature clear (e.g. \"checking in again\") so the user knows it is deliberate.";
    assert_eq!(build_preamble(&inputs), expected);
}

/// QUI-4: in quiet time a run that may ping hears until when its pings are held; one
/// that may not ping hears nothing of it.
#[test]
fn quiet_time_is_named_to_runs_that_may_ping() {
    let quiet = PreambleInputs {
        quiet_until: Some("08:00".to_owned()),
        ..base()
    };
    let text = build_preamble(&quiet);
    assert!(
        text.contains("QUIET TIME: the owner is in quiet time until 08:00."),
        "{text}"
    );
    let silent = RunOptions {
        allow_ping: false,
        ..RunOptions::default()
    };
    let text = build_preamble(&PreambleInputs {
        quiet_until: Some("08:00".to_owned()),
        ..with(&silent)
    });
    assert!(!text.contains("QUIET TIME"), "{text}");
}
