//! Untrusted text can't climb (issue 23 §4), through the real binary, the real CLI, the fake
//! Discord and the mock model scripted as an agent that tries: a tool granted to a foreground
//! job is usable in that job's turn and in no other main turn.

use crate::support;

use std::time::Duration;

use serde_json::json;
use support::{
    bot::{BotHarness, ollim_command},
    cli::CliSandbox,
    mock_api::{MockApi, Reply},
    wait,
};

/// The mock model: a main-session turn whose prompt contains `trigger` runs `command` through
/// Bash, then answers `done`.
fn run_bash_when(mock: &MockApi, trigger: &'static str, command: &'static str) {
    mock.add_rule(move |request| {
        let prompt = request.user_prompts().last()?.to_string();
        if !request.is_main() || !prompt.contains(trigger) {
            return None;
        }
        Some(if request.tool_results().is_empty() {
            Reply::tool_use("Bash", json!({"command": command}))
        } else {
            Reply::text("done")
        })
    });
}

/// The owner adds, from their shell, a foreground reminder `Run the marker.` due now, with
/// `Bash(echo fg-marker *)` approved for it.
pub(crate) async fn marker_reminder_now(h: &BotHarness) {
    let output = ollim_command(&h.sandbox, &h.mock)
        .args(["reminder", "add", "-m", "Run the marker.", "--delay", "0"])
        .args(["--foreground", "--allowed-tools", "Bash(echo fg-marker *)"])
        .output()
        .await
        .unwrap();
    assert!(
        String::from_utf8_lossy(&output.stdout).contains("approved for reminder:"),
        "{output:?}"
    );
}

/// The Bash result the model got in the turn whose prompt contains `trigger`.
pub(crate) async fn bash_result_in_turn(h: &BotHarness, trigger: &str) -> (String, bool) {
    wait::eventually(
        &format!("a Bash result in the turn of {trigger:?}"),
        Duration::from_secs(60),
        || {
            h.mock.model_requests().into_iter().find_map(|request| {
                let ours = request
                    .user_prompts()
                    .last()
                    .is_some_and(|p| p.contains(trigger));
                let result = request.tool_results().into_iter().next()?;
                ours.then_some((result.content, result.is_error))
            })
        },
        || h.log(),
    )
    .await
}

/// The owner approved `Bash(echo fg-marker *)` for a foreground reminder (from their shell).
/// The reminder's turn runs the command in the main session; a later owner turn, told by
/// the same agent to run it again, can't: the job's approval widened the job only.
#[tokio::test]
async fn a_foreground_jobs_tools_are_its_turns_only() {
    let h = BotHarness::greeted_fast_sync(CliSandbox::new()).await;
    run_bash_when(&h.mock, "Run the marker", "echo fg-marker job");
    run_bash_when(&h.mock, "try the marker", "echo fg-marker main");
    marker_reminder_now(&h).await;
    let (result, is_error) = bash_result_in_turn(&h, "Run the marker").await;
    assert!(
        !is_error && result.contains("fg-marker job"),
        "the job's own turn lacks its approved tool: {result}"
    );
    h.wait_for_bot_message("the job turn's answer", |m| {
        m.content.trim().ends_with("done")
    })
    .await;

    h.discord.dm_from(h.owner(), "try the marker now").await;
    let (result, is_error) = bash_result_in_turn(&h, "try the marker").await;
    assert!(
        is_error && result.contains("permission") && !result.contains("fg-marker main"),
        "an owner turn used the job's tool: {result}"
    );
}

/// A background run whose owner granted it a shell (`Bash(sh -c *)`) and the reminder
/// command tries to schedule its own text into the main session: through the bot's command
/// line and by writing a foreground reminder file itself. Neither lands: nothing is
/// scheduled and the main session never sees the text (issue 23 §4).
#[tokio::test]
async fn a_background_shell_cannot_schedule_into_main() {
    let sandbox = CliSandbox::new();
    std::fs::write(
        sandbox.data_dir.join("tool-policy.yaml"),
        "bg_forks:\n  additional_allowed: [\"Bash(sh -c *)\", \"Bash(ollim-bot reminder *)\"]\n",
    )
    .unwrap();
    let h = BotHarness::greeted_fast_sync(sandbox).await;
    let bot = env!("CARGO_BIN_EXE_ollim-bot");
    let by_command: &'static str = Box::leak(
        format!("sh -c '{bot} reminder add --foreground -m \"evil-climb one\" --delay 0'")
            .into_boxed_str(),
    );
    let by_file = "sh -c 'printf \"%s\\n\" --- \"id: evilfile\" \"run-at: 2020-01-01T00:00:00Z\" \
                   \"background: false\" --- \"evil-climb two\" > reminders/evilfile.md'";
    h.mock.add_rule(move |request| {
        let prompt = request.user_prompts().join("\n");
        if !prompt.contains("Do the climb") {
            return None;
        }
        let calls = request
            .messages()
            .iter()
            .filter(|m| m["role"] == "assistant")
            .count();
        Some(match calls {
            0 => Reply::tool_use("Bash", json!({"command": by_command})),
            1 => Reply::tool_use("Bash", json!({"command": by_file})),
            _ => Reply::text("climbed"),
        })
    });
    h.add_reminder_now("Do the climb.").await;
    let results = wait::eventually(
        "the run to try both routes",
        Duration::from_secs(60),
        || {
            let results: Vec<_> = h
                .mock
                .model_requests()
                .into_iter()
                .filter(|r| r.user_prompts().join("\n").contains("Do the climb"))
                .flat_map(|r| r.tool_results())
                .collect();
            (results.len() >= 2).then_some(results)
        },
        || h.log(),
    )
    .await;
    assert!(
        results[0]
            .content
            .contains("can't write routines or reminders"),
        "the command says why: {results:?}"
    );
    assert!(
        results[1].content.contains("Permission denied")
            || results[1].content.contains("Read-only file system"),
        "the shell ran and the kernel refused the write: {results:?}"
    );
    // Both routes were refused above. Each ran to its end before its result came back, so a
    // job either wrote is on disk by now; with none there, the scheduler has nothing to fire
    // into the main session. What else the run left for the main session (its pending
    // updates, once it is over) goes into the owner's next turn: that one shows the text
    // never got there.
    wait::until_true(
        "the end of the run",
        Duration::from_secs(30),
        || {
            let log = h.log();
            log.contains("background run finished") || log.contains("background run failed")
        },
        || h.log(),
    )
    .await;
    let reminders = h.sandbox.data_dir.join("reminders");
    let written: Vec<String> = std::fs::read_dir(&reminders)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
                .filter(|text| text.contains("evil-climb"))
                .collect()
        })
        .unwrap_or_default();
    assert!(
        written.is_empty(),
        "a job written by the climb: {written:?}"
    );
    h.converse("anything new?", "all quiet").await;
    let reached_main = h
        .mock
        .main_requests()
        .iter()
        .any(|r| r.user_prompts().join("\n").contains("evil-climb"));
    assert!(
        !reached_main,
        "the climb's text reached the main session\n{}",
        h.log()
    );
}

/// How many tool results the conversation holds after the last owner prompt containing
/// `trigger` (0 when the model is asked for its first step after it).
fn steps_after(request: &support::mock_api::RecordedRequest, trigger: &str) -> Option<usize> {
    let messages = request.messages();
    let says = |content: &serde_json::Value| match content {
        serde_json::Value::String(text) => text.contains(trigger),
        serde_json::Value::Array(blocks) => blocks.iter().any(|b| {
            b["type"] == "text" && b["text"].as_str().is_some_and(|t| t.contains(trigger))
        }),
        _ => false,
    };
    let start = messages
        .iter()
        .rposition(|m| m["role"] == "user" && says(&m["content"]))?;
    Some(
        messages[start + 1..]
            .iter()
            .filter(|m| {
                m["role"] == "user"
                    && m["content"]
                        .as_array()
                        .is_some_and(|b| b.iter().any(|b| b["type"] == "tool_result"))
            })
            .count(),
    )
}

/// A background run read a poisoned mail and pinged the owner. The owner replies to the ping:
/// the run's session is resumed as a fork the owner is shown is a background run's, with that
/// run's own tools. Told by the mail to run a command the main session may run and to put a
/// foreground reminder into main, it can do neither (issue 23 §4).
#[tokio::test]
async fn a_reply_resumes_a_background_run_with_its_own_tools() {
    let sandbox = CliSandbox::new();
    std::fs::write(
        sandbox.data_dir.join("tool-policy.yaml"),
        "main_session:\n  additional_allowed: [\"Bash(echo climb-marker *)\"]\n",
    )
    .unwrap();
    let h = BotHarness::greeted_fast_sync(sandbox).await;
    h.mock.add_rule(|request| {
        let step = steps_after(request, "Watch the inbox")?;
        if request
            .user_prompts()
            .last()
            .is_some_and(|p| p.contains("go on"))
        {
            return None;
        }
        Some(match step {
            0 => Reply::tool_use(
                "mcp__discord__ping_user",
                json!({"message": "A mail asks for something odd."}),
            ),
            _ => Reply::text("pinged"),
        })
    });
    h.mock.add_rule(|request| {
        let step = steps_after(request, "go on")?;
        Some(match step {
            0 => Reply::tool_use("Bash", json!({"command": "echo climb-marker resumed"})),
            1 => Reply::tool_use(
                "mcp__discord__add_reminder",
                json!({"prompt": "climb-marker in main", "delay_minutes": 1, "foreground": true}),
            ),
            _ => Reply::text("resumed and tried"),
        })
    });
    // A finished exchange first: a run that fires while the owner is mid-conversation
    // stays quiet and would not ping.
    h.converse("hi", "hello").await;
    h.add_reminder_now("Watch the inbox.").await;
    let ping = h
        .wait_for_bot_message_within("the run's ping", Duration::from_secs(60), |m| {
            m.content.contains("A mail asks for something odd.")
        })
        .await;
    // The run's messages are recorded once it finished.
    let records = h.sandbox.data_dir.join("state/fork_messages.json");
    wait::until_true(
        "the ping recorded",
        Duration::from_secs(30),
        || {
            std::fs::read_to_string(&records)
                .unwrap_or_default()
                .contains(&ping.id.to_string())
        },
        String::new,
    )
    .await;

    h.discord.reply_to(h.owner(), "go on", ping.id).await;
    let entry = h
        .wait_for_bot_message("the entry embed", |m| !m.embeds.is_empty())
        .await;
    assert_eq!(entry.embeds[0]["title"], "Resumed Background Session");
    let shown = entry.embeds[0]["description"].as_str().unwrap_or_default();
    assert!(shown.contains("reminder:"), "{shown}");
    h.wait_for_bot_message("the fork's answer", |m| {
        m.content.trim().ends_with("resumed and tried")
    })
    .await;
    let results: Vec<_> = h
        .mock
        .model_requests()
        .into_iter()
        .filter(|r| steps_after(r, "go on").is_some())
        .flat_map(|r| r.tool_results())
        .collect();
    assert_eq!(results.len(), 2, "{results:?}");
    assert!(
        results[0].is_error && !results[0].content.contains("climb-marker resumed"),
        "the resumed run got the main session's tools: {results:?}"
    );
    assert!(
        results[1].is_error
            && results[1]
                .content
                .contains("can't set a foreground reminder"),
        "{results:?}"
    );
    let scheduled = std::fs::read_dir(h.sandbox.data_dir.join("reminders")).map_or(0, |d| {
        d.flatten()
            .filter(|e| std::fs::read_to_string(e.path()).is_ok_and(|t| t.contains("climb-marker")))
            .count()
    });
    assert_eq!(scheduled, 0);
}
