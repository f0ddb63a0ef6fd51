//! Setting variables in a `.env` file in place: the names `update_names` writes (MCP-14) and
//! the answers of `ollim-bot setup`. Every other line (comments, other variables, `export`
//! prefixes) stays as it was; the file is replaced atomically and owner-only (it holds the
//! Discord token).

use std::path::Path;

use super::{StateError, atomic::write_atomic};

/// Replaces (or appends) `KEY=value` for each pair, keeping every other line.
pub fn set_vars(path: &Path, vars: &[(&str, &str)]) -> Result<(), StateError> {
    let current = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(error) => return Err(StateError::io(path, error)),
    };
    write_atomic(path, with_vars(&current, vars).as_bytes())
}

/// `current` with each of `vars` set.
pub fn with_vars(current: &str, vars: &[(&str, &str)]) -> String {
    let mut written = vec![false; vars.len()];
    let mut lines: Vec<String> = Vec::new();
    for line in current.lines() {
        let key = line
            .trim_start()
            .trim_start_matches("export ")
            .split('=')
            .next()
            .map(str::trim);
        match vars.iter().position(|(name, _)| Some(*name) == key) {
            Some(index) => {
                if !written[index] {
                    lines.push(assignment(vars[index]));
                    written[index] = true;
                }
            }
            None => lines.push(line.to_owned()),
        }
    }
    for (index, var) in vars.iter().enumerate() {
        if !written[index] {
            lines.push(assignment(*var));
        }
    }
    lines.join("\n") + "\n"
}

fn assignment((name, value): (&str, &str)) -> String {
    format!("{name}={}", quoted(value))
}

/// The value as dotenv reads it back: bare when it is plain, else double-quoted and escaped,
/// `$` included, so a name like `${DISCORD_TOKEN}` stays that text and never expands to
/// another variable's value (issue 23 §5).
fn quoted(value: &str) -> String {
    if !value.is_empty()
        && value
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | '/' | ':' | '+'))
    {
        value.to_owned()
    } else {
        let escaped = value
            .replace('\\', "\\\\")
            .replace('"', "\\\"")
            .replace('$', "\\$");
        format!("\"{escaped}\"")
    }
}

#[cfg(test)]
#[path = "env_file_tests.rs"]
mod tests;
