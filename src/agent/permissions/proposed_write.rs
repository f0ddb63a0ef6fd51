//! What a file would contain after a `Write`, `Edit` or `MultiEdit` call, worked out before the
//! call runs, for the `PreToolUse` guards that judge the result (HKS-4, the skill guard).

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::state::paths::{DataDir, absolute_normalized};

/// The file's text after the call: `content` for `Write`; for `Edit` and `MultiEdit` the current
/// file with the replacements applied as the CLI applies them. `None` when that cannot be
/// known (unknown tool, unreadable file, a replacement that does not match).
pub async fn content_after(tool: &str, tool_input: &Value, path: &Path) -> Option<String> {
    let text = |value: &Value, key: &str| value.get(key).and_then(Value::as_str).map(str::to_owned);
    match tool {
        "Write" => text(tool_input, "content"),
        "Edit" => {
            let current = tokio::fs::read_to_string(path).await.ok();
            apply_edit(current, tool_input)
        }
        "MultiEdit" => {
            let edits = tool_input.get("edits").and_then(Value::as_array)?;
            let mut current = tokio::fs::read_to_string(path).await.ok();
            for edit in edits {
                current = Some(apply_edit(current, edit)?);
            }
            current
        }
        _ => None,
    }
}

/// One `old_string` → `new_string` replacement (all of them with `replace_all`). An empty
/// `old_string` on a missing file creates it, as the CLI does.
fn apply_edit(current: Option<String>, edit: &Value) -> Option<String> {
    let old = edit.get("old_string").and_then(Value::as_str)?;
    let new = edit.get("new_string").and_then(Value::as_str)?;
    let replace_all = edit
        .get("replace_all")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    match current {
        None if old.is_empty() => Some(new.to_owned()),
        None => None,
        Some(current) if old.is_empty() || !current.contains(old) => None,
        Some(current) if replace_all => Some(current.replace(old, new)),
        Some(current) => Some(current.replacen(old, new, 1)),
    }
}

/// The call a `PreToolUse` hook is asked about: the tool, its input and the absolute, normalised
/// `file_path` it targets (relative to the hook's `cwd`, else the data dir). `None` without one.
pub fn hook_target<'a>(
    input: &'a Value,
    data_dir: &DataDir,
) -> Option<(&'a str, &'a Value, PathBuf)> {
    let tool = input
        .get("tool_name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let tool_input = input.get("tool_input").unwrap_or(&Value::Null);
    let target = tool_input.get("file_path").and_then(Value::as_str)?;
    let cwd = input
        .get("cwd")
        .and_then(Value::as_str)
        .map_or_else(|| data_dir.root().to_path_buf(), PathBuf::from);
    Some((tool, tool_input, absolute_normalized(&cwd.join(target))))
}
