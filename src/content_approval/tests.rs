use std::fs;

use super::*;
use crate::state::content_approvals::ContentApprovals;

fn write(root: &std::path::Path, rel: &str, text: &str) {
    let path = root.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn scan_all(root: &std::path::Path) -> Vec<ContentItem> {
    let (items, problems) = scan(root, ScanLimits::default());
    assert!(problems.is_empty(), "{problems:?}");
    items
}

#[test]
fn scan_reads_every_kind_and_never_follows_a_link() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "skills/plan/SKILL.md", "---\nname: plan\n---\nbody\n");
    write(root, "skills/plan/scripts/run.sh", "echo hi\n");
    write(root, ".claude/commands/go.md", "go\n");
    write(
        root,
        ".claude/agents/helper.md",
        "---\ndescription: d\n---\nbe\n",
    );
    write(root, ".claude/settings.json", "{}");
    write(root, "secret.txt", "SECRET");
    std::os::unix::fs::symlink(root.join("secret.txt"), root.join("skills/plan/leak")).unwrap();
    std::os::unix::fs::symlink(root.join("secret.txt"), root.join(".claude/commands/x.md"))
        .unwrap();
    let items = scan_all(root);
    let keys: Vec<String> = items.iter().map(ContentItem::key).collect();
    assert_eq!(
        keys,
        [
            "skill:plan",
            "command:go",
            "subagent:helper",
            "settings:project"
        ]
    );
    let skill = &items[0];
    let files: Vec<_> = skill.files.iter().map(|f| f.relative.clone()).collect();
    assert_eq!(
        files,
        [
            std::path::PathBuf::from("SKILL.md"),
            "scripts/run.sh".into()
        ]
    );
    assert!(
        items
            .iter()
            .all(|i| i.files.iter().all(|f| f.bytes != b"SECRET"))
    );
}

#[test]
fn any_edit_changes_the_hash() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "skills/plan/SKILL.md", "a");
    let first = scan_all(root)[0].hash.clone();
    write(root, "skills/plan/extra.md", "");
    let second = scan_all(root)[0].hash.clone();
    write(root, "skills/plan/SKILL.md", "b");
    let third = scan_all(root)[0].hash.clone();
    assert_ne!(first, second);
    assert_ne!(second, third);
}

#[test]
fn oversized_items_are_refused_not_copied() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "skills/big/SKILL.md", &"x".repeat(2000));
    let (items, problems) = scan(
        root,
        ScanLimits {
            max_files: 4,
            max_bytes: 1000,
        },
    );
    assert!(items.is_empty());
    assert!(problems[0].contains("skills/big"), "{problems:?}");
}

#[test]
fn only_approved_or_bundled_bytes_load() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let (name, text) = crate::skills::BUNDLED_SKILLS[0];
    write(root, &format!("skills/{name}/SKILL.md"), text);
    write(root, "skills/mine/SKILL.md", "mine");
    write(
        root,
        ".claude/settings.json",
        r#"{"autoMemoryEnabled": false}"#,
    );
    let store = ContentApprovals::new(root.join("approvals.json"));
    let trust = |items: &[ContentItem]| -> Vec<(String, Trust)> {
        let decisions = store.decisions();
        items
            .iter()
            .map(|i| (i.key(), loadable(i, &decisions, "Julia", "Ollim")))
            .collect()
    };
    let items = scan_all(root);
    assert_eq!(
        trust(&items),
        [
            (format!("skill:{name}"), Trust::Bundled),
            ("skill:mine".to_owned(), Trust::Pending),
            ("settings:project".to_owned(), Trust::Bundled),
        ]
    );
    store.approve("skill:mine", &items[1].hash).unwrap();
    assert_eq!(trust(&scan_all(root))[1].1, Trust::Approved);
    write(root, "skills/mine/SKILL.md", "mine, edited");
    assert_eq!(trust(&scan_all(root))[1].1, Trust::Pending);
    write(root, ".claude/settings.json", r#"{"hooks": {}}"#);
    assert_eq!(trust(&scan_all(root))[2].1, Trust::Pending);
}

#[test]
fn install_writes_the_loadable_items_only_and_replaces_the_plugin_whole() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "skills/a/SKILL.md", "A");
    write(root, "skills/b/SKILL.md", "B");
    write(root, ".claude/commands/go.md", "GO");
    write(
        root,
        ".claude/agents/helper.md",
        "---\nname: helper\ndescription: Helps\ntools: Read, Grep\nmodel: haiku\n---\nYou help.\n",
    );
    let items = scan_all(root);
    let approved = root.join("state/approved");
    let pick = |keys: &[&str]| -> Vec<&ContentItem> {
        items
            .iter()
            .filter(|i| keys.contains(&i.key().as_str()))
            .collect()
    };
    let delivery = install(
        &approved,
        &pick(&["skill:a", "command:go", "subagent:helper"]),
    )
    .unwrap();
    let plugin = &delivery.plugin_dir;
    assert_eq!(
        fs::read_to_string(plugin.join("skills/a/SKILL.md")).unwrap(),
        "A"
    );
    assert_eq!(
        fs::read_to_string(plugin.join("commands/go.md")).unwrap(),
        "GO"
    );
    assert!(!plugin.join("skills/b").exists());
    assert!(plugin.join(".claude-plugin/plugin.json").exists());
    assert_eq!(
        delivery.agents,
        Some(serde_json::json!({"helper": {
            "description": "Helps", "prompt": "You help.",
            "tools": ["Read", "Grep"], "model": "haiku"}}))
    );
    assert_eq!(delivery.settings, r#"{"autoMemoryEnabled":false}"#);
    let delivery = install(&approved, &pick(&["skill:b"])).unwrap();
    assert!(!delivery.plugin_dir.join("skills/a").exists());
    assert!(delivery.plugin_dir.join("skills/b/SKILL.md").exists());
    assert_eq!(delivery.agents, None);
    let leftovers: Vec<_> = fs::read_dir(&approved)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(leftovers, ["plugin"]);
}
