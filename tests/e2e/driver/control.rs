//! What the host answers the CLI's control requests with: a Stop hook that blocks once
//! (HKS-1 mechanism) and `can_use_tool` rewriting or denying (AGT-7).

use std::{
    sync::{Arc, Mutex},
    time::Duration,
};

use ollim_bot::claude::{
    BoxFuture, ClaudeClient, ClientOptions, ControlHandlers, HookCallback, HookEvent, HookOutput,
    HookRegistration, PermissionDecision, PermissionHandler, PermissionMode, PermissionRequest,
};
use serde_json::{Value, json};

use super::{options, turn};
use crate::support::{
    cli::CliSandbox,
    mock_api::{MockApi, Reply},
};

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
