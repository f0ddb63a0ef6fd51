//! Tool labels shown while the agent works (STR-8): `Read(reminders/foo.md)`,
//! `Bash(ollim-bot tasks list)`, `ping_user`, ...
//!
//! Labels are rendered inside Discord italics (`-# *<label>*`), so the argument text is
//! escaped for `*` and `_`. Tool names themselves are left as they are: built-in names
//! never contain markdown characters, and an MCP name such as `ping_user` renders fine
//! because Discord does not italicise on underscores inside a word.

use serde_json::Value;

/// Maximum number of characters of a Bash command shown in its label.
const BASH_LABEL_MAX_CHARS: usize = 50;

/// Builds the human-readable label for a tool call.
///
/// * `mcp__<server>__<tool>` → `<tool>` (input ignored).
/// * `Read` / `Write` / `Edit` → `Name(<last two path components>)`.
/// * `Bash` → `Bash(<first line of the command, cut to 50 characters>)`; the cut is silent
///   (no ellipsis), so a label never exceeds the documented budget.
/// * `Grep` → `Grep(<pattern>, <path>)` (path omitted when absent).
/// * `Glob` → `Glob(<pattern>)`, `WebSearch` → `WebSearch(<query>)`, `WebFetch` → `WebFetch(<url>)`.
/// * `Task` / `Agent` → `Name(<description>)`.
/// * Any other tool, a non-object input, or an input without the expected (non-empty string)
///   fields → the bare tool name.
///
/// `*` and `_` inside argument values are escaped with a backslash.
pub fn tool_label(tool_name: &str, input: &Value) -> String {
    if let Some(short) = strip_mcp_prefix(tool_name) {
        return short.to_owned();
    }
    let keys: &[&str] = match tool_name {
        "Read" | "Write" | "Edit" => &["file_path"],
        "Bash" => &["command"],
        "Grep" => &["pattern", "path"],
        "Glob" => &["pattern"],
        "WebSearch" => &["query"],
        "WebFetch" => &["url"],
        "Task" | "Agent" => &["description"],
        _ => return tool_name.to_owned(),
    };
    let Some(fields) = input.as_object() else {
        return tool_name.to_owned();
    };
    let parts: Vec<String> = keys
        .iter()
        .filter_map(|key| {
            let value = fields.get(*key)?.as_str()?;
            let shown = match *key {
                "file_path" => shorten_path(value).to_owned(),
                "command" => first_line_truncated(value),
                _ => value.to_owned(),
            };
            (!shown.is_empty()).then(|| escape_markdown(&shown))
        })
        .collect();
    if parts.is_empty() {
        tool_name.to_owned()
    } else {
        format!("{tool_name}({})", parts.join(", "))
    }
}

/// Returns the tool part of `mcp__<server>__<tool>`, or `None` for non-MCP names.
fn strip_mcp_prefix(name: &str) -> Option<&str> {
    let rest = name.strip_prefix("mcp__")?;
    let (_server, tool) = rest.split_once("__")?;
    (!tool.is_empty()).then_some(tool)
}

/// Keeps the last two `/`-separated components of a path (trailing slashes ignored);
/// paths with two components or fewer are returned unchanged.
fn shorten_path(path: &str) -> &str {
    let trimmed = path.trim_end_matches('/');
    let mut pieces = trimmed.rsplitn(3, '/');
    let (Some(_last), Some(_parent), Some(rest)) = (pieces.next(), pieces.next(), pieces.next())
    else {
        return path;
    };
    &trimmed[rest.len() + 1..]
}

/// First line of a command, limited to [`BASH_LABEL_MAX_CHARS`] characters.
fn first_line_truncated(command: &str) -> String {
    let first = command.lines().next().unwrap_or("");
    first.chars().take(BASH_LABEL_MAX_CHARS).collect()
}

/// Escapes the characters that would break Discord italic markdown.
fn escape_markdown(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        if ch == '*' || ch == '_' {
            out.push('\\');
        }
        out.push(ch);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn labels_table() {
        let long = "a".repeat(80);
        let cases: Vec<(&str, Value, String)> = vec![
            ("mcp__discord__ping_user", json!({}), "ping_user".into()),
            ("mcp__docs__search", json!({"query": "x"}), "search".into()),
            (
                "Read",
                json!({"file_path": "/home/u/.ollim-bot/reminders/foo.md"}),
                "Read(reminders/foo.md)".into(),
            ),
            (
                "Write",
                json!({"file_path": "routines/daily.md"}),
                "Write(routines/daily.md)".into(),
            ),
            (
                "Edit",
                json!({"file_path": "USER.md"}),
                "Edit(USER.md)".into(),
            ),
            ("Read", json!({"file_path": "/a/b"}), "Read(a/b)".into()),
            ("Read", json!({"file_path": "/x/y/z/"}), "Read(y/z)".into()),
            (
                "Bash",
                json!({"command": "ollim-bot tasks list\necho second"}),
                "Bash(ollim-bot tasks list)".into(),
            ),
            (
                "Bash",
                json!({"command": long}),
                format!("Bash({})", "a".repeat(50)),
            ),
            (
                "Grep",
                json!({"pattern": "todo", "path": "notes"}),
                "Grep(todo, notes)".into(),
            ),
            ("Grep", json!({"pattern": "todo"}), "Grep(todo)".into()),
            (
                "Glob",
                json!({"pattern": "**/*.md"}),
                "Glob(\\*\\*/\\*.md)".into(),
            ),
            (
                "WebSearch",
                json!({"query": "adhd tips"}),
                "WebSearch(adhd tips)".into(),
            ),
            (
                "WebFetch",
                json!({"url": "https://docs.ollim.ai"}),
                "WebFetch(https://docs.ollim.ai)".into(),
            ),
            (
                "Task",
                json!({"description": "triage inbox", "subagent_type": "gmail-reader"}),
                "Task(triage inbox)".into(),
            ),
            (
                "Agent",
                json!({"description": "check my_mail"}),
                "Agent(check my\\_mail)".into(),
            ),
            ("TodoWrite", json!({"todos": []}), "TodoWrite".into()),
            ("Read", json!("not an object"), "Read".into()),
            ("Read", Value::Null, "Read".into()),
            ("Bash", json!({"command": 42}), "Bash".into()),
            ("Bash", json!({"command": ""}), "Bash".into()),
            ("WebFetch", json!({}), "WebFetch".into()),
            ("mcp__weird", json!({}), "mcp__weird".into()),
        ];
        for (name, input, expected) in cases {
            assert_eq!(
                tool_label(name, &input),
                expected,
                "tool {name} input {input}"
            );
        }
    }

    #[test]
    fn bash_cut_counts_characters_not_bytes() {
        let cmd = "é".repeat(60);
        let label = tool_label("Bash", &json!({"command": cmd}));
        assert_eq!(label, format!("Bash({})", "é".repeat(50)));
    }
}
