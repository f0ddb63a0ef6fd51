//! Checking one declared tool pattern (PRM-8): `Name` or `Name(argument)`.

use std::fmt;

use super::glob::could_reach_state;

/// Tools that write files; their patterns must never reach `state/` (PRM-10).
const WRITE_TOOLS: &[&str] = &["Write", "Edit", "MultiEdit", "NotebookEdit"];

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// Logged; the pattern is used.
    Warning,
    /// The pattern is never used; a job declaring it does not run (BGF-23).
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Warning => "warning",
            Self::Error => "error",
        })
    }
}

/// One problem with one pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// Warning or error.
    pub severity: Severity,
    /// The pattern as declared.
    pub pattern: String,
    /// Why, in one line.
    pub message: String,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}: {}", self.pattern, self.message)
    }
}

/// A pattern split into its tool name and optional argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolPattern<'a> {
    /// `Bash`, `Read`, `mcp__discord__ping_user`, …
    pub tool: &'a str,
    /// The text between the parentheses, if any.
    pub argument: Option<&'a str>,
}

impl<'a> ToolPattern<'a> {
    /// Splits `Name(argument)`; a pattern without a closing `)` is all name.
    pub fn parse(pattern: &'a str) -> Self {
        let pattern = pattern.trim();
        match pattern.split_once('(') {
            Some((tool, rest)) if rest.ends_with(')') => Self {
                tool: tool.trim(),
                argument: Some(&rest[..rest.len() - 1]),
            },
            _ => Self {
                tool: pattern,
                argument: None,
            },
        }
    }

    /// Whether this is a file-writing tool.
    pub fn is_write(&self) -> bool {
        WRITE_TOOLS.contains(&self.tool)
    }
}

/// Splits a comma-separated tool list (`Read, Bash(git log *), Grep`) on the commas outside
/// parentheses, trimmed, empty entries dropped (SUB-7, SKL-3).
pub fn split_tool_list(list: &str) -> Vec<String> {
    let mut tools = Vec::new();
    let mut depth = 0usize;
    let mut current = String::new();
    for c in list.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                tools.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    tools.push(current);
    tools
        .into_iter()
        .map(|tool| tool.trim().to_owned())
        .filter(|tool| !tool.is_empty())
        .collect()
}

/// Checks one pattern; `None` when it is fine (PRM-8).
pub fn check_pattern(pattern: &str) -> Option<Finding> {
    let finding = |severity, message: &str| {
        Some(Finding {
            severity,
            pattern: pattern.to_owned(),
            message: message.to_owned(),
        })
    };
    if pattern.trim().is_empty() {
        return finding(Severity::Error, "empty tool pattern");
    }
    let parsed = ToolPattern::parse(pattern);
    if parsed.tool.is_empty() || parsed.tool.contains(char::is_whitespace) {
        return finding(
            Severity::Error,
            "not a tool pattern: expected a tool name, optionally followed by (argument)",
        );
    }
    if parsed.is_write() && parsed.argument.is_none_or(could_reach_state) {
        return finding(
            Severity::Error,
            "this write pattern could reach state/, the bot's write-protected files; \
             scope it to markdown, e.g. Write(./**.md)",
        );
    }
    match (parsed.tool, parsed.argument.map(str::trim)) {
        ("Bash", None) => finding(
            Severity::Error,
            "bare Bash allows any shell command; give a command prefix, e.g. \
             Bash(ollim-bot history *)",
        ),
        ("Bash", Some(command)) => match check_bash(command) {
            Some(message) => finding(Severity::Error, message),
            None => match google_command(command) {
                Some(tool) => finding(
                    Severity::Warning,
                    &format!(
                        "the agent's shell can't reach Google (it can't read the token): \
                         declare {tool} instead"
                    ),
                ),
                None => exec_capable(command).and_then(|program| {
                    finding(
                        Severity::Warning,
                        &format!(
                            "`{program}` can run other programs (through its arguments, options \
                             or scripts), so this allows far more than it names"
                        ),
                    )
                }),
            },
        },
        (_, Some("*" | "**")) => finding(
            Severity::Warning,
            "overly broad: this allows every use of the tool",
        ),
        _ => None,
    }
}

/// The Google commands that were the agent's way to Google, each with the bot's tool that
/// replaces it: the commands stay for the owner's terminal.
const GOOGLE_COMMANDS: [(&str, &str); 3] = [
    ("ollim-bot tasks", "mcp__discord__google_tasks"),
    ("ollim-bot cal", "mcp__discord__google_calendar"),
    ("ollim-bot gmail", "mcp__discord__gmail"),
];

/// The tool to declare instead of a Bash pattern naming a Google command.
fn google_command(command: &str) -> Option<&'static str> {
    GOOGLE_COMMANDS.iter().find_map(|(prefix, tool)| {
        let rest = command.strip_prefix(prefix)?;
        (rest.is_empty() || rest.starts_with([' ', ':'])).then_some(*tool)
    })
}

/// Programs that run other programs given the right arguments: a pattern starting with one
/// allows much more than it says (issue 23 §5).
const EXEC_CAPABLE: [&str; 30] = [
    "env", "xargs", "find", "nohup", "timeout", "nice", "sudo", "doas", "exec", "eval", "sh",
    "bash", "zsh", "dash", "fish", "python", "python3", "node", "deno", "bun", "perl", "ruby",
    "php", "lua", "awk", "gawk", "make", "npx", "npm", "uv",
];

/// The program of an exec-capable Bash pattern: one of [`EXEC_CAPABLE`], `git` with a
/// wildcard (`-c`, aliases and pagers run commands), or the bot's own command with any
/// subcommand (`ollim-bot *`).
fn exec_capable(command: &str) -> Option<&str> {
    let program = command.split_whitespace().next()?;
    let program = program.strip_suffix(":*").unwrap_or(program);
    let rest = command[program.len()..].trim();
    let wildcard = command.contains('*');
    if EXEC_CAPABLE.contains(&program) && (wildcard || !rest.is_empty()) {
        return Some(program);
    }
    match program {
        "git" if wildcard => Some(program),
        "ollim-bot" if matches!(rest, "*" | ":*" | "") && wildcard => Some(program),
        _ => None,
    }
}

fn check_bash(command: &str) -> Option<&'static str> {
    if command.is_empty() || command.starts_with('*') || command == ":*" {
        return Some(
            "too broad: a Bash pattern must start with a command, e.g. Bash(ollim-bot history *)",
        );
    }
    if command.contains([';', '&', '|', '\n']) {
        return Some("command chaining (;, & or |) is not allowed in a Bash pattern");
    }
    if command.contains("$(") || command.contains('`') || command.contains(['>', '<']) {
        return Some("substitution and redirection are not allowed in a Bash pattern");
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn severity(pattern: &str) -> Option<Severity> {
        check_pattern(pattern).map(|f| f.severity)
    }

    #[test]
    fn errors_follow_the_spec() {
        assert_eq!(check_pattern("  ").unwrap().message, "empty tool pattern");
        for bad in [
            "Bash(*)",
            "Bash",
            "Bash( * )",
            "Bash(* rm)",
            "Bash(ls; rm x)",
            "Bash(ls && rm x)",
            "Bash(ls | sh)",
            "Bash(ls & rm)",
            "Bash(echo $(cat .env))",
            "Bash(echo `id`)",
            "Bash(cat > x)",
            "Write",
            "Edit(**)",
            "Write(state/*)",
            "Edit(./**/*.json)",
            "MultiEdit(/etc/passwd)",
            "Write(~/x.md)",
            "not a (tool)",
        ] {
            assert_eq!(severity(bad), Some(Severity::Error), "{bad}");
        }
    }

    #[test]
    fn exec_capable_prefixes_warn() {
        for pattern in [
            "Bash(env *)",
            "Bash(find *)",
            "Bash(git log *)",
            "Bash(python3 *)",
            "Bash(sh -c *)",
            "Bash(ollim-bot *)",
            "Bash(xargs:*)",
        ] {
            let finding = check_pattern(pattern).expect(pattern);
            assert_eq!(finding.severity, Severity::Warning, "{pattern}");
            assert!(
                finding.message.contains("can run other programs"),
                "{pattern}"
            );
        }
        for fine in [
            "Bash(git status)",
            "Bash(ollim-bot reminder *)",
            "Bash(ls *)",
        ] {
            assert_eq!(check_pattern(fine), None, "{fine}");
        }
    }

    #[test]
    fn broad_other_tools_warn_and_narrow_ones_pass() {
        assert_eq!(severity("Read(*)"), Some(Severity::Warning));
        assert_eq!(severity("WebFetch(**)"), Some(Severity::Warning));
        for good in [
            "Bash(ollim-bot history *)",
            "Bash(ollim-bot calendar-sync)",
            "Bash(git status)",
            "Bash(ollim-bot help)",
            "Write(./**.md)",
            "Edit(**.md)",
            "Read(./**.md)",
            "WebSearch",
            "mcp__discord__ping_user",
            "Skill(digest *)",
        ] {
            assert_eq!(severity(good), None, "{good}");
        }
    }

    #[test]
    fn google_commands_warn_and_name_the_tool_to_declare() {
        for (pattern, tool) in [
            ("Bash(ollim-bot gmail *)", "mcp__discord__gmail"),
            ("Bash(ollim-bot cal today)", "mcp__discord__google_calendar"),
            ("Bash(ollim-bot tasks:*)", "mcp__discord__google_tasks"),
        ] {
            let finding = check_pattern(pattern).unwrap();
            assert_eq!(finding.severity, Severity::Warning, "{pattern}");
            assert!(
                finding.message.contains(tool),
                "{pattern}: {}",
                finding.message
            );
        }
    }

    #[test]
    fn tool_lists_split_outside_parentheses() {
        assert_eq!(
            split_tool_list("Read, Bash(git log a,b), ,Grep"),
            ["Read", "Bash(git log a,b)", "Grep"]
        );
    }

    #[test]
    fn patterns_split_into_tool_and_argument() {
        assert_eq!(
            ToolPattern::parse("Bash(git log (x))"),
            ToolPattern {
                tool: "Bash",
                argument: Some("git log (x)")
            }
        );
        assert_eq!(ToolPattern::parse("WebSearch").argument, None);
    }
}
