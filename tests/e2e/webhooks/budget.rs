//! Webhook requests over today's background budget (USE-6): they wait, unscreened and unrun,
//! the owner hears of the budget once, the owner's own messages are still answered, and the
//! requests are screened and run once the budget is lifted.

use std::time::Duration;

use serde_json::json;

use super::{Hooks, script};
use crate::support::{cli::CliSandbox, mock_api::Reply, wait};

/// What the bot logs each time it has looked at the requests waiting for the budget.
const LOOKED: &str = "looked at the webhook requests waiting for the budget";

#[tokio::test]
async fn requests_over_the_budget_wait_and_run_once_it_allows() {
    let sandbox = CliSandbox::new();
    sandbox.record_background_spend(1.0);
    let state = sandbox.data_dir.join("state");
    std::fs::write(state.join("config.json"), r#"{"bg_daily_budget": "0.50"}"#).unwrap();
    let hooks = Hooks::start_in(sandbox).await;
    script(
        &hooks.h.mock,
        Reply::text(r#"{"safe": true, "flagged": []}"#),
    );
    hooks.h.converse("hi", "morning!").await;
    for note in ["first", "second"] {
        let body = format!(r#"{{"repo": "ollim", "status": "failure", "note": "{note}"}}"#);
        assert_eq!(hooks.post("ci", &body).await.status, 202);
    }
    hooks
        .h
        .wait_for_bot_message("the budget notice", |m| {
            m.content.contains("reaches today's budget of $0.50")
                && m.content.contains("webhook requests wait")
        })
        .await;
    // Nothing is spent on them: no screening, no run, and the notice comes once. Each
    // request's handling keeps it waiting and ends; the watcher that lets waiting requests go
    // looks at them every second (here) and has looked twice more since both waited; a turn
    // of the owner's after that is still answered.
    let held_file = state.join("held_webhooks.json");
    let waiting = || {
        std::fs::read_to_string(&held_file)
            .unwrap_or_default()
            .matches("over_budget")
            .count()
    };
    wait::until_true(
        "both requests waiting",
        Duration::from_secs(30),
        || waiting() == 2,
        || hooks.h.log(),
    )
    .await;
    let looks = hooks.h.log().matches(LOOKED).count();
    hooks
        .h
        .wait_for_log_count(LOOKED, looks + 2, Duration::from_secs(30))
        .await;
    hooks.h.converse("still there?", "Always.").await;
    assert!(
        hooks.screenings().is_empty(),
        "a waiting request was screened"
    );
    assert!(hooks.runs_of("ci").is_empty(), "a waiting request ran");
    let notices = hooks
        .h
        .bot_messages()
        .iter()
        .filter(|m| m.content.contains("reaches today's budget"))
        .count();
    assert_eq!(notices, 1, "told once");
    assert_eq!(
        waiting(),
        2,
        "{}",
        std::fs::read_to_string(&held_file).unwrap()
    );

    // Lifting the budget lets both requests through the screening and into their runs.
    let command = hooks
        .h
        .discord
        .slash(
            hooks.h.owner(),
            "config",
            json!([
                {"name": "key", "type": 3, "value": "bg_daily_budget"},
                {"name": "value", "type": 3, "value": "off"},
            ]),
        )
        .await;
    hooks.h.discord.wait_for_callback(command).await;
    wait::until_true(
        "both waiting requests run",
        Duration::from_secs(60),
        || {
            let runs = hooks.runs_of("ci");
            runs.iter().any(|r| r.contains("- note: first"))
                && runs.iter().any(|r| r.contains("- note: second"))
        },
        || hooks.h.log(),
    )
    .await;
    assert_eq!(hooks.screenings().len(), 2, "each is screened once");
    let held = std::fs::read_to_string(state.join("held_webhooks.json")).unwrap();
    assert!(!held.contains("over_budget"), "{held}");
}
