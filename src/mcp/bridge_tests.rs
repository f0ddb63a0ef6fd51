//! The bridge against the message sequence CLI 2.1.197 sends (transcript `mcp_sdk_server`).

use std::sync::Arc;

use parking_lot::Mutex;

use serde_json::{Value, json};

use super::{DiscordTools, McpBridge, ToolContext, ToolScope};
use crate::domain::embed::Embed;
use crate::{
    claude::BoxFuture,
    front_end::{Approval, FrontEnd, FrontEndError},
};

#[derive(Default)]
struct RecordingFrontEnd {
    embeds: Mutex<Vec<Embed>>,
}

impl FrontEnd for RecordingFrontEnd {
    fn send_embed(&self, embed: Embed) -> BoxFuture<'_, Result<Option<u64>, FrontEndError>> {
        self.embeds.lock().push(embed);
        Box::pin(async { Ok(None) })
    }

    fn send_text(&self, _text: String) -> BoxFuture<'_, Result<Option<u64>, FrontEndError>> {
        Box::pin(async { Ok(None) })
    }

    fn send_file(
        &self,
        _path: std::path::PathBuf,
        _message: Option<String>,
    ) -> BoxFuture<'_, Result<Option<u64>, FrontEndError>> {
        Box::pin(async { Ok(None) })
    }

    fn render_turn(
        &self,
        mut events: tokio::sync::mpsc::UnboundedReceiver<crate::front_end::TurnEvent>,
    ) -> BoxFuture<'_, Vec<u64>> {
        Box::pin(async move {
            while events.recv().await.is_some() {}
            Vec::new()
        })
    }

    fn ask_approval(&self, _label: String) -> BoxFuture<'_, Approval> {
        Box::pin(async { Approval::Deny })
    }
}

async fn bridge(scope: ToolScope) -> (McpBridge<DiscordTools>, Arc<RecordingFrontEnd>) {
    let front_end = Arc::new(RecordingFrontEnd::default());
    let tools = DiscordTools::new(ToolContext::new(scope, front_end.clone()));
    (McpBridge::start(tools).await.unwrap(), front_end)
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "claude-code", "version": "2.1.197"}}})
}

#[tokio::test]
async fn survives_the_double_handshake_with_reused_ids() {
    let (bridge, _) = bridge(ToolScope::Main).await;
    let first = bridge.dispatch(initialize()).await;
    assert_eq!(first["id"], 0);
    assert_eq!(first["result"]["protocolVersion"], "2025-11-25");
    assert_eq!(first["result"]["serverInfo"]["name"], "discord");
    let ack = bridge
        .dispatch(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    assert_eq!(ack, json!({"jsonrpc": "2.0", "result": {}}));
    assert_eq!(bridge.dispatch(initialize()).await["id"], 0);
    for _ in 0..2 {
        let list = bridge
            .dispatch(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
            .await;
        assert_eq!(list["id"], 1);
        let names: Vec<&str> = list["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        let mut expected: Vec<&str> = crate::mcp::tools::IMPLEMENTED_TOOLS.to_vec();
        let mut listed = names.clone();
        listed.sort_unstable();
        expected.sort_unstable();
        assert_eq!(
            listed, expected,
            "every tool is listed in every scope (MCP-16)"
        );
        let embed = list["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == "discord_embed")
            .unwrap();
        assert_eq!(embed["inputSchema"]["required"], json!(["title"]));
    }
}

#[tokio::test]
async fn tool_call_reaches_the_front_end_and_answers_with_the_cli_id() {
    let (bridge, front_end) = bridge(ToolScope::InteractiveFork).await;
    let reply = bridge
        .dispatch(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "discord_embed",
            "arguments": {"title": "📋 Plan", "buttons": [{"label": "Done", "action": "task_done:1"}]},
            "_meta": {"claudecode/toolUseId": "toolu_1", "progressToken": 2}}}))
        .await;
    assert_eq!(reply["id"], 2);
    assert_eq!(reply["result"]["content"][0]["text"], "Embed sent.");
    let embeds = front_end.embeds.lock();
    assert_eq!(embeds[0].title, "Plan");
    assert_eq!(embeds[0].footer.as_deref(), Some("fork"));
}

#[tokio::test]
async fn unknown_tools_and_methods_get_json_rpc_errors() {
    let (bridge, _) = bridge(ToolScope::Main).await;
    let reply = bridge
        .dispatch(json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
            "params": {"name": "no_such_tool", "arguments": {"message": "x"}}}))
        .await;
    assert_eq!(reply["id"], 7);
    assert!(reply.get("error").is_some() || reply["result"]["isError"] == true);
    let reply = bridge
        .dispatch(json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
            "params": {"name": "ping_user", "arguments": {"message": "x"}}}))
        .await;
    assert_eq!(
        reply["result"]["content"][0]["text"],
        "Error: ping_user is only available in background forks"
    );
    let reply = bridge
        .dispatch(json!({"jsonrpc": "2.0", "id": 8, "method": "resources/list"}))
        .await;
    assert_eq!(reply["id"], 8);
    assert!(reply.get("error").is_some() || reply.get("result").is_some());
}

#[tokio::test]
async fn a_background_run_gets_one_ping() {
    use crate::{
        domain::{job_options::UpdateMode, prompt_tag::PromptTag},
        mcp::run_state::BgRunState,
        scheduling::lineage::RunLineage,
        state::{paths::DataDir, ping_budget::PingBudget},
    };
    let dir = tempfile::tempdir().unwrap();
    let data_dir = DataDir::new(dir.path());
    data_dir.ensure_layout().unwrap();
    let budget = PingBudget::new(&data_dir, chrono_tz::UTC);
    let front_end = Arc::new(RecordingFrontEnd::default());
    let config = crate::config::Config::from_lookup(|key| match key {
        "OLLIM_USER_NAME" => Some("Julia".to_owned()),
        "OLLIM_BOT_NAME" => Some("Ollim".to_owned()),
        "OLLIM_DATA_DIR" => Some(dir.path().display().to_string()),
        "OLLIM_TIMEZONE" => Some("UTC".to_owned()),
        _ => None,
    })
    .unwrap();
    let opened = crate::agent::open_services(config).unwrap();
    let mut context = ToolContext::new(ToolScope::Background, front_end.clone());
    context.session = super::tools::ToolSession::Background {
        services: opened.services,
        run: Arc::new(BgRunState::new(
            true,
            UpdateMode::OnPing,
            false,
            budget,
            RunLineage::of_tag(&PromptTag::System),
        )),
        chain: Arc::default(),
    };
    let bridge = McpBridge::start(DiscordTools::new(context)).await.unwrap();
    bridge.dispatch(initialize()).await;
    let call = |id: u64| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "ping_user", "arguments": {"message": "x"}}})
    };
    let first = bridge.dispatch(call(3)).await;
    assert_eq!(first["result"]["content"][0]["text"], "Message sent.");
    let second = bridge.dispatch(call(4)).await;
    assert!(
        second["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("Already sent"),
        "{second}"
    );
}
