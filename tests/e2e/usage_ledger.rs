//! The usage ledger through the real parts (USE-1, USE-2, USE-4): the real bot and CLI against
//! the mock model; `ollim-bot usage` reads what they recorded.

use std::{collections::BTreeMap, time::Duration};

use serde_json::{Value, json};

use crate::support::{
    bot::{BotHarness, ollim_command},
    mock_api::Reply,
};

/// What the bot logs, with the job's tag, each time a background job is refused for the
/// budget.
const REFUSED: &str = "over today's background budget; not run";

/// `ollim-bot usage --json --by <by>` on the harness's data dir.
async fn usage(h: &BotHarness, by: &str) -> Value {
    let out = ollim_command(&h.sandbox, &h.mock)
        .args(["usage", "--json", "--by", by, "--since", "1d"])
        .output()
        .await
        .expect("run ollim-bot usage");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("usage --json prints JSON")
}

/// `/config bg_daily_budget <value>` in the DM; returns the answer.
async fn set_budget(h: &BotHarness, value: &str) -> Value {
    let command = h
        .discord
        .slash(
            h.owner(),
            "config",
            json!([
                {"name": "key", "type": 3, "value": "bg_daily_budget"},
                {"name": "value", "type": 3, "value": value},
            ]),
        )
        .await;
    h.discord.wait_for_callback(command).await
}

/// The ledger's records that ended as `ended`.
fn ended_as(h: &BotHarness, ended: &str) -> Vec<Value> {
    std::fs::read_dir(h.sandbox.data_dir.join("state/usage"))
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter_map(|entry| std::fs::read_to_string(entry.path()).ok())
        .flat_map(|text| {
            text.lines()
                .filter_map(|line| serde_json::from_str::<Value>(line).ok())
                .collect::<Vec<_>>()
        })
        .filter(|record| record["ended"] == ended)
        .collect()
}

/// A main turn, then a reminder's quiet background run, both finished, and the run's
/// reflection written (USE-1, BGF-22).
pub(crate) async fn a_turn_and_a_reminder_run(h: &BotHarness) {
    h.converse("hi", "Hi!").await;
    h.mock.add_rule(|request| {
        let prompt = request.user_prompts().join("\n");
        prompt
            .contains("[reminder-bg:")
            .then(|| Reply::text("checked quietly"))
    });
    h.add_reminder_now("water the plants").await;
    h.wait_for_log("background run finished", Duration::from_secs(30))
        .await;
    h.wait_for_log("reflection written", Duration::from_secs(60))
        .await;
}

fn group<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["groups"]
        .as_array()
        .and_then(|groups| groups.iter().find(|g| g["name"] == name))
        .map_or(&Value::Null, |g| &g["totals"])
}

/// USE-1, USE-2, USE-4, USE-8: a main turn and a reminder's background run each leave one
/// record with the CLI's cost and tokens; after the bot stops, `usage` sums them by kind and by
/// job; the next start's greeting says what was spent.
#[tokio::test]
async fn each_turn_and_run_leaves_one_record_that_usage_sums() {
    let mut h = BotHarness::start().await;
    h.greeted().await;
    a_turn_and_a_reminder_run(&h).await;
    h.terminate().await;

    let by_kind = usage(&h, "kind").await;
    assert_eq!(group(&by_kind, "main")["runs"], 1, "{by_kind:#}");
    assert_eq!(group(&by_kind, "reminder")["runs"], 1, "{by_kind:#}");
    assert_eq!(group(&by_kind, "reflection")["runs"], 1, "{by_kind:#}");
    assert_eq!(by_kind["total"]["runs"], 3, "{by_kind:#}");
    let cost = by_kind["total"]["cost_usd"].as_f64().unwrap();
    assert!(cost > 0.0, "the CLI's reported cost is kept: {by_kind:#}");
    assert!(
        by_kind["total"]["output_tokens"].as_u64().unwrap() > 0,
        "{by_kind:#}"
    );
    let by_job = usage(&h, "job").await;
    let reminder = by_job["groups"].as_array().unwrap().iter().find(|g| {
        g["name"]
            .as_str()
            .is_some_and(|n| n.starts_with("reminder:"))
    });
    assert!(
        reminder.is_some(),
        "the reminder's run is filed under its job: {by_job:#}"
    );
    assert_eq!(by_job["skipped_lines"], json!(0));

    // USE-8: the next greeting carries yesterday's spend and the week's so far.
    let mut h = h.restart(&[]).await;
    let greeting = h
        .wait_for_bot_message("the greeting with the spend", |m| {
            m.content.contains("i'm back")
        })
        .await;
    assert!(
        greeting.content.contains("-# spend: yesterday $"),
        "{}",
        greeting.content
    );
    h.terminate().await;
}

/// USE-6: once today's background spend reaches the budget, a reminder's run waits (its file
/// kept, the owner told once) while the owner's own message is still answered; lifting the
/// budget lets the waiting reminder fire.
#[tokio::test]
async fn over_the_daily_budget_background_runs_wait_and_the_owner_hears_it_once() {
    let sandbox = crate::support::cli::CliSandbox::new();
    // Background work already spent a dollar today.
    sandbox.record_background_spend(1.0);
    let mut h = BotHarness::greeted_fast_sync(sandbox).await;
    set_budget(&h, "0.50").await;
    h.mock.add_rule(|request| {
        let prompt = request.user_prompts().join("\n");
        prompt
            .contains("[reminder-bg:")
            .then(|| Reply::text("watered"))
    });
    let ran = |h: &BotHarness| {
        h.mock
            .main_requests()
            .iter()
            .any(|r| r.user_prompts().iter().any(|p| p.contains("[reminder-bg:")))
    };
    h.add_reminder_now("water the plants").await;
    h.add_reminder_now("feed the cat").await;
    let told = h
        .wait_for_bot_message("the budget notice", |m| {
            m.content.contains("reaches today's budget of $0.50")
        })
        .await;
    // A dollar, or two when both records fall on the day checked.
    assert!(
        told.content.contains("$1.00 today") || told.content.contains("$2.00 today"),
        "{}",
        told.content
    );
    // The owner's own message still gets an answer.
    h.converse("still there?", "Always.").await;
    // Both fires are held back, and the owner is not told again (a second notice would come
    // with a later refusal). Over budget a reminder is refused, logged with its tag, and
    // tried again a sync later, one fire after the other; a fire that ran would end that
    // chain. Each reminder refused twice more after the owner's turn has so had every fire
    // so far refused, and the first of those two told the owner whatever it was going to.
    let refusals = |h: &BotHarness| -> BTreeMap<String, usize> {
        let mut by_tag = BTreeMap::new();
        for line in h.log().lines().filter(|line| line.contains(REFUSED)) {
            if let Some((_, rest)) = line.split_once("tag=") {
                let tag = rest.split_whitespace().next().unwrap_or_default();
                *by_tag.entry(tag.to_owned()).or_insert(0) += 1;
            }
        }
        by_tag
    };
    let after_turn = refusals(&h);
    crate::support::wait::until_true(
        "both reminders refused twice more",
        Duration::from_secs(30),
        || {
            let now = refusals(&h);
            now.len() == 2
                && now
                    .iter()
                    .all(|(tag, n)| *n >= after_turn.get(tag).copied().unwrap_or(0) + 2)
        },
        || h.log(),
    )
    .await;
    assert!(!ran(&h), "a background run went ahead over the budget");
    let notices = h
        .bot_messages()
        .iter()
        .filter(|m| m.content.contains("reaches today's budget"))
        .count();
    assert_eq!(notices, 1, "told once");
    let kept = std::fs::read_dir(h.sandbox.data_dir.join("reminders"))
        .unwrap()
        .count();
    assert_eq!(kept, 2, "the reminders wait for the next day");

    // Lifting the budget lets the waiting reminders fire.
    let said = set_budget(&h, "off").await;
    assert_eq!(said["data"]["content"], "**bg_daily_budget**: off");
    crate::support::wait::until_true(
        "the waiting reminders' runs",
        Duration::from_secs(30),
        || ran(&h),
        || h.log(),
    )
    .await;
    h.terminate().await;
}

/// USE-7: a background run stopped at its time limit is on record as `timed_out`, and the
/// owner is told.
#[tokio::test]
async fn a_run_stopped_at_its_time_limit_is_on_record() {
    let sandbox = crate::support::cli::CliSandbox::new();
    let state = sandbox.data_dir.join("state");
    std::fs::create_dir_all(&state).unwrap();
    std::fs::write(state.join("config.json"), r#"{"bg_fork_timeout": 1}"#).unwrap();
    let mut h = BotHarness::greeted_fast_sync(sandbox).await;
    h.mock.add_rule(|request| {
        let prompt = request.user_prompts().join("\n");
        prompt
            .contains("[reminder-bg:")
            .then(|| Reply::text("too slow").with_initial_delay(Duration::from_secs(10)))
    });
    h.add_reminder_now("a slow one").await;
    let told = h
        .wait_for_bot_message("the time-out notice", |m| {
            m.content.contains("its time limit")
        })
        .await;
    assert!(
        told.content.contains("stopped after 1s"),
        "{}",
        told.content
    );
    // The record is written by the usage writer, a moment after the run was stopped.
    let stopped_runs = || ended_as(&h, "timed_out");
    crate::support::wait::until_true(
        "the timed-out run's record",
        Duration::from_secs(10),
        || !stopped_runs().is_empty(),
        || h.log(),
    )
    .await;
    let stopped = stopped_runs();
    assert_eq!(stopped.len(), 1, "{stopped:?}");
    assert_eq!(stopped[0]["kind"], "reminder");
    assert_eq!(stopped[0]["duration_ms"], 1000);
    h.terminate().await;
}

/// USE-7: a background run that keeps calling the model past `bg_max_turns` is stopped by the
/// CLI after that many calls, on record as `max_turns` with what it used, and the owner is
/// told once.
#[tokio::test]
async fn a_run_past_its_turn_limit_is_stopped_and_on_record() {
    let sandbox = crate::support::cli::CliSandbox::new();
    let state = sandbox.data_dir.join("state");
    std::fs::create_dir_all(&state).unwrap();
    std::fs::write(state.join("config.json"), r#"{"bg_max_turns": 2}"#).unwrap();
    let mut h = BotHarness::greeted_fast_sync(sandbox).await;
    // The reminder's run never stops asking for one more tool call.
    h.mock.add_rule(|request| {
        let prompt = request.user_prompts().join("\n");
        prompt
            .contains("[reminder-bg:")
            .then(|| Reply::tool_use("Glob", json!({"pattern": "no-such-file-*.md"})))
    });
    let calls = |h: &BotHarness| {
        h.mock
            .main_requests()
            .iter()
            .filter(|r| r.user_prompts().iter().any(|p| p.contains("[reminder-bg:")))
            .count()
    };
    h.add_reminder_now("loop forever").await;
    let told = h
        .wait_for_bot_message("the turn-limit notice", |m| {
            m.content.contains("model calls, its limit")
        })
        .await;
    assert!(
        told.content.contains("stopped after 2 model calls"),
        "{}",
        told.content
    );
    crate::support::wait::until_true(
        "the stopped run's record",
        Duration::from_secs(10),
        || !ended_as(&h, "max_turns").is_empty(),
        || h.log(),
    )
    .await;
    let stopped = ended_as(&h, "max_turns");
    assert_eq!(stopped.len(), 1, "{stopped:?}");
    assert!(
        stopped[0]["output_tokens"].as_u64().unwrap() > 0,
        "{stopped:?}"
    );
    assert_eq!(calls(&h), 2, "the CLI stops calling the model at the limit");
    // The notice went out as the run ended, before its reminder's file was removed; once
    // the scheduler has forgotten the reminder (its file gone), nothing is left to fire it
    // again and tell a second time.
    h.wait_for_log(
        "reminder forgotten: its file is gone",
        Duration::from_secs(30),
    )
    .await;
    let notices = h
        .bot_messages()
        .iter()
        .filter(|m| m.content.contains("its limit"))
        .count();
    assert_eq!(notices, 1, "told once\n{}", h.log());
    h.terminate().await;
}

/// USE-8: a background run (a weekly review) reads the week's spend with `spend_report`, offered
/// to background runs by default; it answers from the ledger, with the main turn before it.
#[tokio::test]
async fn a_weekly_report_reads_the_week_s_spend_from_the_ledger() {
    let mut h = BotHarness::greeted_fast_sync(crate::support::cli::CliSandbox::new()).await;
    h.converse("hi", "Hi!").await;
    h.mock
        .answer_reminder_runs("mcp__discord__spend_report", json!({}), "reported");
    h.add_reminder_now("the weekly review").await;
    h.wait_for_log("background run finished", Duration::from_secs(30))
        .await;
    let answers: Vec<_> = h
        .mock
        .model_requests()
        .iter()
        .filter(|r| r.user_prompts().iter().any(|p| p.contains("[reminder-bg:")))
        .flat_map(crate::support::mock_api::RecordedRequest::tool_results)
        .collect();
    assert_eq!(answers.len(), 1, "{answers:?}");
    let report = &answers[0];
    assert!(!report.is_error, "{report:?}");
    assert!(report.content.contains("this week $"), "{}", report.content);
    assert!(
        report.content.contains("30 days by kind: main $"),
        "{}",
        report.content
    );
    h.terminate().await;
}
