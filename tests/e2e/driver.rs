//! The CLI driver ([`ClaudeClient`]) against the real Claude Code CLI and the mock Messages
//! API: Stop hooks (HKS-1 mechanism), `can_use_tool` answers (AGT-7), fork-session (AGT-11),
//! resume failures, a missing executable, clean disconnects (SES-18) and an interrupted MCP
//! tool call (AGT-14).

use crate::support;

use std::{
    path::PathBuf,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use ollim_bot::claude::{
    BoxFuture, ClaudeClient, ClaudeError, ClientOptions, ControlHandlers, HookCallback, HookEvent,
    HookOutput, HookRegistration, McpMessageHandler, McpServerConfig, Message, PermissionDecision,
    PermissionHandler, PermissionMode, PermissionRequest, ResultMessage, SessionId, SystemPrompt,
    Thinking, UserContent,
};
use serde_json::{Value, json};
use support::{
    cli::{CliSandbox, claude_cli_path},
    mock_api::{MockApi, Reply},
};
use tokio::sync::Notify;

/// Options as the main session builds them, minus the product prompt and tools.
fn options(sandbox: &CliSandbox, mock: &MockApi) -> ClientOptions {
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
async fn read_turn(client: &mut ClaudeClient) -> (Vec<Message>, ResultMessage) {
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
async fn turn(client: &mut ClaudeClient, text: &str) -> (Vec<Message>, ResultMessage) {
    client.send(&UserContent::Text(text.to_owned())).unwrap();
    read_turn(client).await
}

/// `<claude dir>/projects/<cwd key>/<id>.jsonl`, the key being the cwd with every
/// non-alphanumeric character replaced by `-` (protocol §4.2).
fn transcript(sandbox: &CliSandbox, id: &str) -> PathBuf {
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

fn process_exists(pid: u32) -> bool {
    std::path::Path::new(&format!("/proc/{pid}")).exists()
}

/// A Stop hook that blocks once with a reason, then lets the model stop.
struct BlockOnce {
    inputs: Mutex<Vec<Value>>,
}

impl HookCallback for BlockOnce {
    fn call(&self, input: Value) -> BoxFuture<'static, HookOutput> {
        let active = input["stop_hook_active"].as_bool().unwrap_or(false);
        self.inputs.lock().unwrap().push(input);
        let output = if active {
            HookOutput::default()
        } else {
            HookOutput::block("Say goodbye too.")
        };
        Box::pin(std::future::ready(output))
    }
}

/// HKS-1 mechanism: a Stop hook that blocks makes the model go on in the same turn with the
/// reason as feedback; the second stop (`stop_hook_active`) is allowed.
#[tokio::test]
async fn a_stop_hook_blocks_once_then_allows() {
    let mock = MockApi::start().await;
    let sandbox = CliSandbox::new();
    let hook = Arc::new(BlockOnce {
        inputs: Mutex::default(),
    });
    let handlers = ControlHandlers {
        hooks: vec![HookRegistration {
            event: HookEvent::Stop,
            matcher: None,
            timeout_secs: 10,
            callback: hook.clone(),
        }],
        ..ControlHandlers::default()
    };
    let mut client = ClaudeClient::connect(&options(&sandbox, &mock), handlers)
        .await
        .unwrap();
    mock.push(Reply::text("Hello!"));
    mock.push(Reply::text("Goodbye!"));
    let (_, result) = turn(&mut client, "greet me").await;
    assert!(!result.is_error, "{result:?}");
    assert!(result.num_turns >= 2, "{result:?}");
    let requests = mock.main_requests();
    assert_eq!(requests.len(), 2);
    assert!(requests[1].all_text().contains("Say goodbye too."));
    let inputs = hook.inputs.lock().unwrap().clone();
    assert_eq!(inputs.len(), 2, "{inputs:?}");
    assert_eq!(inputs[0]["stop_hook_active"], json!(false));
    assert_eq!(inputs[1]["stop_hook_active"], json!(true));
    let status = client.disconnect(Duration::from_secs(5)).await;
    assert!(status.is_some_and(|s| s.success()), "{status:?}");
}

/// Rewrites every Write's content and refuses everything else.
struct RewriteWrites {
    asked: Mutex<Vec<PermissionRequest>>,
}

impl PermissionHandler for RewriteWrites {
    fn decide(&self, request: PermissionRequest) -> BoxFuture<'static, PermissionDecision> {
        self.asked.lock().unwrap().push(request.clone());
        let decision = if request.tool_name == "Write" {
            let mut input = request.input.clone();
            input["content"] = json!("the host's text\n");
            PermissionDecision::Allow {
                updated_input: input,
            }
        } else {
            PermissionDecision::deny("the owner said no")
        };
        Box::pin(std::future::ready(decision))
    }
}

/// AGT-7, protocol §3.4.1: an allow with a changed `updatedInput` runs the changed input; a
/// deny reaches the model as an error tool result carrying the message.
#[tokio::test]
async fn can_use_tool_rewrites_input_and_denies_with_a_message() {
    let mock = MockApi::start().await;
    let sandbox = CliSandbox::new();
    let handler = Arc::new(RewriteWrites {
        asked: Mutex::default(),
    });
    let handlers = ControlHandlers {
        permissions: Some(handler.clone()),
        ..ControlHandlers::default()
    };
    let options = ClientOptions {
        permission_mode: Some(PermissionMode::Default),
        ..options(&sandbox, &mock)
    };
    let mut client = ClaudeClient::connect(&options, handlers).await.unwrap();
    let note = sandbox.data_dir.join("note.txt");
    let write = Reply::tool_use(
        "Write",
        json!({"file_path": note.to_string_lossy(), "content": "the model's text\n"}),
    );
    let write_id = write.tool_use_ids()[0].clone();
    let bash = Reply::tool_use("Bash", json!({"command": "touch forbidden.txt"}));
    let bash_id = bash.tool_use_ids()[0].clone();
    mock.push(write);
    mock.push(bash);
    mock.push(Reply::text("Done."));
    let (_, result) = turn(&mut client, "write a note").await;
    assert!(!result.is_error, "{result:?}");

    assert_eq!(std::fs::read_to_string(&note).unwrap(), "the host's text\n");
    let requests = mock.main_requests();
    let written = requests[1].tool_results();
    assert_eq!(written[0].tool_use_id, write_id);
    assert!(!written[0].is_error, "{written:?}");
    let denied = requests[2].tool_results();
    assert_eq!(denied[0].tool_use_id, bash_id);
    assert!(denied[0].is_error);
    assert!(
        denied[0].content.contains("the owner said no"),
        "{denied:?}"
    );
    assert!(!sandbox.data_dir.join("forbidden.txt").exists());
    assert!(
        result
            .permission_denials
            .iter()
            .any(|d| d.tool_name == "Bash" && d.tool_use_id == bash_id),
        "{result:?}"
    );
    let asked = handler.asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 2, "{asked:?}");
    assert_eq!(asked[0].tool_use_id.as_deref(), Some(write_id.as_str()));
    client.disconnect(Duration::from_secs(5)).await;
}

/// AGT-11, protocol §4.3: resuming with fork semantics and a chosen id branches into that id,
/// sees the parent's history, and leaves the parent's transcript untouched.
#[tokio::test]
async fn fork_session_branches_into_the_chosen_id() {
    let mock = MockApi::start().await;
    let sandbox = CliSandbox::new();
    let mut parent = ClaudeClient::connect(&options(&sandbox, &mock), ControlHandlers::default())
        .await
        .unwrap();
    mock.push(Reply::text("Noted: KIWI."));
    let (_, result) = turn(&mut parent, "remember the word KIWI").await;
    let parent_id = SessionId::parse(&result.session_id).unwrap();
    assert_eq!(parent.session_id(), Some(&parent_id));
    parent.disconnect(Duration::from_secs(5)).await;
    let parent_file = transcript(&sandbox, parent_id.as_str());
    let before = std::fs::read(&parent_file).expect("the parent transcript");

    let fork_id = SessionId::new_random();
    let options = ClientOptions {
        resume: Some(parent_id.clone()),
        fork_session: true,
        session_id: Some(fork_id.clone()),
        ..options(&sandbox, &mock)
    };
    let mut fork = ClaudeClient::connect(&options, ControlHandlers::default())
        .await
        .unwrap();
    assert_eq!(fork.session_id(), Some(&fork_id), "known before it speaks");
    mock.push(Reply::text("You said KIWI."));
    let (_, result) = turn(&mut fork, "what was the word?").await;
    assert_eq!(result.session_id, fork_id.as_str());
    assert_eq!(fork.session_id(), Some(&fork_id));
    let request = mock.main_requests().pop().unwrap();
    assert!(request.all_text().contains("remember the word KIWI"));
    fork.disconnect(Duration::from_secs(5)).await;

    assert_eq!(
        std::fs::read(&parent_file).unwrap(),
        before,
        "parent untouched"
    );
    assert!(transcript(&sandbox, fork_id.as_str()).exists());
}

/// Protocol §4.3: resuming an id the CLI does not know fails fast with `SessionNotFound`.
#[tokio::test]
async fn resuming_an_unknown_session_fails_fast() {
    let mock = MockApi::start().await;
    let sandbox = CliSandbox::new();
    let missing = SessionId::new_random();
    let options = ClientOptions {
        resume: Some(missing.clone()),
        ..options(&sandbox, &mock)
    };
    let started = Instant::now();
    let error = ClaudeClient::connect(&options, ControlHandlers::default())
        .await
        .expect_err("resume must fail");
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "took {:?}",
        started.elapsed()
    );
    match error {
        ClaudeError::SessionNotFound { session_id } => assert_eq!(session_id, missing.as_str()),
        other => panic!("expected SessionNotFound, got {other:?}"),
    }
    assert!(mock.model_requests().is_empty());
}

/// A missing executable is reported with what to set or install.
#[tokio::test]
async fn a_missing_cli_names_the_fix() {
    let mock = MockApi::start().await;
    let sandbox = CliSandbox::new();
    let options = ClientOptions {
        cli_path: sandbox.home.path().join("no-such-claude"),
        ..options(&sandbox, &mock)
    };
    let error = ClaudeClient::connect(&options, ControlHandlers::default())
        .await
        .expect_err("no CLI");
    assert!(
        matches!(error, ClaudeError::CliNotFound { .. }),
        "{error:?}"
    );
    let message = error.to_string();
    assert!(message.contains("OLLIM_CLAUDE_CLI"), "{message}");
    assert!(message.contains("@anthropic-ai/claude-code"), "{message}");
}

/// SES-18: disconnecting ends and reaps the CLI with a success status.
#[tokio::test]
async fn disconnect_leaves_no_process() {
    let mock = MockApi::start().await;
    let sandbox = CliSandbox::new();
    let mut client = ClaudeClient::connect(&options(&sandbox, &mock), ControlHandlers::default())
        .await
        .unwrap();
    let pid = client.pid().expect("a pid");
    assert!(process_exists(pid));
    mock.push(Reply::text("Hi."));
    let (_, result) = turn(&mut client, "hi").await;
    assert_eq!(result.result.as_deref(), Some("Hi."));
    let started = Instant::now();
    let status = client.disconnect(Duration::from_secs(5)).await;
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "took {:?}",
        started.elapsed()
    );
    assert!(status.is_some_and(|s| s.success()), "{status:?}");
    assert!(!process_exists(pid), "/proc/{pid} still exists");
}

/// An in-process MCP server with one tool, `wait`, that runs until cancelled.
#[derive(Default)]
struct SlowServer {
    started: Notify,
    cancelled: Notify,
    cancellations: Mutex<Vec<Value>>,
}

/// The handler side of a shared [`SlowServer`].
struct SlowHandler(Arc<SlowServer>);

impl McpMessageHandler for SlowHandler {
    fn handle(&self, message: Value) -> BoxFuture<'static, Value> {
        let server = Arc::clone(&self.0);
        Box::pin(async move {
            let id = message.get("id").cloned();
            let method = message["method"].as_str().unwrap_or_default().to_owned();
            let result = match method.as_str() {
                "initialize" => json!({
                    "protocolVersion": message["params"]["protocolVersion"],
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "slow", "version": "1.0.0"},
                }),
                "tools/list" => json!({"tools": [{
                    "name": "wait",
                    "description": "Waits a long time.",
                    "inputSchema": {"type": "object", "properties": {}},
                }]}),
                "tools/call" => {
                    server.started.notify_one();
                    tokio::select! {
                        () = server.cancelled.notified() => {}
                        () = tokio::time::sleep(Duration::from_secs(60)) => {}
                    }
                    json!({"content": [{"type": "text", "text": "finished"}], "isError": false})
                }
                "notifications/cancelled" => {
                    server.cancellations.lock().unwrap().push(message.clone());
                    server.cancelled.notify_one();
                    json!({})
                }
                _ if id.is_none() => json!({}),
                _ => {
                    return json!({"jsonrpc": "2.0", "id": id,
                        "error": {"code": -32601, "message": "method not found"}});
                }
            };
            match id {
                Some(id) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
                None => json!({"jsonrpc": "2.0", "result": {}}),
            }
        })
    }
}

/// AGT-14, protocol §3.4.3/§4.8: interrupting during an in-process MCP tool call ends the turn
/// as `aborted_tools`, the tool is told to cancel, and the next turn works.
#[tokio::test]
async fn an_interrupted_mcp_call_aborts_the_turn_and_the_session_goes_on() {
    let mock = MockApi::start().await;
    let sandbox = CliSandbox::new();
    let server = Arc::new(SlowServer::default());
    let handler: Arc<dyn McpMessageHandler> = Arc::new(SlowHandler(server.clone()));
    let handlers = ControlHandlers {
        mcp_servers: vec![("slow".to_owned(), handler)],
        ..ControlHandlers::default()
    };
    let mut options = options(&sandbox, &mock);
    options
        .mcp_servers
        .insert("slow".to_owned(), McpServerConfig::Sdk);
    options.allowed_tools = vec!["mcp__slow__wait".to_owned()];
    let mut client = ClaudeClient::connect(&options, handlers).await.unwrap();
    mock.push(Reply::tool_use("mcp__slow__wait", json!({})));
    client
        .send(&UserContent::Text("wait for it".to_owned()))
        .unwrap();
    tokio::time::timeout(Duration::from_secs(20), server.started.notified())
        .await
        .expect("the tool call started");
    let handle = client.handle();
    handle.interrupt().await.unwrap();
    let (_, result) = read_turn(&mut client).await;
    assert_eq!(
        result.terminal_reason.as_deref(),
        Some("aborted_tools"),
        "{result:?}"
    );
    assert!(result.was_interrupted());
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while server.cancellations.lock().unwrap().is_empty() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "no notifications/cancelled"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    mock.push(Reply::text("Back to normal."));
    let (_, result) = turn(&mut client, "are you there?").await;
    assert!(!result.is_error, "{result:?}");
    assert_eq!(result.result.as_deref(), Some("Back to normal."));
    client.disconnect(Duration::from_secs(5)).await;
}
