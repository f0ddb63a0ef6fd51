//! What a draft can make the CLI run, read from its bytes for the owner (issue 39 §4, BOX-8): the
//! approval embed and `ollim-bot approve` say it. Safety never depends on this reading — an
//! item loads only as approved bytes — but the owner decides by it, so it errs one way: what
//! the bot can't rule out is "may run commands", never "nothing found".
//!
//! Flagged: any `hooks` key; any `` !`…` `` dynamic-context marker or `` ```! `` block; a tool
//! grant of Bash, of a subagent launcher or of anything the bot doesn't know to be inert; a
//! subagent without a `tools` list (it inherits every tool); `mcpServers` and
//! `permissionMode`; any file beside `SKILL.md` that isn't plain text; settings with hooks, a
//! status line, an API-key helper, MCP servers, environment, permission rules or any key the
//! bot doesn't know; a header or a settings file it can't read.

use serde_yaml::Value;

use super::{ContentItem, ContentKind};

/// Tools that run no command, start no program and launch no subagent (the bot's own
/// `discord` tools are matched by prefix).
const INERT_TOOLS: &[&str] = &[
    "Read",
    "Grep",
    "Glob",
    "LS",
    "WebFetch",
    "WebSearch",
    "TodoWrite",
    "TodoRead",
    "Write",
    "Edit",
    "MultiEdit",
    "NotebookRead",
    "NotebookEdit",
    "Skill",
    "AskUserQuestion",
    "ExitPlanMode",
];

/// Frontmatter keys of skills, commands and subagents that make the CLI run nothing.
const INERT_KEYS: &[&str] = &[
    "name",
    "description",
    "argument-hint",
    "when-to-use",
    "model",
    "disable-model-invocation",
    "user-invocable",
    "version",
    "license",
    "color",
    "context",
    "agent",
    "allowed-tools",
    "tools",
];

/// Settings keys that make the CLI run nothing.
const INERT_SETTINGS: &[&str] = &[
    "autoMemoryEnabled",
    "idleCompaction",
    "model",
    "includeCoAuthoredBy",
    "cleanupPeriodDays",
    "alwaysThinkingEnabled",
    "outputStyle",
    "spinnerTipsEnabled",
    "theme",
    "language",
];

/// Why a draft with nothing flagged runs nothing by itself, for the owner.
pub const NOTHING_RUNS: &str = "it has no hooks, `!` lines, shell or unknown tools, scripts, \
    MCP servers or keys the bot doesn't know. Its text still steers the agent: read it";

/// What a draft can run, and what else it does.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reach {
    /// Why it may run commands, one reason each; empty only when nothing in it can.
    pub runs: Vec<String>,
    /// The rest the owner should know: tools granted that run nothing, a model, extra files.
    pub also: Vec<String>,
}

impl Reach {
    /// Reads `item`.
    pub fn of(item: &ContentItem) -> Self {
        let mut reach = Self::default();
        if item.kind == ContentKind::Settings {
            reach.settings(&item.main_text());
            return reach;
        }
        let main = item.main_text();
        reach.markdown(&main, "", item.kind);
        for file in &item.files {
            let name = file.relative.display().to_string();
            if name == crate::skills::SKILL_FILE || item.files.len() == 1 {
                continue;
            }
            reach.beside(&name, &file.bytes);
        }
        if item.files.len() > 1 {
            reach.also.push(format!("{} files", item.files.len()));
        }
        reach
    }

    /// Whether the bot can't rule out that it runs commands.
    pub fn may_run_commands(&self) -> bool {
        !self.runs.is_empty()
    }

    /// The verdict first, then its reasons and the rest, one line each (`ollim-bot approve`).
    pub fn lines(&self) -> Vec<String> {
        let mut lines = vec![self.verdict()];
        lines.extend(self.runs.iter().map(|reason| format!("  {reason}")));
        lines.extend(self.also.iter().cloned());
        lines
    }

    /// `may run commands:`, or that it runs none by itself and why the bot can say so.
    pub fn verdict(&self) -> String {
        if self.may_run_commands() {
            "may run commands:".to_owned()
        } else {
            format!("runs no commands by itself: {NOTHING_RUNS}")
        }
    }

    /// A skill's, command's or subagent's markdown; `file` names it when it isn't the main one.
    fn markdown(&mut self, text: &str, file: &str, kind: ContentKind) {
        let at = if file.is_empty() {
            String::new()
        } else {
            format!(" (in `{file}`)")
        };
        for command in crate::skills::exec_surface(text).shell_commands {
            self.runs.push(format!("runs `{command}` when loaded{at}"));
        }
        if text.lines().any(|line| {
            let line = line.trim_start();
            line.starts_with("```!") || line.starts_with("~~~!")
        }) {
            self.runs.push(format!(
                "has a `!` code block the CLI may run when loaded{at}"
            ));
        }
        if !file.is_empty() {
            return;
        }
        match header(text) {
            Header::None if kind == ContentKind::Subagent => self.inherits_every_tool(),
            Header::None => {}
            Header::Unreadable => self.runs.push(
                "its frontmatter can't be read, so the bot can't tell what it declares".to_owned(),
            ),
            Header::Fields { yaml, fields } => self.fields(yaml, &fields, kind),
        }
    }

    fn fields(&mut self, yaml: &str, fields: &serde_yaml::Mapping, kind: ContentKind) {
        let mut tools = None;
        let mut hooks = yaml.lines().any(|line| {
            let line = line.trim_start().to_ascii_lowercase();
            line.starts_with("hooks") && line[5..].trim_start().starts_with(':')
        });
        for (key, value) in fields {
            let Some(raw) = key.as_str() else {
                self.runs
                    .push(format!("has a key the bot can't read: {key:?}"));
                continue;
            };
            let key = raw.trim().to_ascii_lowercase().replace('_', "-");
            match key.as_str() {
                "hooks" => hooks = true,
                "allowed-tools" | "tools" => tools = Some(tool_list(value)),
                "mcpservers" | "mcp-servers" => self
                    .runs
                    .push("declares MCP servers: programs the CLI starts".to_owned()),
                "permissionmode" | "permission-mode" => self.runs.push(format!(
                    "sets `permissionMode` ({}): what its tools may do without asking",
                    scalar(value)
                )),
                "model" => self.also.push(format!("sets `model` ({})", scalar(value))),
                known if INERT_KEYS.contains(&known) => {}
                _ => self.runs.push(format!(
                    "sets `{raw}`, a key the bot doesn't know: it can't tell what it does"
                )),
            }
        }
        if hooks {
            self.runs
                .push("declares hooks: shell commands the CLI runs on events".to_owned());
        }
        match tools {
            Some(tools) => self.tools(&tools),
            None if kind == ContentKind::Subagent => self.inherits_every_tool(),
            None => {}
        }
    }

    fn inherits_every_tool(&mut self) {
        self.runs.push(
            "has no `tools` list: it gets every tool of the session that uses it, Bash \
             included where that session has it"
                .to_owned(),
        );
    }

    fn tools(&mut self, tools: &[String]) {
        let mut inert = Vec::new();
        for tool in tools {
            let name = tool.split('(').next().unwrap_or_default().trim();
            if name.eq_ignore_ascii_case("bash")
                || name.to_ascii_lowercase().contains("shell")
                || name.eq_ignore_ascii_case("BashOutput")
            {
                self.runs
                    .push(format!("grants `{tool}` without asking: runs commands"));
            } else if name == "Agent" || name == "Task" {
                self.runs.push(format!(
                    "grants `{tool}` without asking: starts subagents, which may run commands"
                ));
            } else if INERT_TOOLS.contains(&name) || name.starts_with("mcp__discord__") {
                inert.push(format!("`{tool}`"));
            } else {
                self.runs.push(format!(
                    "grants `{tool}` without asking, a tool the bot can't vouch for"
                ));
            }
        }
        if !inert.is_empty() {
            self.also
                .push(format!("grants tools: {}", inert.join(", ")));
        }
    }

    /// A file beside `SKILL.md`: text is read for markers; anything else can be run.
    fn beside(&mut self, name: &str, bytes: &[u8]) {
        let text_file = [".md", ".markdown", ".txt"]
            .iter()
            .any(|ext| name.to_ascii_lowercase().ends_with(ext));
        match std::str::from_utf8(bytes) {
            Ok(text) if text_file && !text.starts_with("#!") => {
                self.markdown(text, name, ContentKind::Skill);
            }
            _ => self.runs.push(format!(
                "ships `{name}` beside SKILL.md: a script or program the skill can have run"
            )),
        }
    }

    /// `.claude/settings.json`.
    fn settings(&mut self, text: &str) {
        let Ok(serde_json::Value::Object(object)) = serde_json::from_str::<serde_json::Value>(text)
        else {
            self.runs.push(
                "the settings aren't a JSON object the bot can read, so it can't tell what \
                 they set"
                    .to_owned(),
            );
            return;
        };
        for (key, value) in &object {
            let reason = match key.as_str() {
                "hooks" => "`hooks`: shell commands the CLI runs on events".to_owned(),
                "statusLine" => "`statusLine`: a command the CLI runs to draw it".to_owned(),
                "apiKeyHelper" | "awsAuthRefresh" | "awsCredentialExport" | "otelHeadersHelper" => {
                    format!("`{key}`: a command the CLI runs for credentials")
                }
                "mcpServers" | "enabledMcpjsonServers" | "enableAllProjectMcpServers" => {
                    format!("`{key}`: MCP servers, programs the CLI starts")
                }
                "env" => "`env`: environment for every command and program it starts".to_owned(),
                "permissions" => "`permissions`: rules that may allow Bash".to_owned(),
                known if INERT_SETTINGS.contains(&known) => {
                    self.also.push(format!("sets `{key}` ({value})"));
                    continue;
                }
                _ => format!("`{key}`, a setting the bot doesn't know: it can't tell what it does"),
            };
            self.runs.push(format!("sets {reason}"));
        }
    }
}

/// A markdown file's frontmatter.
enum Header<'a> {
    /// The file has none.
    None,
    /// It can't be read as a mapping of keys.
    Unreadable,
    /// Its text and keys.
    Fields {
        yaml: &'a str,
        fields: serde_yaml::Mapping,
    },
}

fn header(text: &str) -> Header<'_> {
    let yaml = match crate::domain::frontmatter::split(text) {
        Ok((yaml, _)) => yaml,
        // No `---` line at all: no header. One that never closes may still be read by the
        // CLI some other way.
        Err(_) if !text.lines().any(|line| line.trim() == "---") => return Header::None,
        Err(_) => return Header::Unreadable,
    };
    if yaml.trim().is_empty() {
        return Header::Fields {
            yaml,
            fields: serde_yaml::Mapping::new(),
        };
    }
    match serde_yaml::from_str::<Value>(yaml) {
        Ok(Value::Mapping(fields)) => Header::Fields { yaml, fields },
        _ => Header::Unreadable,
    }
}

fn tool_list(value: &Value) -> Vec<String> {
    match value {
        Value::String(list) => crate::tool_policy::split_tool_list(list),
        Value::Sequence(items) => items.iter().map(scalar).collect(),
        Value::Null => Vec::new(),
        other => vec![scalar(other)],
    }
}

fn scalar(value: &Value) -> String {
    match value {
        Value::String(text) => text.trim().to_owned(),
        Value::Bool(flag) => flag.to_string(),
        Value::Number(number) => number.to_string(),
        other => serde_yaml::to_string(other)
            .unwrap_or_default()
            .trim()
            .to_owned(),
    }
}

#[cfg(test)]
#[path = "reach_tests.rs"]
mod tests;
