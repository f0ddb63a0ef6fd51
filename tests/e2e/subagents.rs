//! The bundled subagents as the real binary installs them and the real CLI discovers them
//! (SUB-1…6, BOOT-6): `ollim-bot chat` on pipes against the pinned CLI and the mock model.

use crate::support;

use std::{fs, time::Duration};

use support::{
    chat::Chat,
    cli::CliSandbox,
    mock_api::{MockApi, Reply},
};

const BUNDLED: [&str; 6] = [
    "ollim-bot-guide",
    "gmail-reader",
    "history-reviewer",
    "responsiveness-reviewer",
    "user-proxy",
    "routine-critic",
];

/// One chat run: a prompt and its answer, then end of input and a clean exit.
async fn chat_once(sandbox: &CliSandbox, mock: &MockApi, prompt: &str, answer: &str) {
    mock.push(Reply::text(answer));
    let mut chat = Chat::start(sandbox, mock);
    chat.expect("you> ").await;
    chat.say(prompt, answer).await;
    chat.eof();
    let status = chat.exit(Duration::from_secs(20)).await;
    assert_eq!(status.code(), Some(0), "{}", chat.transcript());
}

/// SUB-1: the six specs are written with the names filled in, the CLI offers them to the
/// model (data dir as cwd, project settings), and after a restart an edited spec is kept
/// while a deleted one comes back.
#[tokio::test]
async fn bundled_subagents_are_installed_discovered_and_owner_edits_kept() {
    let mock = MockApi::start().await;
    let sandbox = CliSandbox::new();
    chat_once(&sandbox, &mock, "hi", "Hello Julia!").await;

    let agents = sandbox.data_dir.join(".claude/agents");
    for name in BUNDLED {
        let text = fs::read_to_string(agents.join(format!("{name}.md")))
            .unwrap_or_else(|e| panic!("{name} not installed: {e}"));
        assert!(text.starts_with(&format!("---\nname: {name}\n")), "{text}");
        assert!(text.contains("Julia"), "{name}: owner's name not filled in");
        assert!(!text.contains("{USER_NAME}") && !text.contains("{BOT_NAME}"));
    }
    let history = fs::read_to_string(agents.join("history-reviewer.md")).unwrap();
    assert!(history.contains("Ollim"), "bot name not filled in");
    assert!(history.contains("tools: Bash(ollim-bot history *)"));

    // The model is told about each of them, with the tools they declare.
    let request = mock.main_requests()[0].all_text();
    for name in BUNDLED {
        assert!(
            request.contains(&format!("- {name}: ")),
            "{name} not offered"
        );
    }
    assert!(request.contains("(Tools: Bash(ollim-bot history *))"));
    assert!(request.contains("- gmail-reader: Triages Julia's unread Gmail"));

    // The owner edits one spec and deletes another; a restart keeps the edit and puts the
    // deleted one back.
    let edited = "---\nname: gmail-reader\ndescription: Julia's own mail triage\ntools: \
                  mcp__discord__gmail\n---\nOnly mail from family.\n";
    fs::write(agents.join("gmail-reader.md"), edited).unwrap();
    fs::remove_file(agents.join("user-proxy.md")).unwrap();
    chat_once(&sandbox, &mock, "again", "Hi again.").await;
    assert_eq!(
        fs::read_to_string(agents.join("gmail-reader.md")).unwrap(),
        edited
    );
    let proxy = fs::read_to_string(agents.join("user-proxy.md")).unwrap();
    assert!(proxy.starts_with("---\nname: user-proxy\n") && proxy.contains("Julia"));
    sandbox
        .assert_no_process_left(Duration::from_secs(10))
        .await;
}

/// USE-1: a subagent the main turn starts leaves its own ledger record (its type, model and
/// tokens, as the CLI reports them in the call's result, in the main turn's name), and its
/// cost stays in the main turn's.
#[tokio::test]
async fn a_subagent_s_work_is_on_the_ledger_beside_its_turn() {
    let mut h = crate::support::bot::BotHarness::greeted_fast_sync(CliSandbox::new()).await;
    // The subagent's requests carry its own system prompt.
    h.mock.add_rule(|request| {
        request
            .system_text()
            .contains("find what was left hanging")
            .then(|| Reply::text("Nothing left open.").with_input_tokens(7_777))
    });
    h.mock.add_rule(|request| {
        let asked = request.user_prompts().join("\n").contains("anything open?");
        (asked && !request.system_text().contains("find what was left hanging")).then(|| {
            if request.tool_results().is_empty() {
                Reply::tool_use(
                    "Agent",
                    serde_json::json!({"description": "loose ends", "prompt": "Review the last day.",
                           "subagent_type": "history-reviewer"}),
                )
            } else {
                Reply::text("All clear.")
            }
        })
    });
    h.discord.dm_from(h.owner(), "anything open?").await;
    h.wait_for_bot_message("the answer after the subagent", |m| {
        m.content.contains("All clear.")
    })
    .await;
    h.terminate().await;
    let ledger = std::fs::read_dir(h.sandbox.data_dir.join("state/usage"))
        .unwrap()
        .filter_map(Result::ok)
        .map(|entry| std::fs::read_to_string(entry.path()).unwrap())
        .collect::<String>();
    let records: Vec<serde_json::Value> = ledger
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let subagent = records
        .iter()
        .find(|r| r["kind"] == "subagent")
        .unwrap_or_else(|| panic!("no subagent record: {records:#?}"));
    assert_eq!(subagent["job"], "subagent:history-reviewer", "{subagent}");
    assert_eq!(subagent["within"], "main", "{subagent}");
    assert_eq!(subagent["input_tokens"], 7_777, "{subagent}");
    assert_eq!(subagent["turns"], 1, "{subagent}");
    assert_eq!(subagent["cost_usd"], 0.0, "{subagent}");
    // Its spec's model, not the main session's.
    assert!(
        subagent["model"]
            .as_str()
            .unwrap()
            .starts_with("claude-sonnet"),
        "{subagent}"
    );
    let main = records.iter().find(|r| r["kind"] == "main").unwrap();
    assert!(main["cost_usd"].as_f64().unwrap() > 0.0, "{main}");
    // The main turn's own tokens are its two model calls, not the subagent's.
    assert_eq!(main["input_tokens"], 200, "{main}");
}

/// STR-12: while a subagent works, the DM's status line names it, what it was asked (cut to
/// 40 characters) and the tool it is on (MCP prefix off), its seconds counting on; the
/// subagent's own words never reach the owner, only the answer after it.
#[tokio::test]
async fn the_status_line_follows_a_subagent_s_tools() {
    const CRITIC: &str = "You review a change";
    let h = crate::support::bot::BotHarness::greeted_fast_sync(CliSandbox::new()).await;
    h.mock.add_rule(|request| {
        if !request.system_text().contains(CRITIC) {
            return None;
        }
        Some(if request.tool_results().is_empty() {
            Reply::tool_use(
                "Read",
                serde_json::json!({"file_path": "routine-reminder-spec.md"}),
            )
        } else {
            Reply::text_chunks(
                [
                    "The change ",
                    "reads ",
                    "well; ",
                    "no ",
                    "problems ",
                    "found.",
                ],
                Duration::from_millis(600),
            )
        })
    });
    h.mock.add_rule(|request| {
        let asked = request
            .user_prompts()
            .join("\n")
            .contains("is the new wording ok?");
        (asked && !request.system_text().contains(CRITIC)).then(|| {
            if request.tool_results().is_empty() {
                Reply::tool_use(
                    "Agent",
                    serde_json::json!({
                        "description": "review the morning routine's new wording for tone",
                        "prompt": "Review routines/morning.md from the owner's side.",
                        "subagent_type": "routine-critic"}),
                )
            } else {
                Reply::text("The critic found nothing to change.")
            }
        })
    });
    h.discord.dm_from(h.owner(), "is the new wording ok?").await;
    let reply = h
        .wait_for_bot_message("the answer after the subagent", |m| {
            m.content.contains("The critic found nothing to change.")
        })
        .await;
    let versions: Vec<String> = reply
        .history
        .iter()
        .map(|v| v.content.clone())
        .chain([reply.content.clone()])
        .collect();
    let critic = "routine-critic(review the morning routine's new wordin…) · Read";
    let on_read: Vec<&String> = versions.iter().filter(|v| v.contains(critic)).collect();
    assert!(!on_read.is_empty(), "{versions:#?}");
    // One timer, counting on while the subagent works (the relabel never resets it; the
    // virtual-clock test in `discord::streamer` times that exactly).
    let seconds: Vec<u64> = on_read
        .iter()
        .map(|v| {
            v.rsplit_once("... (")
                .and_then(|(_, s)| s.strip_suffix("s)*"))
                .map_or(0, |s| s.parse().unwrap())
        })
        .collect();
    assert!(seconds.windows(2).all(|w| w[0] < w[1]), "{versions:#?}");
    assert!(
        !versions.iter().any(|v| v.contains("problems found")),
        "the subagent's words stayed its own: {versions:#?}"
    );
}
