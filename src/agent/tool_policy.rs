//! The tools the main session may use without asking (AGT-5).

use crate::mcp::tools::IMPLEMENTED_TOOLS;

/// Tool rules auto-approved in the main session and interactive forks.
const MAIN_TOOL_RULES: &[&str] = &[
    "Bash(ollim-bot tasks *)",
    "Bash(ollim-bot cal *)",
    "Bash(ollim-bot reminder *)",
    "Bash(ollim-bot routine list)",
    "Bash(ollim-bot gmail *)",
    "Bash(ollim-bot help)",
    "Bash(claude-history *)",
    "Read(./**.md)",
    "Write(./**.md)",
    "Edit(./**.md)",
    "Glob(./**.md)",
    "Grep(./**.md)",
    "WebFetch",
    "WebSearch",
    "Task",
    "Agent",
    "Skill",
];

/// The `--allowedTools` list of the main session and interactive forks: the main tool rules,
/// every `discord` tool (each refuses calls outside its scope itself) and, when configured,
/// the docs server's tools. Duplicates are dropped.
pub fn main_allowed_tools(docs_server: bool) -> Vec<String> {
    let mut tools: Vec<String> = MAIN_TOOL_RULES.iter().map(|t| (*t).to_owned()).collect();
    tools.extend(
        IMPLEMENTED_TOOLS
            .iter()
            .map(|tool| format!("mcp__discord__{tool}")),
    );
    if docs_server {
        tools.push("mcp__docs__*".to_owned());
    }
    let mut seen = std::collections::HashSet::new();
    tools.retain(|tool| seen.insert(tool.clone()));
    tools
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn main_tools_include_markdown_files_and_discord_tools_but_no_broad_writes() {
        let tools = main_allowed_tools(true);
        assert!(tools.contains(&"Write(./**.md)".to_owned()));
        assert!(tools.contains(&"mcp__discord__discord_embed".to_owned()));
        assert!(tools.contains(&"mcp__docs__*".to_owned()));
        assert!(
            !tools
                .iter()
                .any(|t| t == "Edit(**)" || t == "Write(**)" || t == "Bash")
        );
        assert!(!main_allowed_tools(false).contains(&"mcp__docs__*".to_owned()));
    }
}
