//! The reminder tools through the real CLI and the mock model (MCP-10…12, REM-2, REM-3,
//! GIT-2): a reminder set, listed and cancelled by the agent, with every argument error.

use crate::support;

use serde_json::json;
use support::{agent::AgentHarness, mock_api::Reply};

fn results(h: &AgentHarness) -> Vec<String> {
    h.mock
        .main_requests()
        .last()
        .unwrap()
        .tool_results()
        .into_iter()
        .map(|r| r.content)
        .collect()
}

#[tokio::test]
async fn the_agent_sets_lists_and_cancels_reminders() {
    let h = AgentHarness::new().await;
    h.mock.push(
        Reply::tool_use(
            "mcp__discord__add_reminder",
            json!({"prompt": "Ask Julia whether she called mom", "delay_minutes": 30,
                   "description": "call mom"}),
        )
        .and_tool_use(
            "mcp__discord__add_reminder",
            json!({"prompt": "Water the plants", "run_at": "2099-01-01T09:00",
                   "foreground": true}),
        )
        .and_tool_use(
            "mcp__discord__add_reminder",
            json!({"prompt": "x", "delay_minutes": 5, "run_at": "2099-01-01T09:00"}),
        )
        .and_tool_use("mcp__discord__add_reminder", json!({"prompt": "x"}))
        .and_tool_use(
            "mcp__discord__add_reminder",
            json!({"prompt": "x", "run_at": "next tuesday"}),
        )
        .and_tool_use(
            "mcp__discord__add_reminder",
            json!({"prompt": "x", "run_at": "2001-01-01T09:00:00Z"}),
        ),
    );
    h.mock.push(Reply::text("Set."));
    h.exchange("remind me in 30 minutes to call mom")
        .await
        .unwrap();
    let set = results(&h);
    assert!(
        set[0].starts_with("Reminder ") && set[0].contains(" set for "),
        "{set:?}"
    );
    assert!(set[1].ends_with(" set for 9:00 AM."), "{set:?}");
    assert_eq!(set[2], "Error: provide delay_minutes OR run_at, not both.");
    assert_eq!(set[3], "Error: provide either delay_minutes or run_at.");
    assert_eq!(set[4], "Error: invalid ISO datetime: next tuesday");
    assert_eq!(set[5], "Error: run_at is in the past.");
    let id = set[0]
        .strip_prefix("Reminder ")
        .and_then(|rest| rest.split(' ').next())
        .unwrap()
        .to_owned();

    h.mock
        .push(Reply::tool_use("mcp__discord__list_reminders", json!({})));
    h.mock.push(Reply::text("Listed."));
    h.exchange("what reminders do I have?").await.unwrap();
    let listed = results(&h).remove(0);
    let lines: Vec<&str> = listed.lines().collect();
    assert_eq!(lines.len(), 2, "{listed}");
    assert!(lines[0].starts_with(&format!("- {id} [bg] ")), "{listed}");
    assert!(lines[0].contains(" — call mom  (reminders/"), "{listed}");
    assert!(
        lines[1].contains(" [fg] 2099-01-01 09:00 AM — (no description)"),
        "{listed}"
    );

    h.mock.push(
        Reply::tool_use("mcp__discord__cancel_reminder", json!({"reminder_id": id})).and_tool_use(
            "mcp__discord__cancel_reminder",
            json!({"reminder_id": "nope1234"}),
        ),
    );
    h.mock.push(Reply::text("Cancelled."));
    h.exchange("cancel the mom reminder").await.unwrap();
    let cancelled = results(&h);
    assert_eq!(cancelled[0], format!("Reminder {id} cancelled."));
    assert_eq!(cancelled[1], "Error: no reminder found with ID nope1234.");
    let log = h.git_log().await;
    assert!(log.contains(&format!("add reminder {id}")), "{log}");
    assert!(log.contains(&format!("remove reminder {id}")), "{log}");
    h.close().await;
}
