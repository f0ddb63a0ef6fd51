//! Matching Bash commands against `Bash(<pattern>)` tool rules, so `dontAsk` refuses every
//! command outside the allowed rules, including the read-only ones the CLI would otherwise run
//! without asking (PRM-2).
//!
//! A command is allowed only when every simple command in it (split at `;`, `&`, `|`, `&&`,
//! `||` and newlines outside quotes) matches a rule. Command substitution (`$(…)`, backticks)
//! and redirections (`>`, `<`) outside single quotes never match.

/// The patterns inside the `Bash(...)` rules of `rules`.
pub fn bash_patterns(rules: &[String]) -> Vec<String> {
    rules
        .iter()
        .filter_map(|rule| rule.strip_prefix("Bash(")?.strip_suffix(')'))
        .map(str::to_owned)
        .collect()
}

/// Whether `command` is fully covered by `patterns`.
pub fn command_allowed(command: &str, patterns: &[String]) -> bool {
    let Some(segments) = split_simple_commands(command) else {
        return false;
    };
    !segments.is_empty()
        && segments.iter().all(|segment| {
            patterns
                .iter()
                .any(|pattern| pattern_matches(pattern, segment))
        })
}

/// `*` matches any text; a trailing `:*` (the older prefix form) and a trailing ` *` also
/// match the bare command.
fn pattern_matches(pattern: &str, command: &str) -> bool {
    if let Some(prefix) = pattern.strip_suffix(":*") {
        return command == prefix || command.starts_with(&format!("{prefix} "));
    }
    if let Some(prefix) = pattern.strip_suffix(" *")
        && command == prefix
    {
        return true;
    }
    glob_matches(pattern.as_bytes(), command.as_bytes())
}

fn glob_matches(pattern: &[u8], text: &[u8]) -> bool {
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        if p < pattern.len() && pattern[p] == b'*' {
            star = Some((p, t));
            p += 1;
        } else if p < pattern.len() && pattern[p] == text[t] {
            p += 1;
            t += 1;
        } else if let Some((star_p, star_t)) = star {
            p = star_p + 1;
            t = star_t + 1;
            star = Some((star_p, star_t + 1));
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|b| *b == b'*')
}

/// Splits at control operators (and line breaks) outside quotes, dropping comments the way
/// bash reads them; `None` when the command uses substitution or redirection, or has
/// unbalanced quotes.
#[allow(clippy::match_same_arms)] // one arm per quoting rule, in the order the shell applies them
fn split_simple_commands(command: &str) -> Option<Vec<String>> {
    let mut segments = Vec::new();
    let mut current = String::new();
    let mut quote: Option<char> = None;
    let mut chars = command.chars().peekable();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some('\''), '\'') | (Some('"'), '"') => {
                quote = None;
                current.push(c);
            }
            (Some('\''), _) => current.push(c),
            (Some('"') | None, '`') => return None,
            (Some('"') | None, '$') if chars.peek() == Some(&'(') => return None,
            (Some('"') | None, '\\') => {
                current.push(c);
                if let Some(next) = chars.next() {
                    current.push(next);
                }
            }
            (Some(_), _) => current.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                current.push(c);
            }
            (None, '>' | '<') => return None,
            // A `#` starting a word opens a comment to the end of the line, as in bash: no
            // quote in it counts, and the next line is another command (issue 23 §5).
            (None, '#') if current.chars().last().is_none_or(char::is_whitespace) => {
                while chars.next_if(|next| *next != '\n').is_some() {}
            }
            (None, ';' | '&' | '|' | '\n') => {
                segments.push(std::mem::take(&mut current));
            }
            (None, _) => current.push(c),
        }
    }
    if quote.is_some() {
        return None;
    }
    segments.push(current);
    Some(
        segments
            .into_iter()
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty())
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn patterns() -> Vec<String> {
        bash_patterns(&[
            "Bash(ollim-bot tasks *)".to_owned(),
            "Bash(ollim-bot help)".to_owned(),
            "Bash(git status:*)".to_owned(),
            "Read(./**.md)".to_owned(),
        ])
    }

    #[test]
    fn allowed_commands_match_their_rules() {
        let p = patterns();
        assert!(command_allowed("ollim-bot tasks list", &p));
        assert!(command_allowed(
            "ollim-bot tasks add \"buy milk | eggs\" --due 2026-11-22",
            &p
        ));
        assert!(command_allowed("ollim-bot help", &p));
        assert!(command_allowed("git status", &p));
        assert!(command_allowed("git status --short", &p));
        assert!(command_allowed(
            "ollim-bot tasks list && ollim-bot help",
            &p
        ));
    }

    #[test]
    fn everything_else_is_refused() {
        let p = patterns();
        for command in [
            "ls",
            "cat ~/.ollim-bot/.env",
            "ollim-bot help; rm -rf /",
            "ollim-bot tasks list | sh",
            "ollim-bot tasks list > out.txt",
            "ollim-bot tasks add $(cat secret)",
            "ollim-bot tasks add `id`",
            "ollim-bot helpme",
            "git statusx",
            "ollim-bot tasks 'unbalanced",
            "",
            // A comment hides a quote from a naive reader; bash runs the next line.
            "ollim-bot tasks list #'\ncat .env\n'",
            "ollim-bot help # \"\ncat .env # \"",
            "ollim-bot help\ncat .env",
        ] {
            assert!(!command_allowed(command, &p), "{command:?} was allowed");
        }
    }

    #[test]
    fn comments_are_read_as_bash_reads_them() {
        let p = patterns();
        assert!(command_allowed("ollim-bot help # just checking", &p));
        assert!(command_allowed("ollim-bot help #'\ngit status", &p));
        // `#` inside a word is not a comment.
        assert!(!command_allowed("git status#x", &p));
    }

    #[test]
    fn glob_stars_match_anywhere() {
        assert!(glob_matches(b"a*c", b"abbbc"));
        assert!(glob_matches(b"*", b""));
        assert!(!glob_matches(b"a*c", b"abd"));
    }
}
