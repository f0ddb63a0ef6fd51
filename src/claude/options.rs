//! Client options and how they become CLI arguments.

use std::{collections::BTreeMap, path::PathBuf};

use serde_json::{Map, Value, json};

use super::SessionId;

/// How the system prompt is built.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum SystemPrompt {
    /// No system prompt beyond the CLI's one-line default (`--system-prompt ""`).
    #[default]
    Empty,
    /// Replace the Claude Code prompt with this text.
    Custom(String),
    /// The full Claude Code prompt, with optional text appended (`--append-system-prompt`).
    Preset {
        /// Text appended to the preset.
        append: Option<String>,
    },
}

/// Extended-thinking configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Thinking {
    /// Thinking disabled.
    Off,
    /// Let the model decide (the CLI's default for current models).
    #[default]
    Adaptive,
    /// A fixed budget of thinking tokens.
    Budget(u32),
}

impl Thinking {
    /// Parses `off`, `adaptive` or a positive integer budget (AGT-10).
    pub fn parse(raw: &str) -> Option<Self> {
        let raw = raw.trim().to_ascii_lowercase();
        match raw.as_str() {
            "off" | "false" => Some(Self::Off),
            "adaptive" | "true" => Some(Self::Adaptive),
            _ => raw.parse::<u32>().ok().filter(|n| *n > 0).map(Self::Budget),
        }
    }
}

impl std::fmt::Display for Thinking {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Off => f.write_str("off"),
            Self::Adaptive => f.write_str("adaptive"),
            Self::Budget(n) => write!(f, "{n}"),
        }
    }
}

/// CLI permission modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PermissionMode {
    /// Ask (through `can_use_tool`) for anything not allowed by rules.
    #[default]
    Default,
    /// Auto-approve file edits.
    AcceptEdits,
    /// Plan mode.
    Plan,
    /// Approve everything (refused by the CLI when running as root).
    BypassPermissions,
    /// Deny anything not allowed by rules.
    DontAsk,
}

impl PermissionMode {
    /// The mode name on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Default => "default",
            Self::AcceptEdits => "acceptEdits",
            Self::Plan => "plan",
            Self::BypassPermissions => "bypassPermissions",
            Self::DontAsk => "dontAsk",
        }
    }

    /// Parses a mode name (case-sensitive, as the CLI spells it).
    pub fn parse(raw: &str) -> Option<Self> {
        [
            Self::Default,
            Self::AcceptEdits,
            Self::Plan,
            Self::BypassPermissions,
            Self::DontAsk,
        ]
        .into_iter()
        .find(|mode| mode.as_str() == raw.trim())
    }
}

/// An MCP server entry of `--mcp-config`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum McpServerConfig {
    /// An in-process server served through `mcp_message` (see [`super::ControlHandlers`]).
    Sdk,
    /// A remote streamable-HTTP server.
    Http {
        /// The server URL.
        url: String,
    },
}

/// Everything needed to start one CLI process. Its `Debug` lists the names in `env`, never
/// their values (API keys live there).
#[derive(Clone, Default)]
pub struct ClientOptions {
    /// The `claude` executable.
    pub cli_path: PathBuf,
    /// Working directory; sessions belong to it, so keep it stable per session.
    pub cwd: PathBuf,
    /// System prompt.
    pub system_prompt: SystemPrompt,
    /// Model name or alias; `None` = CLI default.
    pub model: Option<String>,
    /// Permission mode passed at launch.
    pub permission_mode: Option<PermissionMode>,
    /// Resume this session.
    pub resume: Option<SessionId>,
    /// With `resume`: branch into a new session instead of continuing it.
    pub fork_session: bool,
    /// Fix the id of a new session or of a fork.
    pub session_id: Option<SessionId>,
    /// Tool rules that are auto-approved (`--allowedTools`).
    pub allowed_tools: Vec<String>,
    /// Tools removed from the model's tool set (`--disallowedTools`).
    pub disallowed_tools: Vec<String>,
    /// The built-in tools the model is offered (`--tools`): `None` = the CLI's default set,
    /// an empty list = none at all.
    pub builtin_tools: Option<Vec<String>>,
    /// With the preset system prompt: move its per-machine sections (cwd, date, git status,
    /// memory paths) into the first user message, so the system prompt stays byte-identical
    /// and cacheable (`--exclude-dynamic-system-prompt-sections`; the CLI ignores it with a
    /// custom prompt, so it is only passed with [`SystemPrompt::Preset`]).
    pub exclude_dynamic_sections: bool,
    /// MCP servers by name.
    pub mcp_servers: BTreeMap<String, McpServerConfig>,
    /// Setting sources to load (`project`); `None` = the CLI's default (user, project, local).
    pub setting_sources: Option<Vec<String>>,
    /// Sub-agent definitions, sent in `initialize.agents`.
    pub agents: Option<Value>,
    /// Plugin folders the CLI loads skills, commands, agents and hooks from (`--plugin-dir`).
    pub plugin_dirs: Vec<PathBuf>,
    /// Settings as inline JSON (`--settings`), loaded whatever the setting sources.
    pub settings: Option<String>,
    /// Thinking configuration; `None` = CLI default.
    pub thinking: Option<Thinking>,
    /// Emit `stream_event` frames with partial deltas.
    pub include_partial_messages: bool,
    /// Stop after this many model calls in one turn.
    pub max_turns: Option<u32>,
    /// Whether the session's transcript is kept on disk.
    pub transcript: Transcript,
    /// Extra environment variables for the child.
    pub env: BTreeMap<String, String>,
    /// Extra raw arguments, appended before `--input-format`.
    pub extra_args: Vec<String>,
    /// Confines the child before it starts (the agent's sandbox, issue 23; its container,
    /// issue 39); `None` starts it as is. An error refuses the start.
    pub confine: Option<Confine>,
    /// Told each session id the CLI reports, with the config dir the [`Confine`] hook gave the
    /// process (issue 39: which container home holds that session's transcript).
    pub session_observer: Option<SessionObserver>,
    /// What the CLI does first once it is up.
    pub start_up: StartUp,
}

/// What a starting CLI does first (issue 29, REST-2). The CLI holds some of its start-up work
/// (plugin and telemetry set-up among it) until its first turn begins, so that turn is not
/// kept waiting on a start that a turn asked for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum StartUp {
    /// The first turn goes first, the held work after it: a turn is waiting (the CLI's default).
    #[default]
    TurnFirst,
    /// The held work runs at once: the CLI is started ahead of a turn (the owner is typing),
    /// so the turn, when it comes, finds it done (`CLAUDE_CODE_DISABLE_STARTUP_WORK_GATE`).
    WorkFirst,
}

impl StartUp {
    /// The variable the child gets for it, if any.
    pub(crate) fn env(self) -> Option<(&'static str, &'static str)> {
        match self {
            StartUp::TurnFirst => None,
            StartUp::WorkFirst => Some(("CLAUDE_CODE_DISABLE_STARTUP_WORK_GATE", "1")),
        }
    }
}

/// Rewrites how a child is started to confine it (see [`ClientOptions::confine`]): it may
/// wrap the program in a container, change the arguments and add to the environment. What it
/// returns (a proxy serving the container, …) is kept until the process is gone.
pub type Confine =
    std::sync::Arc<dyn Fn(&mut Invocation) -> std::io::Result<Option<Attachment>> + Send + Sync>;

/// Something a CLI process needs while it runs, dropped with it.
pub type Attachment = Box<dyn ProcessAttachment>;

/// What a confinement keeps beside a CLI process (its network proxy, its cgroup).
pub trait ProcessAttachment: Send + Sync {
    /// The process started as `pid`.
    fn started(&self, _pid: u32) {}

    /// Why the process was stopped, when something this watches stopped it (a limit), for the
    /// error of its exit.
    fn exit_note(&self) -> Option<String> {
        None
    }
}

/// How a CLI child is started: what a [`Confine`] hook sees and may rewrite.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invocation {
    /// The program run.
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<std::ffi::OsString>,
    /// The working directory the CLI runs in.
    pub cwd: PathBuf,
    /// Its whole environment.
    pub env: BTreeMap<String, String>,
    /// The session it resumes, if any.
    pub resume: Option<String>,
    /// Whether the resumed session is branched into a new id.
    pub fork_session: bool,
    /// The CLI's own config dir (`CLAUDE_CONFIG_DIR`) the hook gave this process, if any.
    pub config_dir: Option<PathBuf>,
    /// `cgroup.procs` files the process writes itself into before it runs the program, so
    /// everything it starts is counted from the first instruction.
    pub cgroups: Vec<PathBuf>,
}

/// Whether the CLI keeps a session's transcript on disk.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Transcript {
    /// Kept: the session can be resumed, and recall and history read it.
    #[default]
    Kept,
    /// Not kept (`--no-session-persistence`): nothing resumes or reads it later.
    NotKept,
}

/// See [`ClientOptions::session_observer`]: a session id and the process's config dir.
pub type SessionObserver = std::sync::Arc<dyn Fn(&SessionId, &std::path::Path) + Send + Sync>;

impl std::fmt::Debug for ClientOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientOptions")
            .field("cli_path", &self.cli_path)
            .field("cwd", &self.cwd)
            .field("system_prompt", &self.system_prompt)
            .field("model", &self.model)
            .field("permission_mode", &self.permission_mode)
            .field("resume", &self.resume)
            .field("fork_session", &self.fork_session)
            .field("session_id", &self.session_id)
            .field("allowed_tools", &self.allowed_tools)
            .field("disallowed_tools", &self.disallowed_tools)
            .field("builtin_tools", &self.builtin_tools)
            .field("exclude_dynamic_sections", &self.exclude_dynamic_sections)
            .field("mcp_servers", &self.mcp_servers)
            .field("setting_sources", &self.setting_sources)
            .field("agents", &self.agents)
            .field("plugin_dirs", &self.plugin_dirs)
            .field("settings", &self.settings)
            .field("thinking", &self.thinking)
            .field("include_partial_messages", &self.include_partial_messages)
            .field("max_turns", &self.max_turns)
            .field("transcript", &self.transcript)
            .field(
                "env (values redacted)",
                &self.env.keys().collect::<Vec<_>>(),
            )
            .field("extra_args", &self.extra_args)
            .field("confine", &self.confine.is_some())
            .field("session_observer", &self.session_observer.is_some())
            .field("start_up", &self.start_up)
            .finish()
    }
}

impl ClientOptions {
    /// The command-line arguments (without the executable).
    pub fn to_args(&self, has_permission_handler: bool) -> Vec<String> {
        let mut args: Vec<String> = vec![
            "--output-format".into(),
            "stream-json".into(),
            "--verbose".into(),
        ];
        match &self.system_prompt {
            SystemPrompt::Empty => args.extend(["--system-prompt".into(), String::new()]),
            SystemPrompt::Custom(text) => args.extend(["--system-prompt".into(), text.clone()]),
            SystemPrompt::Preset { append: Some(text) } => {
                args.extend(["--append-system-prompt".into(), text.clone()]);
            }
            SystemPrompt::Preset { append: None } => {}
        }
        if self.exclude_dynamic_sections
            && matches!(self.system_prompt, SystemPrompt::Preset { .. })
        {
            args.push("--exclude-dynamic-system-prompt-sections".into());
        }
        if let Some(tools) = &self.builtin_tools {
            args.extend(["--tools".into(), tools.join(",")]);
        }
        if !self.allowed_tools.is_empty() {
            args.extend(["--allowedTools".into(), self.allowed_tools.join(",")]);
        }
        if !self.disallowed_tools.is_empty() {
            args.extend(["--disallowedTools".into(), self.disallowed_tools.join(",")]);
        }
        if let Some(max_turns) = self.max_turns {
            args.extend(["--max-turns".into(), max_turns.to_string()]);
        }
        if let Some(model) = &self.model {
            args.push(format!("--model={model}"));
        }
        if has_permission_handler {
            args.extend(["--permission-prompt-tool".into(), "stdio".into()]);
        }
        if let Some(mode) = self.permission_mode {
            args.extend(["--permission-mode".into(), mode.as_str().into()]);
        }
        if let Some(resume) = &self.resume {
            args.push(format!("--resume={resume}"));
            if self.fork_session {
                args.push("--fork-session".into());
            }
        }
        if let Some(session_id) = &self.session_id {
            args.push(format!("--session-id={session_id}"));
        }
        if !self.mcp_servers.is_empty() {
            args.extend(["--mcp-config".into(), self.mcp_config().to_string()]);
        }
        if self.include_partial_messages {
            args.push("--include-partial-messages".into());
        }
        if self.transcript == Transcript::NotKept {
            args.push("--no-session-persistence".into());
        }
        if let Some(sources) = &self.setting_sources {
            args.push(format!("--setting-sources={}", sources.join(",")));
        }
        for dir in &self.plugin_dirs {
            args.extend(["--plugin-dir".into(), dir.display().to_string()]);
        }
        if let Some(settings) = &self.settings {
            args.extend(["--settings".into(), settings.clone()]);
        }
        match self.thinking {
            Some(Thinking::Off) => args.extend(["--thinking".into(), "disabled".into()]),
            Some(Thinking::Adaptive) => args.extend(["--thinking".into(), "adaptive".into()]),
            Some(Thinking::Budget(n)) => {
                args.extend(["--max-thinking-tokens".into(), n.to_string()]);
            }
            None => {}
        }
        args.extend(self.extra_args.iter().cloned());
        args.extend(["--input-format".into(), "stream-json".into()]);
        args
    }

    fn mcp_config(&self) -> Value {
        let servers: Map<String, Value> = self
            .mcp_servers
            .iter()
            .map(|(name, config)| {
                let entry = match config {
                    McpServerConfig::Sdk => json!({"type": "sdk", "name": name}),
                    McpServerConfig::Http { url } => json!({"type": "http", "url": url}),
                };
                (name.clone(), entry)
            })
            .collect();
        json!({ "mcpServers": servers })
    }
}

#[cfg(test)]
#[path = "options_tests.rs"]
mod tests;
