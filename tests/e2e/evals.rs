//! `ollim-bot eval` as a user runs it (CMD-9): the real binary and the real Claude Code CLI
//! against the mock Messages API, which plays the bot's model, the simulated owner (told
//! apart by its system prompt) and the judge.

use crate::support;

use std::{path::Path, process::Output};

use serde_json::{Value, json};
use support::{
    bot::ollim_command,
    cli::CliSandbox,
    mock_api::{MockApi, RecordedRequest, Reply},
};

const PROXY_MARK: &str = "rehearsal of a personal assistant";
const JUDGE_MARK: &str = "You rate how well a personal assistant";

fn is_proxy(request: &RecordedRequest) -> bool {
    request.system_text().contains(PROXY_MARK)
}

fn is_judge(request: &RecordedRequest) -> bool {
    request.system_text().contains(JUDGE_MARK)
}

/// The simulated owner always answers `line`; the judge gives `scores`.
fn script_owner_and_judge(mock: &MockApi, line: &'static str, scores: Value) {
    mock.add_rule(move |request| is_proxy(request).then(|| Reply::text(line)));
    mock.add_rule(move |request| {
        is_judge(request).then(|| {
            let verdict = json!({"scores": scores, "reasons": {}, "summary": "scripted"});
            Reply::text(format!("My verdict:\n{verdict}"))
        })
    });
}

async fn eval(sandbox: &CliSandbox, mock: &MockApi, args: &[&str]) -> (Output, String) {
    let tmp = sandbox.home.path().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let output = ollim_command(sandbox, mock)
        .arg("eval")
        .args(args)
        .env("TMPDIR", &tmp)
        .output()
        .await
        .expect("ollim-bot eval runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    (output, stdout)
}

fn history(data_dir: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(data_dir.join("state/evals/history.jsonl")).unwrap();
    text.lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// CMD-9: a `file_created` scenario stops once the bot sets a reminder (through its real MCP
/// tool, in the scenario's own data dir); the simulated owner and the judge are answer-only
/// sessions on haiku and sonnet with no tools; the run passes, prints each criterion and is
/// appended to the owner's history with its transcript; the owner's own data dir gets no
/// reminder and no trace of the conversation, and no scratch dir is left behind.
#[tokio::test]
async fn a_file_created_scenario_stops_at_the_file_and_is_recorded() {
    let mock = MockApi::start().await;
    let sandbox = CliSandbox::new();
    script_owner_and_judge(
        &mock,
        "ok. just tell me the one thing",
        json!({"one_next_step": 5, "no_option_dump": 4, "warm_tone": 4, "low_cognitive_load": 4}),
    );
    mock.add_rule(|request| {
        let prompt = request.last_user_text()?.to_owned();
        if !prompt.contains("just tell me the one thing") {
            return None;
        }
        Some(if request.tool_results().is_empty() {
            Reply::tool_use(
                "mcp__discord__add_reminder",
                json!({"prompt": "Open the report and write one line", "delay_minutes": 20}),
            )
        } else {
            Reply::text("Done: a nudge in 20 minutes.")
        })
    });
    mock.set_default(Reply::text("That sounds like a lot. What's due first?"));

    let (output, stdout) = eval(&sandbox, &mock, &["run", "overwhelmed-by-tasks"]).await;
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("== overwhelmed-by-tasks =="), "{stdout}");
    assert!(stdout.contains("one_next_step"), "{stdout}");
    assert!(stdout.contains("5/5"), "{stdout}");
    assert!(stdout.contains("overall 4.25  PASS  goal met"), "{stdout}");
    assert!(stdout.contains("1/1 passed"), "{stdout}");

    let proxies: Vec<_> = mock.requests().into_iter().filter(is_proxy).collect();
    assert_eq!(proxies.len(), 1, "the owner spoke once after the opening");
    assert!(proxies[0].model().unwrap().contains("haiku"));
    assert!(
        proxies[0].tool_names().is_empty(),
        "the simulated owner has no tools"
    );
    assert!(proxies[0].all_text().contains("frozen on the couch"));
    let judges: Vec<_> = mock.requests().into_iter().filter(is_judge).collect();
    assert_eq!(judges.len(), 1);
    assert!(judges[0].model().unwrap().contains("sonnet"));
    assert!(judges[0].tool_names().is_empty());
    let read = judges[0].all_text();
    assert!(read.contains("Bot: [tool] add_reminder"), "{read}");
    assert!(
        read.contains("Open the report"),
        "the made file is shown: {read}"
    );

    let records = history(&sandbox.data_dir);
    assert_eq!(records.len(), 1);
    let record = &records[0];
    assert_eq!(record["scenario"], "overwhelmed-by-tasks");
    assert_eq!(record["passed"], true);
    assert_eq!(record["goal_met"], true);
    assert_eq!(record["overall"], 4.25);
    assert_eq!(record["turns"], 2);
    assert_eq!(record["models"]["judge"], "sonnet");
    assert_eq!(record["files_created"].as_array().unwrap().len(), 1);
    let transcript = record["transcript"].as_str().unwrap();
    assert!(
        std::fs::read_to_string(transcript)
            .unwrap()
            .contains("Sam: ok. just tell me the one thing")
    );
    let owner_reminders =
        std::fs::read_dir(sandbox.data_dir.join("reminders")).map_or(0, Iterator::count);
    assert_eq!(
        owner_reminders, 0,
        "the owner's own reminders are untouched"
    );
    assert!(!sandbox.data_dir.join("state/sessions.json").exists());
    let left: Vec<_> = std::fs::read_dir(sandbox.home.path().join("tmp"))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("ollim-eval-"))
        .collect();
    assert!(left.is_empty(), "scratch dirs left: {left:?}");
}

/// CMD-9: a qualitative scenario runs to its `max_turns` (four owner messages, three from the
/// simulated owner); a criterion scored 1 fails it, and `eval run` exits 1.
#[tokio::test]
async fn a_qualitative_scenario_runs_its_turns_and_a_low_score_fails() {
    let mock = MockApi::start().await;
    let sandbox = CliSandbox::new();
    script_owner_and_judge(
        &mock,
        "whatever",
        json!({"validates_feeling": 5, "no_lecture": 1, "one_small_step": 5, "warm_tone": 5}),
    );
    mock.set_default(Reply::text("That sounds exhausting."));
    let (output, stdout) = eval(&sandbox, &mock, &["run", "frustrated-nothing-works"]).await;
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("overall 4.00  FAIL"), "{stdout}");
    assert_eq!(mock.requests().into_iter().filter(is_proxy).count(), 3);
    let records = history(&sandbox.data_dir);
    assert_eq!(records[0]["turns"], 4);
    assert_eq!(records[0]["goal_met"], Value::Null);
    assert_eq!(records[0]["passed"], false);
}

fn record_line(scenario: &str, overall: f64, timestamp: &str) -> String {
    json!({
        "run_id": "r", "timestamp": timestamp, "scenario": scenario,
        "goal_type": "qualitative", "scores": {}, "reasons": {}, "overall": overall,
        "passed": overall >= 3.0, "goal_met": null, "turns": 3, "files_created": [],
        "models": {"bot": "default", "proxy": "haiku", "judge": "sonnet"},
        "bot_version": "0.1.0", "cli_version": "2.1.332", "cost_usd": 0.0123,
        "duration_s": 30.0, "error": null, "transcript": "t.md"
    })
    .to_string()
}

/// CMD-9: `list`, `results` and `compare` read without the model; an unknown scenario is
/// named with the known ones (exit 2); a fall of more than 0.3 is a regression (exit 1), an
/// unreadable history line is skipped with a warning.
#[tokio::test]
async fn list_results_and_compare() {
    let mock = MockApi::start().await;
    let sandbox = CliSandbox::new();
    let (output, stdout) = eval(&sandbox, &mock, &["list"]).await;
    assert!(output.status.success());
    assert_eq!(stdout.lines().count(), 6, "{stdout}");
    assert!(stdout.contains("reminder-negotiation"), "{stdout}");

    let (output, stdout) = eval(&sandbox, &mock, &["results"]).await;
    assert!(output.status.success());
    assert_eq!(stdout.trim(), "no eval results yet");

    let (output, _) = eval(&sandbox, &mock, &["run", "overwhelmed"]).await;
    assert_eq!(output.status.code(), Some(2));
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(
        said.contains("unknown scenario 'overwhelmed'; known: overwhelmed-by-tasks"),
        "{said}"
    );
    assert!(mock.model_requests().is_empty());

    let path = sandbox.data_dir.join("state/evals/history.jsonl");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let lines = [
        record_line("frustrated-nothing-works", 4.0, "2026-12-01T10:00:00Z"),
        record_line("frustrated-nothing-works", 3.5, "2026-12-02T10:00:00Z"),
        "{\"torn".to_owned(),
        record_line("reminder-negotiation", 3.3, "2026-12-01T11:00:00Z"),
        record_line("reminder-negotiation", 3.0, "2026-12-02T11:00:00Z"),
    ];
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let (output, stdout) = eval(&sandbox, &mock, &["compare"]).await;
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("frustrated-nothing-works     4.00 → 3.50  Δ -0.50  REGRESSION"),
        "{stdout}"
    );
    assert!(
        stdout.contains("reminder-negotiation         3.30 → 3.00  Δ -0.30\n"),
        "{stdout}"
    );
    assert!(String::from_utf8_lossy(&output.stderr).contains("1 line(s)"));
    let (output, stdout) = eval(&sandbox, &mock, &["results", "reminder-negotiation"]).await;
    assert!(output.status.success());
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert!(lines[0].starts_with("2026-12-02T11:00:00Z  reminder-negotiation"));
    assert!(
        lines[0].contains("3.00  PASS  3 turns  $0.0123"),
        "{stdout}"
    );
    let (output, _) = eval(&sandbox, &mock, &["compare", "--last", "1"]).await;
    assert!(!output.status.success());
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(said.contains("--last"), "{said}");
}

/// CMD-9: a scenario's setup runs before the opening: a fired routine's prompt (built as the
/// scheduler builds it) makes the bot speak first, and earlier owner messages are answered
/// first, so the opening finds them in the conversation.
#[tokio::test]
async fn a_scenario_setup_fires_a_job_or_plays_earlier_turns_first() {
    let mock = MockApi::start().await;
    let sandbox = CliSandbox::new();
    script_owner_and_judge(
        &mock,
        "fine",
        json!({"brevity": 4, "care_not_nag": 4, "one_next_step": 4, "easy_to_answer": 4}),
    );
    mock.set_default(Reply::text("Morning! How did you sleep?"));
    let (output, stdout) = eval(&sandbox, &mock, &["run", "proactive-morning-checkin"]).await;
    assert!(output.status.success(), "{stdout}");
    let first = mock.main_requests()[0].last_user_text().unwrap().to_owned();
    assert!(
        first.contains("[routine:proactive-morning-checkin]")
            && first.contains("Good morning check-in"),
        "{first}"
    );
    let second = mock.main_requests()[1].last_user_text().unwrap().to_owned();
    assert!(
        second.ends_with("morning. slept like garbage tbh"),
        "{second}"
    );
    let proxy = mock.requests().into_iter().find(is_proxy).unwrap();
    assert!(
        proxy
            .all_text()
            .contains("Bot: Morning! How did you sleep?")
    );

    let mock = MockApi::start().await;
    script_owner_and_judge(
        &mock,
        "ok",
        json!({"recalls_context": 5, "no_reexplaining_burden": 5, "gentle_reentry": 5,
               "one_next_step": 5}),
    );
    mock.set_default(Reply::text("Thai place first?"));
    let (output, stdout) = eval(&sandbox, &mock, &["run", "context-recovery-after-gap"]).await;
    assert!(output.status.success(), "{stdout}");
    let opening = mock
        .main_requests()
        .into_iter()
        .find(|r| {
            r.last_user_text()
                .is_some_and(|t| t.ends_with("where were we"))
        })
        .expect("the opening reached the bot");
    let earlier = opening.all_text();
    assert!(earlier.contains("mayas birthday dinner") && earlier.contains("pottery"));
    assert_eq!(history(&sandbox.data_dir).len(), 2);
}
