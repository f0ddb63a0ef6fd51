//! `state/config.json` on disk: loading, sparse saving, unknown keys, corrupt files.

use super::*;

#[test]
fn loads_full_and_sparse_objects_and_legacy_booleans() {
    let config = RuntimeConfig::from_json(&object(json!({
        "model_main": "Sonnet", "thinking_main": true, "thinking_fork": false,
        "permission_mode": "default", "unknown": 1, "model.main": "opus"
    })));
    assert_eq!(config.model_main.as_deref(), Some("sonnet"));
    assert_eq!(config.thinking_main, Thinking::Adaptive);
    assert_eq!(config.thinking_fork, Thinking::Off);
    assert_eq!(config.permission_mode, PermissionMode::Default);

    // What an older version wrote: every key, numbers and booleans in native JSON types.
    let full = RuntimeConfig::from_json(&object(json!({
        "model_main": null, "model_fork": "opus", "thinking_main": "off",
        "thinking_fork": "32000", "bg_fork_timeout": 1800, "fork_idle_timeout": 15,
        "permission_mode": "dontAsk", "auto_update": true, "auto_update_interval": 60,
        "auto_update_hour": 3, "google_calendars": ["primary", "work"],
        "google_task_list": null
    })));
    assert_eq!(full.model_main, None);
    assert_eq!(full.fork_model(), Some("opus"));
    assert_eq!(full.thinking_fork, Thinking::Budget(32000));
    assert_eq!(full.fork_idle_timeout, 15);
    assert!(full.auto_update);
    assert_eq!(full.auto_update_hour, 3);
    assert_eq!(full.google_calendars, ["primary", "work"]);
    assert_eq!(full.google_task_list, "@default");
}

#[test]
fn bad_values_fall_back_to_defaults() {
    let config = RuntimeConfig::from_json(&object(json!({
        "model_main": "gpt", "thinking_main": "lots", "permission_mode": "yolo",
        "bg_fork_timeout": -5, "fork_idle_timeout": 1.5, "auto_update": "maybe",
        "auto_update_hour": 24, "auto_update_interval": null, "thinking_fork": [1]
    })));
    assert_eq!(config, RuntimeConfig::default());
}

#[test]
fn sparse_save_load_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state").join("config.json");
    assert_eq!(RuntimeConfig::load(&path), RuntimeConfig::default());

    RuntimeConfig::default().save(&path).unwrap();
    assert!(
        !path.exists(),
        "nothing to write: the defaults need no file"
    );

    let mut config = RuntimeConfig::default();
    config.set(ConfigKey::ModelMain, "sonnet").unwrap();
    config.set(ConfigKey::ThinkingFork, "32000").unwrap();
    config.set(ConfigKey::ForkIdleTimeout, "15").unwrap();
    config.set(ConfigKey::AutoUpdate, "on").unwrap();
    config
        .set(ConfigKey::GoogleCalendars, "primary, work")
        .unwrap();
    config.save(&path).unwrap();
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(
        saved,
        json!({
            "model_main": "sonnet", "thinking_fork": "32000", "fork_idle_timeout": 15,
            "auto_update": true, "google_calendars": "primary,work"
        })
    );
    assert_eq!(RuntimeConfig::load(&path), config);

    // Back to the default: the key disappears from the file.
    config.set(ConfigKey::ModelMain, "default").unwrap();
    config.save(&path).unwrap();
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert!(saved.get("model_main").is_none(), "{saved}");
}

#[test]
fn unknown_keys_are_ignored_but_kept_on_save() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.json");
    std::fs::write(
        &path,
        r#"{"model_main": "haiku", "future_setting": {"x": 1}, "bg_fork_timeout": 1800}"#,
    )
    .unwrap();
    let config = RuntimeConfig::load(&path);
    assert_eq!(config.model_main.as_deref(), Some("haiku"));
    config.save(&path).unwrap();
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(
        saved,
        json!({"model_main": "haiku", "future_setting": {"x": 1}})
    );
}

#[test]
fn corrupt_file_is_moved_aside() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.json");
    for broken in ["{oops", "[1, 2]", ""] {
        std::fs::write(&path, broken).unwrap();
        assert_eq!(RuntimeConfig::load(&path), RuntimeConfig::default());
        assert!(!path.exists(), "{broken:?} left in place");
        let moved: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name.starts_with("config.json.corrupt-"))
            .collect();
        let kept = moved
            .iter()
            .any(|name| std::fs::read_to_string(dir.path().join(name)).unwrap() == broken);
        assert!(kept, "{broken:?} not preserved in {moved:?}");
    }
    // Three moves in the same second get distinct names; the owner will hear of each.
    let corrupt = || {
        std::fs::read_dir(dir.path())
            .unwrap()
            .filter(|entry| {
                let name = entry.as_ref().unwrap().file_name();
                name.to_string_lossy().starts_with("config.json.corrupt-")
            })
            .count()
    };
    assert_eq!(corrupt(), 3);
    assert_eq!(
        crate::state::set_aside::pending_notices(dir.path()).len(),
        3
    );
    // A later save writes a fresh file without touching the preserved copies.
    let mut config = RuntimeConfig::default();
    config.set(ConfigKey::ModelMain, "sonnet").unwrap();
    config.save(&path).unwrap();
    assert_eq!(corrupt(), 3);
    assert!(path.exists());
}
