//! Whether a tool call is covered by a list of `--allowedTools`-style rules, decided by us
//! rather than by the CLI: for the `dontAsk` guards (rules the CLI may widen on its own, e.g. a
//! skill's `allowed-tools`, must not widen ours) and for `tool-policy.yaml` additions that
//! apply without a restart (PRM-11).

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::policy::write_target;
use crate::tool_policy::bash_rules::{bash_patterns, command_allowed};
use crate::{
    state::paths::{DataDir, absolute_normalized},
    tool_policy::{ToolPattern, glob::glob_matches},
};

/// Whether `rules` cover a call of `tool` with `input` (relative paths against `cwd`).
pub fn rules_cover(rules: &[String], tool: &str, input: &Value, data_dir: &DataDir) -> bool {
    if tool == "Bash" {
        let command = input
            .get("command")
            .and_then(Value::as_str)
            .unwrap_or_default();
        return command_allowed(command, &bash_patterns(rules));
    }
    if let Some(target) = write_target(tool, input) {
        return write_covered(rules, &target, data_dir);
    }
    rules.iter().any(|rule| {
        let pattern = ToolPattern::parse(rule);
        pattern.tool == tool && pattern.argument.is_none_or(|arg| arg.trim() == "*")
    })
}

/// Whether a write to `target` matches a `Write(...)`/`Edit(...)` rule (PRM-9 globs relative
/// to the data dir). Targets outside the data dir are never covered.
pub fn write_covered(rules: &[String], target: &str, data_dir: &DataDir) -> bool {
    let Some(relative) = data_dir_relative(target, data_dir) else {
        return false;
    };
    let relative = relative.to_string_lossy();
    rules.iter().any(|rule| {
        let pattern = ToolPattern::parse(rule);
        if !pattern.is_write() {
            return false;
        }
        let Some(glob) = pattern.argument.map(str::trim) else {
            return true;
        };
        let glob = glob.strip_prefix("./").unwrap_or(glob);
        glob_matches(glob, &relative)
            || (!glob.contains('/') && glob_matches(&format!("**/{glob}"), &relative))
    })
}

/// `target` relative to the data dir, with `.` and `..` resolved lexically; `None` outside.
fn data_dir_relative(target: &str, data_dir: &DataDir) -> Option<PathBuf> {
    let root = absolute_normalized(data_dir.root());
    absolute_normalized(&root.join(target))
        .strip_prefix(&root)
        .ok()
        .map(Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn rules(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn writes_are_covered_only_by_matching_globs_inside_the_data_dir() {
        let data_dir = DataDir::new("/data");
        let md = rules(&["Write(./**.md)", "Edit(./**.md)"]);
        assert!(write_covered(&md, "notes/a.md", &data_dir));
        assert!(write_covered(&md, "/data/USER.md", &data_dir));
        assert!(!write_covered(
            &md,
            "/data/.claude/settings.json",
            &data_dir
        ));
        assert!(!write_covered(&md, "/elsewhere/a.md", &data_dir));
        assert!(!write_covered(&md, "notes/../../etc/x.md", &data_dir));
        assert!(write_covered(
            &rules(&["Edit(*.txt)"]),
            "a/b.txt",
            &data_dir
        ));
        assert!(!write_covered(
            &rules(&["Read(./**.md)"]),
            "a.md",
            &data_dir
        ));
    }

    #[test]
    fn other_tools_need_their_name_and_bash_its_command() {
        let data_dir = DataDir::new("/data");
        let list = rules(&["WebSearch", "Bash(git status)", "Read(*)"]);
        assert!(rules_cover(&list, "WebSearch", &json!({}), &data_dir));
        assert!(rules_cover(
            &list,
            "Read",
            &json!({"file_path": "/x"}),
            &data_dir
        ));
        assert!(!rules_cover(&list, "WebFetch", &json!({}), &data_dir));
        assert!(rules_cover(
            &list,
            "Bash",
            &json!({"command": "git status"}),
            &data_dir
        ));
        assert!(!rules_cover(
            &list,
            "Bash",
            &json!({"command": "git push"}),
            &data_dir
        ));
    }
}
