//! Reminder chains: three links run and the chain ends at its limit.

use std::time::Duration;

use serde_json::json;

use super::{cli, greeted, scheduled_id, wait_until};
use crate::support::{self, bot::BotHarness, cli::CliSandbox};

#[tokio::test]
async fn a_chain_runs_three_links_and_ends_at_the_limit() {
    let mut h = greeted(CliSandbox::new()).await;
    h.mock.answer_reminder_runs(
        "mcp__discord__follow_up_chain",
        json!({"minutes_from_now": 1}),
        "checked",
    );
    let (code, stdout, stderr) = cli(
        &h,
        &[
            "reminder",
            "add",
            "-m",
            "Is the CI green yet?",
            "--delay",
            "0",
            "--max-chain",
            "2",
        ],
    )
    .await;
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("(chain 0/2)"), "{stdout}");
    let root = scheduled_id(&stdout);
    let reminders = h.sandbox.data_dir.join("reminders");
    for check in 1..=3 {
        let marker = format!("check {check} of 3");
        let seen = |h: &BotHarness| {
            h.mock
                .main_requests()
                .iter()
                .any(|r| r.user_prompts().iter().any(|p| p.contains(&marker)))
        };
        // The bot's log with the timeout: a CI run once saw check 2 never come (issue 29's
        // stop), and without the log it could not say why.
        support::wait::until_true(&marker, Duration::from_secs(30), || seen(&h), || h.log()).await;
        if check == 3 {
            break;
        }
        // The follow-up is due in a minute: bring it forward instead of waiting.
        let mut follow_up = None;
        wait_until("the follow-up file", Duration::from_secs(30), || {
            follow_up = std::fs::read_dir(&reminders).ok().and_then(|dir| {
                dir.filter_map(Result::ok).map(|e| e.path()).find(|p| {
                    std::fs::read_to_string(p)
                        .is_ok_and(|t| t.contains(&format!("chain-depth: {check}")))
                })
            });
            follow_up.is_some()
        })
        .await;
        let path = follow_up.unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.contains(&format!("chain-parent: \"{root}\"")),
            "{text}"
        );
        let now = chrono::Utc::now().to_rfc3339();
        let moved: String = text
            .lines()
            .map(|line| {
                if line.starts_with("run-at:") {
                    format!("run-at: \"{now}\"")
                } else {
                    line.to_owned()
                }
            })
            .collect::<Vec<_>>()
            .join("\n");
        h.sandbox.replace_file(&path, &(moved + "\n"));
    }
    let limit = "Error: follow-up limit reached — this was the last check. If the task still \
                 needs attention, ping the user now.";
    wait_until("the limit error", Duration::from_secs(30), || {
        h.mock
            .main_requests()
            .iter()
            .flat_map(support::mock_api::RecordedRequest::tool_results)
            .any(|r| r.content == limit)
    })
    .await;
    let finals: Vec<String> = h
        .mock
        .main_requests()
        .iter()
        .flat_map(|r| r.user_prompts().into_iter().map(str::to_owned))
        .filter(|p| p.contains("check 3 of 3"))
        .collect();
    assert!(finals[0].contains("FINAL"), "{}", finals[0]);
    h.terminate().await;
}
