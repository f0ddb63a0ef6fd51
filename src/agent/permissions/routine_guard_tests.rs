//! HKS-4 / RTN-9: the routine validator hook's decisions for `Write`, `Edit` and `MultiEdit`.

use serde_json::{Value, json};

use super::*;

const VALID: &str = "---\nid: \"r1\"\ncron: \"0 9 * * *\"\ndescription: \"Morning\"\n\
background: true\n---\nCheck in.\n";

struct Sandbox {
    dir: tempfile::TempDir,
    guard: RoutineGuard,
}

impl Sandbox {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let data_dir = DataDir::new(dir.path());
        data_dir.ensure_layout().unwrap();
        Self {
            guard: RoutineGuard::new(data_dir),
            dir,
        }
    }

    #[allow(clippy::needless_pass_by_value)] // callers pass `json!` literals; by value keeps them plain
    fn call(&self, tool: &str, tool_input: Value) -> HookOutput {
        let input = json!({"hook_event_name": "PreToolUse", "tool_name": tool,
            "cwd": self.dir.path(), "tool_input": tool_input});
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(self.guard.call(input))
    }
}

#[test]
fn hks4_write_without_cron_is_denied_relative_or_absolute() {
    let s = Sandbox::new();
    let no_cron = "---\nid: x\n---\nbody\n";
    for path in [
        "routines/x.md".to_owned(),
        "./notes/../routines/x.md".to_owned(),
        s.dir.path().join("routines/x.md").display().to_string(),
    ] {
        let output = s.call("Write", json!({"file_path": path, "content": no_cron}));
        assert_eq!(
            output.deny_tool_reason.as_deref(),
            Some("routine-validator: missing required field \"cron\""),
            "{path}"
        );
    }
}

#[test]
fn hks4_other_files_are_not_judged() {
    let s = Sandbox::new();
    for path in [
        "notes.md",
        "routines/../notes.md",
        "reminders/x.md",
        "routines/x.txt",
    ] {
        let output = s.call(
            "Write",
            json!({"file_path": path, "content": "no frontmatter"}),
        );
        assert_eq!(output, HookOutput::default(), "{path}");
    }
    assert_eq!(
        s.call("Bash", json!({"command": "ls"})),
        HookOutput::default()
    );
}

#[test]
fn hks4_warnings_pass_the_write_with_context_for_the_model() {
    let s = Sandbox::new();
    let content = VALID.replace("description: \"Morning\"\n", "");
    let output = s.call(
        "Write",
        json!({"file_path": "routines/x.md", "content": content}),
    );
    assert_eq!(output.deny_tool_reason, None);
    let advice = output.additional_context.unwrap();
    assert!(
        advice.starts_with("routine-validator: routines/x.md was written, but check these"),
        "{advice}"
    );
    assert!(advice.contains("\n- no description"), "{advice}");
    assert_eq!(
        s.call(
            "Write",
            json!({"file_path": "routines/x.md", "content": VALID})
        ),
        HookOutput::default()
    );
}

#[test]
fn hks4_edits_are_judged_on_the_resulting_file() {
    let s = Sandbox::new();
    let path = s.dir.path().join("routines/x.md");
    std::fs::write(&path, VALID).unwrap();
    let drop_cron = json!({"file_path": "routines/x.md",
        "old_string": "cron: \"0 9 * * *\"\n", "new_string": ""});
    assert!(
        s.call("Edit", drop_cron)
            .deny_tool_reason
            .unwrap()
            .contains("missing required field \"cron\"")
    );
    let six_fields = json!({"file_path": "routines/x.md",
        "old_string": "*", "new_string": "* *", "replace_all": true});
    assert!(
        s.call("Edit", six_fields)
            .deny_tool_reason
            .unwrap()
            .contains("exactly 5 fields")
    );
    let first_only = json!({"file_path": "routines/x.md",
        "old_string": "*", "new_string": "1-5"});
    assert_eq!(s.call("Edit", first_only), HookOutput::default());
    let no_match = json!({"file_path": "routines/x.md",
        "old_string": "not in the file", "new_string": ""});
    assert_eq!(s.call("Edit", no_match), HookOutput::default());
    let multi = json!({"file_path": "routines/x.md", "edits": [
        {"old_string": "background: true\n", "new_string": ""},
        {"old_string": "id: \"r1\"\n", "new_string": ""}]});
    assert!(
        s.call("MultiEdit", multi)
            .deny_tool_reason
            .unwrap()
            .contains("missing required field \"id\"")
    );
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        VALID,
        "hooks never write"
    );
}

#[test]
fn hks4_an_edit_creating_a_new_routine_is_judged_too() {
    let s = Sandbox::new();
    let create = json!({"file_path": "routines/new.md", "old_string": "",
        "new_string": "no frontmatter here"});
    assert!(
        s.call("Edit", create)
            .deny_tool_reason
            .unwrap()
            .starts_with("routine-validator: no YAML frontmatter")
    );
}
