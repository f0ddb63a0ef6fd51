//! The routine validator hook (HKS-4, RTN-9): a `PreToolUse` hook on `Write|Edit|MultiEdit`
//! that works out what a `routines/*.md` file would contain after the call and asks
//! [`validate_routine_write`] about it. A denial becomes the tool's error result (the file is
//! never written); warnings let the write through and reach the model as additional context.

use std::path::Path;

use serde_json::Value;

use super::proposed_write::{content_after, hook_target};
use crate::{
    claude::{BoxFuture, HookCallback, HookOutput},
    scheduling::files::{RoutineVerdict, VALIDATOR_PREFIX, validate_routine_write},
    state::paths::DataDir,
    state::paths::absolute_normalized,
};

/// Validates writes to routine files before they happen (HKS-4).
pub struct RoutineGuard {
    data_dir: DataDir,
}

impl RoutineGuard {
    /// A guard for the routines of `data_dir`.
    pub fn new(data_dir: DataDir) -> Self {
        Self { data_dir }
    }
}

impl HookCallback for RoutineGuard {
    fn call(&self, input: Value) -> BoxFuture<'static, HookOutput> {
        let data_dir = self.data_dir.clone();
        Box::pin(async move { judge(&data_dir, &input).await })
    }
}

/// The hook's answer for one tool call; "no opinion" for anything that is not a routine file
/// or whose result cannot be worked out (the tool then fails or succeeds on its own).
async fn judge(data_dir: &DataDir, input: &Value) -> HookOutput {
    let Some((tool, tool_input, path)) = hook_target(input, data_dir) else {
        return HookOutput::default();
    };
    let routines = absolute_normalized(&data_dir.routines_dir());
    if !is_routine_file(&path, &routines) {
        return HookOutput::default();
    }
    let Some(content) = content_after(tool, tool_input, &path).await else {
        return HookOutput::default();
    };
    match validate_routine_write(&content) {
        RoutineVerdict::Deny(reason) => HookOutput::deny_tool(reason),
        RoutineVerdict::Warn(warnings) => {
            let shown = path
                .strip_prefix(absolute_normalized(data_dir.root()))
                .unwrap_or(&path)
                .display()
                .to_string();
            let mut text = format!(
                "{VALIDATOR_PREFIX} {shown} was written, but check these before you finish:"
            );
            for warning in warnings {
                text.push_str("\n- ");
                text.push_str(&warning);
            }
            HookOutput {
                additional_context: Some(text),
                ..HookOutput::default()
            }
        }
        RoutineVerdict::Clean => HookOutput::default(),
    }
}

/// Whether `path` is a markdown file under `routines` (both absolute and normalised). A
/// symlinked data dir is matched through the real path of the target's folder.
fn is_routine_file(path: &Path, routines: &Path) -> bool {
    if path.extension().and_then(|e| e.to_str()) != Some("md") {
        return false;
    }
    if path.starts_with(routines) {
        return true;
    }
    match (
        path.parent().and_then(|p| std::fs::canonicalize(p).ok()),
        std::fs::canonicalize(routines).ok(),
    ) {
        (Some(folder), Some(routines)) => folder.starts_with(routines),
        _ => false,
    }
}

#[cfg(test)]
#[path = "routine_guard_tests.rs"]
mod tests;
