//! The CLI driver ([`ClaudeClient`]) against the real Claude Code CLI and the mock Messages
//! API, a module per topic: what the host answers the CLI's control requests with (Stop hooks,
//! HKS-1 mechanism; `can_use_tool`, AGT-7), sessions (fork-session, AGT-11; resume failures),
//! the process's life (a missing executable, clean disconnects, SES-18) and an interrupted MCP
//! tool call (AGT-14).

use crate::support;

use std::{path::PathBuf, time::Duration};

use ollim_bot::claude::{
    ClaudeClient, ClientOptions, Message, ResultMessage, SystemPrompt, Thinking, UserContent,
};
use support::{
    cli::{CliSandbox, claude_cli_path},
    mock_api::MockApi,
};

mod control;
mod lifecycle;
mod mcp_interrupt;
mod sessions;

/// Options as the main session builds them, minus the product prompt and tools.
pub(super) fn options(sandbox: &CliSandbox, mock: &MockApi) -> ClientOptions {
    ClientOptions {
        cli_path: claude_cli_path(),
        cwd: sandbox.data_dir.clone(),
        system_prompt: SystemPrompt::Empty,
        setting_sources: Some(vec!["project".to_owned()]),
        thinking: Some(Thinking::Off),
        env: sandbox.env(mock).into_iter().collect(),
        ..ClientOptions::default()
    }
}

/// Reads one turn up to its `result` (bounded, so a hang fails the test).
pub(super) async fn read_turn(client: &mut ClaudeClient) -> (Vec<Message>, ResultMessage) {
    let mut frames = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        let message = tokio::time::timeout_at(deadline, client.recv())
            .await
            .expect("the turn did not end in time")
            .expect("the CLI went away mid-turn");
        if let Message::Result(result) = message {
            return (frames, result);
        }
        frames.push(message);
    }
}

/// Sends `text` and reads the turn.
pub(super) async fn turn(client: &mut ClaudeClient, text: &str) -> (Vec<Message>, ResultMessage) {
    client.send(&UserContent::Text(text.to_owned())).unwrap();
    read_turn(client).await
}

/// `<claude dir>/projects/<cwd key>/<id>.jsonl`, the key being the cwd with every
/// non-alphanumeric character replaced by `-` (protocol §4.2).
pub(super) fn transcript(sandbox: &CliSandbox, id: &str) -> PathBuf {
    let key: String = sandbox
        .data_dir
        .to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    sandbox
        .claude_dir()
        .join("projects")
        .join(key)
        .join(format!("{id}.jsonl"))
}

pub(super) fn process_exists(pid: u32) -> bool {
    std::path::Path::new(&format!("/proc/{pid}")).exists()
}
