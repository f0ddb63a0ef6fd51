//! `ollim-bot counterfactual` (CMD-10): three turns through `ollim-bot chat` and the pinned
//! CLI give a real transcript; the command then replays turn 3 through the real CLI against
//! the mock Messages API, and the mock's recorded request shows what the replay sent.

use crate::support;

use std::{path::PathBuf, process::Output};

use support::{
    bot::ollim_command,
    chat::Chat,
    cli::CliSandbox,
    mock_api::{MockApi, RecordedRequest, Reply},
};

/// A sandbox whose main session has had three turns, with the transcript and the uuid of
/// turn 3's message.
struct Session {
    mock: MockApi,
    sandbox: CliSandbox,
    id: String,
    transcript: PathBuf,
    turn3: String,
}

async fn three_turns() -> Session {
    let mock = MockApi::start().await;
    let sandbox = CliSandbox::new();
    let mut chat = Chat::start(&sandbox, &mock);
    chat.expect("you> ").await;
    for (prompt, answer) in [
        ("first question", "Answer one."),
        ("second question", "Answer two."),
        ("third question", "Answer three."),
    ] {
        mock.push(Reply::text(answer));
        chat.say(prompt, answer).await;
    }
    chat.eof();
    chat.assert_exits_cleanly(&sandbox).await;
    let id = sandbox.stored_session().expect("a main session");
    let transcript = transcript_of(&sandbox, &id);
    let text = std::fs::read_to_string(&transcript).unwrap();
    let turn3 = text
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .find(|record| {
            record["type"] == "user"
                && record["message"]["content"]
                    .as_str()
                    .is_some_and(|content| content.ends_with("] third question"))
        })
        .and_then(|record| record["uuid"].as_str().map(str::to_owned))
        .expect("turn 3's message in the transcript");
    Session {
        mock,
        sandbox,
        id,
        transcript,
        turn3,
    }
}

/// The session's transcript in the CLI home that holds it.
fn transcript_of(sandbox: &CliSandbox, id: &str) -> PathBuf {
    let homes = sandbox.data_dir.join("state/cli_homes");
    for home in std::fs::read_dir(&homes).unwrap().flatten() {
        let Ok(projects) = std::fs::read_dir(home.path().join("projects")) else {
            continue;
        };
        for project in projects.flatten() {
            let file = project.path().join(format!("{id}.jsonl"));
            if file.is_file() {
                return file;
            }
        }
    }
    panic!("no transcript of {id} under {}", homes.display());
}

/// The scratch homes left in the sandbox.
fn scratch_homes(sandbox: &CliSandbox) -> Vec<String> {
    std::fs::read_dir(sandbox.data_dir.join("state/cli_homes"))
        .unwrap()
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("cf-"))
        .collect()
}

async fn counterfactual(s: &Session, args: &[&str]) -> Output {
    ollim_command(&s.sandbox, &s.mock)
        .arg("counterfactual")
        .args(args)
        .output()
        .await
        .expect("run ollim-bot counterfactual")
}

fn stdout(output: &Output) -> String {
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The main-model requests made after the first `before`.
fn requests_after(mock: &MockApi, before: usize) -> Vec<RecordedRequest> {
    mock.main_requests().into_iter().skip(before).collect()
}

/// CMD-10: the variant resumes turns 1–2, sends turn 3's message, with `--append`'s text at the
/// end of the system prompt, the model asked for and Bash taken away; the original and the
/// variant are printed; no scratch home remains and the transcript is unchanged.
#[tokio::test]
async fn a_variant_replays_turn_three_with_the_intervention() {
    let s = three_turns().await;
    let before = std::fs::read(&s.transcript).unwrap();
    let made = s.mock.main_requests().len();
    s.mock.push(Reply::text("Variant answer."));
    let prefix = &s.turn3[..8];
    let output = counterfactual(
        &s,
        &[
            "latest",
            prefix,
            "--append",
            "BE TERSE",
            "--model",
            "haiku",
            "--disallow",
            "Bash",
        ],
    )
    .await;
    let shown = stdout(&output);
    let sent = requests_after(&s.mock, made);
    assert_eq!(sent.len(), 1, "{sent:?}");
    let variant = &sent[0];
    let prompts = variant.user_prompts();
    assert!(
        prompts.iter().any(|p| p.ends_with("] first question")),
        "{prompts:?}"
    );
    assert!(
        prompts.iter().any(|p| p.ends_with("] second question")),
        "{prompts:?}"
    );
    assert!(variant.all_text().contains("Answer two."));
    assert!(!variant.all_text().contains("Answer three."));
    let last = variant.last_user_text().unwrap();
    assert!(last.ends_with("] third question"), "{last}");
    assert!(variant.system_text().trim_end().ends_with("\n\nBE TERSE"));
    assert!(
        variant.model().unwrap().contains("haiku"),
        "{:?}",
        variant.model()
    );
    let tools = variant.tool_names();
    assert!(!tools.contains(&"Bash"), "{tools:?}");
    assert!(tools.contains(&"Read"), "{tools:?}");

    assert!(
        shown.starts_with(&format!("\nCounterfactual: {} @ {prefix}\n", &s.id[..8])),
        "{shown}"
    );
    assert!(shown.contains("] third question\n"), "{shown}");
    let original = shown
        .find("ORIGINAL (from transcript)\nAnswer three.\n")
        .expect(&shown);
    let variant_at = shown
        .find("VARIANT (with intervention)\nVariant answer.\n")
        .expect(&shown);
    assert!(original < variant_at);
    assert!(!shown.contains("BASELINE"));
    assert!(!shown.contains('\x1b'), "no colour off a terminal");
    assert!(shown.contains("Tools: none\nturns=1 | cost=$"), "{shown}");
    assert_eq!(scratch_homes(&s.sandbox), Vec::<String>::new());
    assert_eq!(std::fs::read(&s.transcript).unwrap(), before);
    assert_eq!(s.sandbox.stored_session().as_deref(), Some(s.id.as_str()));
}

/// CMD-10: `--replace-prompt` sends that text as the whole system prompt after the CLI's own
/// two lines (no Claude Code preset, nothing of the bot's), `--message` sends other words in
/// place of turn 3's, and an embed the run's `discord` tools sent is printed in its block.
#[tokio::test]
async fn a_replaced_prompt_and_message_are_what_the_model_gets() {
    let s = three_turns().await;
    let made = s.mock.main_requests().len();
    s.mock.push(Reply::tool_use(
        "mcp__discord__discord_embed",
        serde_json::json!({"title": "Parrot card", "description": "squawk"}),
    ));
    s.mock.push(Reply::text("Replaced."));
    let output = counterfactual(
        &s,
        &[
            &s.id[..6],
            &s.turn3,
            "--replace-prompt",
            "You are a parrot.",
            "--message",
            "say hi",
        ],
    )
    .await;
    let shown = stdout(&output);
    let sent = requests_after(&s.mock, made);
    assert_eq!(sent.len(), 2);
    let system = sent[0].system_text();
    // The CLI always sends its billing header and its one-line identity first; then the text
    // alone: no Claude Code preset, nothing of the bot's prompt.
    let lines: Vec<&str> = system.lines().collect();
    assert!(
        lines[0].starts_with("x-anthropic-billing-header:"),
        "{system}"
    );
    assert_eq!(
        lines[1..],
        [
            "You are a Claude agent, built on Anthropic's Claude Agent SDK.",
            "You are a parrot."
        ],
        "{system}"
    );
    assert_eq!(sent[0].last_user_text(), Some("say hi"));
    assert!(shown.contains("\nSent instead: say hi\n"), "{shown}");
    // What the `discord` tools would have shown the owner is printed in the run's block.
    let block = "VARIANT (with intervention)\nReplaced.\n[embed] Parrot card\n  squawk\n";
    assert!(shown.contains(block), "{shown}");
    let tools = "Tools (1):\n  mcp__discord__discord_embed squawk\n";
    assert!(shown.contains(tools), "{shown}");
    assert!(scratch_homes(&s.sandbox).is_empty());
}

/// CMD-10: `--with-baseline` runs the unchanged settings beside the variant: two requests, the
/// baseline with the bot's own prompt and the original message, and both blocks printed.
#[tokio::test]
async fn a_baseline_runs_beside_the_variant() {
    let s = three_turns().await;
    let made = s.mock.main_requests().len();
    s.mock.add_rule(|request| {
        let system = request.system_text();
        let last = request.last_user_text()?.to_owned();
        last.ends_with("] third question").then(|| {
            Reply::text(if system.contains("VARIANT MARK") {
                "from the variant"
            } else {
                "from the baseline"
            })
        })
    });
    let output = counterfactual(
        &s,
        &[
            "latest",
            &s.turn3[..10],
            "--append",
            "VARIANT MARK",
            "--with-baseline",
        ],
    )
    .await;
    let shown = stdout(&output);
    let sent = requests_after(&s.mock, made);
    assert_eq!(sent.len(), 2, "{sent:?}");
    let marked = sent
        .iter()
        .filter(|r| r.system_text().contains("VARIANT MARK"))
        .count();
    assert_eq!(marked, 1);
    let original = shown.find("ORIGINAL (from transcript)").expect(&shown);
    let baseline = shown
        .find("BASELINE (same settings, fresh run)\nfrom the baseline\n")
        .expect(&shown);
    let variant = shown
        .find("VARIANT (with intervention)\nfrom the variant\n")
        .expect(&shown);
    assert!(original < baseline && baseline < variant, "{shown}");
    assert_eq!(shown.matches(&"─".repeat(60)).count(), 2, "{shown}");
    assert!(scratch_homes(&s.sandbox).is_empty());
}

/// CMD-10: what can't be replayed is one `Error:` line and exit 1, before any model call;
/// conflicting options are a usage error, exit 2.
#[tokio::test]
async fn unreplayable_messages_and_bad_options_are_refused() {
    let s = three_turns().await;
    let made = s.mock.model_requests().len();
    let text = std::fs::read_to_string(&s.transcript).unwrap();
    let records: Vec<serde_json::Value> = text
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect();
    let uuid_of = |kind: &str, nth: usize| {
        records
            .iter()
            .filter(|r| r["type"] == kind && r["uuid"].is_string())
            .nth(nth)
            .and_then(|r| r["uuid"].as_str())
            .unwrap()
            .to_owned()
    };
    let first_user = uuid_of("user", 0);
    let assistant = uuid_of("assistant", 0);
    for (rewind, needle) in [
        ("zzzz", "UUID prefix 'zzzz' not found in "),
        (first_user.as_str(), "is the session's first message"),
        (
            assistant.as_str(),
            "is an assistant record, not a message the user typed",
        ),
    ] {
        let output = counterfactual(&s, &["latest", rewind]).await;
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{rewind}: {stderr}");
        assert!(stderr.starts_with("Error: "), "{stderr}");
        assert!(stderr.contains(needle), "{stderr}");
    }
    let unknown = counterfactual(&s, &["nosuchtitle", &s.turn3]).await;
    assert_eq!(unknown.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("No session found with slug"));
    let both = counterfactual(
        &s,
        &["latest", &s.turn3, "--append", "a", "--replace-prompt", "b"],
    )
    .await;
    assert_eq!(both.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&both.stderr).contains("cannot be used with"));
    assert_eq!(s.mock.model_requests().len(), made, "nothing was sent");
    assert!(scratch_homes(&s.sandbox).is_empty());
}

/// CMD-10: a run stopped by `--max-turns` or `--max-budget` still prints, its stats line saying
/// why, and its tool calls (read from the branch's transcript) are listed.
#[tokio::test]
async fn a_run_stopped_by_its_limits_still_prints_with_its_tools() {
    let s = three_turns().await;
    let notes = s.sandbox.data_dir.join("notes.md");
    std::fs::write(&notes, "pineapple").unwrap();
    let read = || Reply::tool_use("Read", serde_json::json!({"file_path": notes}));
    s.mock.push(read());
    let output = counterfactual(&s, &["latest", &s.turn3, "--max-turns", "1"]).await;
    let shown = stdout(&output);
    let variant = &shown[shown.find("VARIANT").expect(&shown)..];
    assert!(
        variant.contains(&format!("Tools (1):\n  Read {}\n", notes.display())),
        "{shown}"
    );
    assert!(
        variant.trim_end().ends_with("(stopped: max turns)"),
        "{shown}"
    );

    s.mock.push(read());
    s.mock.push(Reply::text("Read it."));
    let output = counterfactual(&s, &["latest", &s.turn3, "--max-budget", "0.00001"]).await;
    let shown = stdout(&output);
    let variant = &shown[shown.find("VARIANT").expect(&shown)..];
    assert!(variant.trim_end().ends_with("(stopped: budget)"), "{shown}");
    assert!(scratch_homes(&s.sandbox).is_empty());
}

/// CMD-10: SIGTERM while a replay waits for the model stops it: `Error: terminated`, exit 1,
/// its CLI gone and its scratch home removed.
#[tokio::test]
async fn a_terminated_replay_leaves_nothing_behind() {
    let s = three_turns().await;
    let made = s.mock.main_requests().len();
    let release = tokio_util::sync::CancellationToken::new();
    s.mock.push(
        Reply::text_chunks(["Still ", "thinking"], std::time::Duration::ZERO)
            .held_after(1, release.clone()),
    );
    let child = ollim_command(&s.sandbox, &s.mock)
        .args(["counterfactual", "latest", &s.turn3])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    s.mock
        .wait_for_main_requests(made + 1, std::time::Duration::from_secs(30))
        .await;
    assert_eq!(scratch_homes(&s.sandbox).len(), 1, "the run's own home");
    let pid = child.id().unwrap().to_string();
    let sent = std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap();
    assert!(sent.success());
    let output = tokio::time::timeout(std::time::Duration::from_secs(20), child.wait_with_output())
        .await
        .expect("the replay stops")
        .unwrap();
    release.cancel();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("Error: terminated"), "{stderr}");
    assert!(scratch_homes(&s.sandbox).is_empty());
    s.sandbox
        .assert_no_process_left(std::time::Duration::from_secs(10))
        .await;
}
