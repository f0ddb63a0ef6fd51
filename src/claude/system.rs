//! `type: "system"` frames: init, compaction, status, retries.

use serde_json::Value;

use super::frame_fields::{self, count, string_or_empty, strings};

/// `type: "system"` frames by subtype.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum SystemMessage {
    /// Emitted at the start of every turn.
    Init(InitInfo),
    /// A compaction finished; the history before it is summarised.
    CompactBoundary(CompactBoundary),
    /// `status` frames: `requesting`, `compacting`, permission-mode changes.
    Status {
        /// The new status (`"compacting"`, `"requesting"`), or `None` when a phase ended.
        status: Option<String>,
        /// `"success"` when a compaction just finished.
        compact_result: Option<String>,
    },
    /// An API call is being retried.
    ApiRetry {
        /// Attempt number.
        attempt: u64,
        /// How many retries the CLI makes in all, when it says.
        max_retries: Option<u64>,
        /// HTTP status of the failure, if any.
        error_status: Option<u64>,
    },
    /// Any other subtype.
    Other {
        /// The subtype string.
        subtype: String,
        /// The whole frame.
        raw: Value,
    },
}

/// Fields of `system/init` that the bot uses.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct InitInfo {
    /// The session id of this turn.
    pub session_id: String,
    /// Model name as the CLI reports it.
    pub model: String,
    /// Names of the tools offered to the model.
    pub tools: Vec<String>,
    /// Permission mode in effect.
    pub permission_mode: String,
    /// Working directory of the CLI.
    pub cwd: String,
    /// Version of the CLI (`2.1.197`).
    pub claude_code_version: String,
    /// MCP servers and their connection status.
    pub mcp_servers: Vec<McpServerStatus>,
}

/// One entry of `system/init.mcp_servers`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct McpServerStatus {
    /// Server name (`discord`).
    pub name: String,
    /// `connected`, `failed`, …
    pub status: String,
}

/// `system/compact_boundary`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompactBoundary {
    /// The session id (unchanged by compaction in CLI 2.1.197).
    pub session_id: String,
    /// `manual` or `auto`.
    pub trigger: String,
    /// Context size before compaction, in tokens.
    pub pre_tokens: Option<u64>,
}

impl SystemMessage {
    pub(super) fn from_value(value: &Value) -> Self {
        let subtype = frame_fields::string(value, "subtype").unwrap_or_default();
        match subtype.as_str() {
            "init" => Self::Init(InitInfo::from_value(value)),
            "compact_boundary" => {
                let metadata = value.get("compact_metadata");
                Self::CompactBoundary(CompactBoundary {
                    session_id: string_or_empty(value, "session_id"),
                    trigger: metadata
                        .map(|m| string_or_empty(m, "trigger"))
                        .unwrap_or_default(),
                    pre_tokens: metadata.and_then(|m| count(m, "pre_tokens")),
                })
            }
            "status" => Self::Status {
                status: frame_fields::string(value, "status"),
                compact_result: frame_fields::string(value, "compact_result"),
            },
            "api_retry" => Self::ApiRetry {
                attempt: count(value, "attempt").unwrap_or(0),
                max_retries: count(value, "max_retries"),
                error_status: count(value, "error_status"),
            },
            _ => Self::Other {
                subtype,
                raw: value.clone(),
            },
        }
    }
}

impl InitInfo {
    fn from_value(value: &Value) -> Self {
        Self {
            session_id: string_or_empty(value, "session_id"),
            model: string_or_empty(value, "model"),
            tools: strings(value, "tools"),
            permission_mode: string_or_empty(value, "permissionMode"),
            cwd: string_or_empty(value, "cwd"),
            claude_code_version: string_or_empty(value, "claude_code_version"),
            mcp_servers: value
                .get("mcp_servers")
                .and_then(Value::as_array)
                .map(|servers| {
                    servers
                        .iter()
                        .map(|server| McpServerStatus {
                            name: string_or_empty(server, "name"),
                            status: string_or_empty(server, "status"),
                        })
                        .collect()
                })
                .unwrap_or_default(),
        }
    }
}
