//! Hooks registered on every main-session and fork client (AGT-8): the `state/` write guard
//! (HKS-3), the routine validator (HKS-4), the `dontAsk` guard for Bash (PRM-2) and the git
//! auto-commit of markdown the agent writes (HKS-2).

use std::{
    path::{Path, PathBuf},
    sync::Arc,
};

use serde_json::Value;

use super::{
    live_rules::LiveRules,
    outbound_hold::{HoldDeps, MAIL_TOOL, MailReadMarker, OUTBOUND_TOOLS, OutboundHold},
    policy::{PermissionState, dont_ask_refusal, state_write_refusal, write_target},
    routine_guard::RoutineGuard,
    write_scope::WriteScopeGuard,
};
use crate::front_end::{CurrentTurn, TurnEvent};
use crate::tool_policy::bash_rules::{bash_patterns, command_allowed};
use crate::{
    claude::{BoxFuture, HookCallback, HookEvent, HookOutput, HookRegistration},
    sandbox::Gate,
    state::{git::GitRecorder, paths::DataDir, untrusted_sessions::UntrustedSessions},
};

/// Seconds the CLI waits for these hooks.
const HOOK_TIMEOUT_SECS: u32 = 30;
/// Seconds the CLI waits for the outbound hold, which may wait for the owner's answer.
const HOLD_TIMEOUT_SECS: u32 = 180;

/// What the main-session hooks act on.
pub struct MainHookDeps {
    /// The data dir.
    pub data_dir: DataDir,
    /// Where auto-commits go; `None` disables them.
    pub git: Option<GitRecorder>,
    /// The shared permission state (`dontAsk`, session allowances).
    pub permissions: Arc<PermissionState>,
    /// The turn in progress, for struck-through labels.
    pub turn: CurrentTurn,
    /// The `--allowedTools` rules of the client.
    pub allowed_tools: Vec<String>,
    /// Rules that apply without a restart (PRM-11, issue 23 §4): the main session and its
    /// forks have them; background runs (and clients resumed from one) have a set fixed at
    /// start.
    pub live_rules: Option<Arc<LiveRules>>,
    /// Sessions that read mail: every client marks its own (issue 23 §4).
    pub untrusted: UntrustedSessions,
    /// For owner-facing clients, what holding their outbound tools after mail needs; `None`
    /// for background runs, whose own tool set governs.
    pub hold: Option<HoldDeps>,
    /// What the session's container may reach (issue 39 §3): narrowed when it reads mail,
    /// widened by the owner's answers to the hold.
    pub gate: Arc<Gate>,
}

/// The hooks for a main-session or interactive-fork client.
pub fn main_hooks(deps: MainHookDeps) -> Vec<HookRegistration> {
    let MainHookDeps {
        data_dir,
        git,
        permissions,
        turn,
        allowed_tools,
        live_rules,
        untrusted,
        hold,
        gate,
    } = deps;
    let mut hooks = vec![
        HookRegistration {
            event: HookEvent::PreToolUse,
            matcher: Some("Write|Edit|MultiEdit|NotebookEdit".to_owned()),
            timeout_secs: HOOK_TIMEOUT_SECS,
            callback: Arc::new(StateGuard {
                data_dir: data_dir.clone(),
            }),
        },
        HookRegistration {
            event: HookEvent::PreToolUse,
            matcher: Some("Write|Edit|MultiEdit".to_owned()),
            timeout_secs: HOOK_TIMEOUT_SECS,
            callback: Arc::new(RoutineGuard::new(data_dir.clone())),
        },
        HookRegistration {
            event: HookEvent::PreToolUse,
            matcher: Some("Bash".to_owned()),
            timeout_secs: HOOK_TIMEOUT_SECS,
            callback: Arc::new(DontAskBashGuard {
                permissions: Arc::clone(&permissions),
                patterns: bash_patterns(&allowed_tools),
                live_rules: live_rules.clone(),
                turn: turn.clone(),
            }),
        },
        HookRegistration {
            event: HookEvent::PreToolUse,
            matcher: Some("Write|Edit|MultiEdit|NotebookEdit".to_owned()),
            timeout_secs: HOOK_TIMEOUT_SECS,
            callback: Arc::new(WriteScopeGuard {
                data_dir: data_dir.clone(),
                permissions: Arc::clone(&permissions),
                rules: allowed_tools,
                live_rules,
                turn: turn.clone(),
            }),
        },
        HookRegistration {
            event: HookEvent::PostToolUse,
            matcher: Some(MAIL_TOOL.to_owned()),
            timeout_secs: HOOK_TIMEOUT_SECS,
            callback: Arc::new(MailReadMarker {
                untrusted: untrusted.clone(),
                gate: Arc::clone(&gate),
            }),
        },
    ];
    if let Some(HoldDeps { front_end, lineage }) = hold {
        hooks.push(HookRegistration {
            event: HookEvent::PreToolUse,
            matcher: Some(OUTBOUND_TOOLS.to_owned()),
            // The owner has a minute to answer (PRM-4), and this hook waits for them.
            timeout_secs: HOLD_TIMEOUT_SECS,
            callback: Arc::new(OutboundHold {
                untrusted,
                lineage,
                permissions,
                front_end,
                turn,
                gate,
            }),
        });
    }
    if let Some(git) = git {
        hooks.push(HookRegistration {
            event: HookEvent::PostToolUse,
            matcher: Some("Write|Edit|MultiEdit".to_owned()),
            timeout_secs: HOOK_TIMEOUT_SECS,
            callback: Arc::new(AutoCommit { data_dir, git }),
        });
    }
    hooks
}

/// Refuses file writes into `state/` even for allowed tools and permissive modes (HKS-3).
struct StateGuard {
    data_dir: DataDir,
}

impl HookCallback for StateGuard {
    fn call(&self, input: Value) -> BoxFuture<'static, HookOutput> {
        let (tool, tool_input) = tool_of(&input);
        let resolved = resolve_against_cwd(&input, &tool, tool_input);
        let output = state_write_refusal(&self.data_dir, &tool, &resolved)
            .map(|_| {
                HookOutput::deny_tool(format!(
                    "{tool} to state/ is blocked — state/ is write-protected"
                ))
            })
            .unwrap_or_default();
        Box::pin(std::future::ready(output))
    }
}

/// In `dontAsk`, refuses Bash commands outside the allowed `Bash(...)` rules. The CLI runs
/// read-only commands without asking the permission callback, so the rule is enforced here.
struct DontAskBashGuard {
    permissions: Arc<PermissionState>,
    patterns: Vec<String>,
    live_rules: Option<Arc<LiveRules>>,
    turn: CurrentTurn,
}

impl DontAskBashGuard {
    fn covered(&self, command: &str) -> bool {
        command_allowed(command, &self.patterns)
            || self
                .live_rules
                .as_ref()
                .is_some_and(|rules| command_allowed(command, &bash_patterns(&rules.current())))
    }
}

impl HookCallback for DontAskBashGuard {
    fn call(&self, input: Value) -> BoxFuture<'static, HookOutput> {
        let command = input
            .pointer("/tool_input/command")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let refused = self.permissions.dont_ask()
            && !self.permissions.is_session_allowed("Bash")
            && !self.covered(command);
        let output = if refused {
            if let Some(id) = input.get("tool_use_id").and_then(Value::as_str) {
                self.turn.emit(TurnEvent::ToolDenied { id: id.to_owned() });
            }
            HookOutput::deny_tool(dont_ask_refusal("Bash"))
        } else {
            HookOutput::default()
        };
        Box::pin(std::future::ready(output))
    }
}

/// Commits a markdown file the agent wrote inside the data dir (HKS-2).
struct AutoCommit {
    data_dir: DataDir,
    git: GitRecorder,
}

impl HookCallback for AutoCommit {
    fn call(&self, input: Value) -> BoxFuture<'static, HookOutput> {
        let (tool, tool_input) = tool_of(&input);
        if let Some(relative) = committable_path(&self.data_dir, &input, &tool, tool_input) {
            let message = format!("auto: {} {}", tool.to_lowercase(), relative.display());
            self.git.commit(relative, message);
        }
        Box::pin(std::future::ready(HookOutput::default()))
    }
}

fn tool_of(input: &Value) -> (String, &Value) {
    let tool = input
        .get("tool_name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    (tool, input.get("tool_input").unwrap_or(&Value::Null))
}

/// The tool input with a relative target path made absolute against the hook's `cwd`.
fn resolve_against_cwd(input: &Value, tool: &str, tool_input: &Value) -> Value {
    let mut resolved = tool_input.clone();
    if let (Some(target), Some(cwd)) = (
        write_target(tool, tool_input),
        input.get("cwd").and_then(Value::as_str),
    ) && Path::new(&target).is_relative()
    {
        resolved["file_path"] = Value::String(Path::new(cwd).join(target).display().to_string());
    }
    resolved
}

/// The data-dir-relative path of a written `.md` file outside `state/` and `.git/`.
fn committable_path(
    data_dir: &DataDir,
    input: &Value,
    tool: &str,
    tool_input: &Value,
) -> Option<PathBuf> {
    let target = write_target(tool, tool_input)?;
    let mut path = PathBuf::from(&target);
    if path.is_relative() {
        path = PathBuf::from(input.get("cwd").and_then(Value::as_str)?).join(path);
    }
    if path.extension().and_then(|e| e.to_str()) != Some("md")
        || data_dir.is_inside_state_dir(&path)
    {
        return None;
    }
    let relative = path.strip_prefix(data_dir.root()).ok()?.to_path_buf();
    let escapes = relative
        .components()
        .any(|c| matches!(c, std::path::Component::ParentDir) || c.as_os_str() == ".git");
    (!escapes).then_some(relative)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn state_guard_denies_relative_and_absolute_state_writes() {
        let dir = tempfile::tempdir().unwrap();
        let guard = StateGuard {
            data_dir: DataDir::new(dir.path()),
        };
        let input = json!({"tool_name": "Write", "cwd": dir.path(),
            "tool_input": {"file_path": "state/sessions.json", "content": "x"}});
        let output = futures_ready(guard.call(input));
        assert!(
            output
                .deny_tool_reason
                .unwrap()
                .contains("state/ is blocked")
        );
        let ok = json!({"tool_name": "Write", "cwd": dir.path(),
            "tool_input": {"file_path": "notes.md", "content": "x"}});
        assert_eq!(futures_ready(guard.call(ok)), HookOutput::default());
    }

    #[test]
    fn only_markdown_inside_the_data_dir_is_committed() {
        let dir = tempfile::tempdir().unwrap();
        let data_dir = DataDir::new(dir.path());
        let cwd = json!({"cwd": dir.path()});
        let path = |p: &str| committable_path(&data_dir, &cwd, "Edit", &json!({"file_path": p}));
        assert_eq!(path("USER.md"), Some(PathBuf::from("USER.md")));
        assert_eq!(
            path(&dir.path().join("routines/a.md").display().to_string()),
            Some(PathBuf::from("routines/a.md"))
        );
        assert_eq!(path("notes.txt"), None);
        assert_eq!(path("state/x.md"), None);
        assert_eq!(path("/elsewhere/x.md"), None);
    }

    #[test]
    fn dont_ask_guard_refuses_unlisted_bash_only_in_dont_ask() {
        let permissions = Arc::new(PermissionState::new(true));
        let guard = DontAskBashGuard {
            permissions: Arc::clone(&permissions),
            patterns: vec!["ollim-bot tasks *".to_owned()],
            live_rules: None,
            turn: CurrentTurn::default(),
        };
        let call = |command: &str| {
            futures_ready(
                guard.call(json!({"tool_name": "Bash", "tool_input": {"command": command}})),
            )
        };
        assert!(
            call("ls")
                .deny_tool_reason
                .unwrap()
                .contains("denied silently")
        );
        assert_eq!(call("ollim-bot tasks list"), HookOutput::default());
        permissions.allow_for_session("Bash");
        assert_eq!(call("ls"), HookOutput::default());
        permissions.reset();
        permissions.set_dont_ask(false);
        assert_eq!(call("ls"), HookOutput::default());
    }

    fn futures_ready(future: BoxFuture<'static, HookOutput>) -> HookOutput {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(future)
    }
}
