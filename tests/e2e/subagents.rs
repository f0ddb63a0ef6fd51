//! The bundled subagents as the real binary installs them and the real CLI discovers them
//! (SUB-1…6, BOOT-6): `ollim-bot chat` on pipes against the pinned CLI and the mock model.

use crate::support;

use std::{fs, time::Duration};

use support::{
    chat::Chat,
    cli::CliSandbox,
    mock_api::{MockApi, Reply},
};

const BUNDLED: [&str; 5] = [
    "ollim-bot-guide",
    "gmail-reader",
    "history-reviewer",
    "responsiveness-reviewer",
    "user-proxy",
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

/// SUB-1: the five specs are written with the names filled in, the CLI offers them to the
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
