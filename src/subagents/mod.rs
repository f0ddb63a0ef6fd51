//! Subagent specs: the six bundled ones installed into the data dir at start-up (SUB-1…6)
//! and every spec found in `.claude/agents/`, read for the tool policy (SUB-7).
//!
//! A spec is a markdown file: YAML frontmatter (`name`, `description`, `model`, `tools`) and
//! the subagent's prompt as the body. The Claude Code CLI discovers them itself in
//! `<cwd>/.claude/agents/` when the project setting source is on (the bot always runs it with
//! the data dir as cwd and `--setting-sources=project`).

mod frontmatter;

use std::{
    fs, io,
    path::{Path, PathBuf},
};

use crate::{
    domain::frontmatter_keys::typo_notes,
    state::{StateError, atomic::write_atomic},
};

pub use frontmatter::{SpecFields, parse_spec, spec_body};

/// The bundled subagents, in the order they are installed (SUB-2…6).
pub const BUNDLED: &[&str] = &[
    "ollim-bot-guide",
    "gmail-reader",
    "history-reviewer",
    "responsiveness-reviewer",
    "user-proxy",
    "routine-critic",
];

/// The templates of [`BUNDLED`], with `{USER_NAME}` / `{BOT_NAME}` placeholders.
const TEMPLATES: [(&str, &str); 6] = [
    ("ollim-bot-guide", include_str!("specs/ollim-bot-guide.md")),
    ("gmail-reader", include_str!("specs/gmail-reader.md")),
    (
        "history-reviewer",
        include_str!("specs/history-reviewer.md"),
    ),
    (
        "responsiveness-reviewer",
        include_str!("specs/responsiveness-reviewer.md"),
    ),
    ("user-proxy", include_str!("specs/user-proxy.md")),
    ("routine-critic", include_str!("specs/routine-critic.md")),
];

/// Earlier versions of bundled templates. An installed spec that is exactly one of them with
/// the names filled in was never edited, so the current template replaces it: `gmail-reader`
/// once read mail with `Bash(ollim-bot gmail *)`, which the agent's shell can no longer do.
const RETIRED: [(&str, &str); 1] = [(
    "gmail-reader",
    include_str!("specs/retired/gmail-reader.md"),
)];

/// One installed subagent spec, as far as the bot needs it (SUB-7).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubagentSpec {
    /// `name:` from the frontmatter, else the file stem.
    pub name: String,
    /// The declared tool rules (`Bash(ollim-bot history *)`, `Read(**.md)`…), in file order.
    /// Empty when the spec declares none (the CLI then gives the subagent every tool the
    /// session has).
    pub tools: Vec<String>,
    /// The spec file.
    pub path: PathBuf,
    /// `model:` (`haiku`, `sonnet`, `inherit`, a full name), if set.
    pub model: Option<String>,
    /// `description:`, if set.
    pub description: Option<String>,
    /// Frontmatter keys that look like misspellings of the CLI's subagent keys (issue 24 §4).
    pub notes: Vec<String>,
}

/// The subagent frontmatter keys Claude Code documents; a key close to one of these but not it
/// is a likely typo (the CLI may honour keys not listed here, so others pass unremarked).
const SPEC_KEYS: [&str; 16] = [
    "name",
    "description",
    "tools",
    "disallowedTools",
    "model",
    "permissionMode",
    "skills",
    "hooks",
    "color",
    "mcpServers",
    "memory",
    "maxTurns",
    "background",
    "effort",
    "isolation",
    "initialPrompt",
];

/// A spec file that could not be read or parsed; the others still load.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("subagent spec {}: {reason}", path.display())]
pub struct SubagentLoadError {
    /// The broken file.
    pub path: PathBuf,
    /// What is wrong with it, for the owner.
    pub reason: String,
}

/// Installing the bundled specs failed.
#[derive(Debug, thiserror::Error)]
pub enum SubagentError {
    /// A filesystem operation failed on `path`.
    #[error("I/O error on {}: {source}", path.display())]
    Io {
        /// The file or directory the operation was about.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
}

impl From<SubagentError> for StateError {
    fn from(error: SubagentError) -> Self {
        match error {
            SubagentError::Io { path, source } => StateError::Io { path, source },
        }
    }
}

/// Where the CLI looks for project subagents: `<data dir>/.claude/agents`.
pub fn agents_dir(data_dir: &Path) -> PathBuf {
    data_dir.join(".claude").join("agents")
}

/// A bundled template with the owner's and the bot's names filled in, in one pass (a name
/// that itself contains `{BOT_NAME}` is not expanded again). `None` for an unknown name.
pub fn bundled_spec(name: &str, user_name: &str, bot_name: &str) -> Option<String> {
    let (_, template) = TEMPLATES.iter().find(|(n, _)| *n == name)?;
    Some(fill(template, user_name, bot_name))
}

fn fill(template: &str, user_name: &str, bot_name: &str) -> String {
    let mut out = String::with_capacity(template.len() + 64);
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open..];
        if let Some(tail) = after.strip_prefix("{USER_NAME}") {
            out.push_str(user_name);
            rest = tail;
        } else if let Some(tail) = after.strip_prefix("{BOT_NAME}") {
            out.push_str(bot_name);
            rest = tail;
        } else {
            out.push('{');
            rest = &after[1..];
        }
    }
    out.push_str(rest);
    out
}

/// The tools a bundled subagent's template declares: trusted as shipped, so only patterns an
/// edit added need the owner's approval. Empty for a name that is not bundled.
pub fn bundled_tools(name: &str) -> Vec<String> {
    bundled_spec(name, "", "")
        .and_then(|text| parse_spec(&text).ok())
        .map(|fields| fields.tools)
        .unwrap_or_default()
}

/// Splits a subagent's declared tools into those its bundled template ships (trusted as
/// shipped) and those an edit or the owner added (approved like any declared tool).
pub fn split_by_template(name: &str, tools: Vec<String>) -> (Vec<String>, Vec<String>) {
    let shipped = bundled_tools(name);
    tools.into_iter().partition(|tool| shipped.contains(tool))
}

/// Writes each bundled spec to `<agents_dir>/<name>.md` with the names filled in, unless
/// something already exists at that path (SUB-1): the owner's edits, or a file they
/// deliberately emptied, are kept; an unedited copy of a [`RETIRED`] version is replaced.
/// Creates `agents_dir`. Returns the files written.
pub fn install_bundled(
    agents_dir: &Path,
    user_name: &str,
    bot_name: &str,
) -> Result<Vec<PathBuf>, SubagentError> {
    fs::create_dir_all(agents_dir).map_err(|source| SubagentError::Io {
        path: agents_dir.to_path_buf(),
        source,
    })?;
    let mut written = Vec::new();
    for (name, template) in TEMPLATES {
        let path = agents_dir.join(format!("{name}.md"));
        match path.symlink_metadata() {
            Ok(meta) if !(meta.is_file() && is_retired_copy(&path, name, user_name, bot_name)) => {
                continue;
            }
            Ok(_) => tracing::info!(subagent = name, "replacing an unedited older bundled spec"),
            Err(error) if error.kind() == io::ErrorKind::NotFound => {}
            Err(source) => return Err(SubagentError::Io { path, source }),
        }
        let text = fill(template, user_name, bot_name);
        write_atomic(&path, text.as_bytes()).map_err(|error| match error {
            StateError::Io { path, source } => SubagentError::Io { path, source },
            other => SubagentError::Io {
                path: path.clone(),
                source: io::Error::other(other.to_string()),
            },
        })?;
        written.push(path);
    }
    Ok(written)
}

/// Whether the file at `path` is a [`RETIRED`] version of `name`'s template as installed.
fn is_retired_copy(path: &Path, name: &str, user_name: &str, bot_name: &str) -> bool {
    let Ok(installed) = fs::read_to_string(path) else {
        return false;
    };
    RETIRED
        .iter()
        .any(|(retired, text)| *retired == name && installed == fill(text, user_name, bot_name))
}

/// Reads every `*.md` spec in `agents_dir` (bundled and the owner's own), sorted by file
/// name (SUB-7). Broken files are returned as errors next to the specs that loaded; a
/// missing directory means no specs.
pub fn load_subagents(agents_dir: &Path) -> (Vec<SubagentSpec>, Vec<SubagentLoadError>) {
    let mut specs = Vec::new();
    let mut errors = Vec::new();
    let entries = match fs::read_dir(agents_dir) {
        Ok(entries) => entries,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return (specs, errors),
        Err(error) => {
            errors.push(SubagentLoadError {
                path: agents_dir.to_path_buf(),
                reason: format!("cannot list the directory: {error}"),
            });
            return (specs, errors);
        }
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            continue;
        }
        match load_spec(&path) {
            Ok(spec) => specs.push(spec),
            Err(reason) => errors.push(SubagentLoadError { path, reason }),
        }
    }
    (specs, errors)
}

/// Reads and parses one spec file; the name defaults to the file stem.
fn load_spec(path: &Path) -> Result<SubagentSpec, String> {
    let text = fs::read_to_string(path).map_err(|error| format!("cannot read it: {error}"))?;
    let fields = parse_spec(&text)?;
    let stem = path
        .file_stem()
        .map(|stem| stem.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok(SubagentSpec {
        name: fields.name.unwrap_or(stem),
        tools: fields.tools,
        path: path.to_path_buf(),
        model: fields.model,
        description: fields.description,
        notes: typo_notes(&text, &SPEC_KEYS),
    })
}

#[cfg(test)]
mod tests;
