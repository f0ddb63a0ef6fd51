//! The runtime settings handle (CFG-1, CFG-4, issue 12): cached reads, changes seen at once.

use std::sync::Arc;

use super::{ConfigKey, RuntimeConfig, RuntimeSettings};

fn handle() -> (tempfile::TempDir, RuntimeSettings) {
    let dir = tempfile::tempdir().unwrap();
    let settings = RuntimeSettings::new(dir.path().join("config.json"));
    (dir, settings)
}

#[test]
fn cfg1_missing_file_gives_defaults_and_an_unchanged_file_is_not_reread() {
    let (_dir, settings) = handle();
    let first = settings.current();
    assert_eq!(*first, RuntimeConfig::default());
    assert!(Arc::ptr_eq(&first, &settings.current()));

    std::fs::write(settings.path(), r#"{"fork_idle_timeout": 20}"#).unwrap();
    let read = settings.current();
    assert_eq!(read.fork_idle_timeout, 20);
    assert!(Arc::ptr_eq(&read, &settings.current()));
}

#[test]
fn cfg4_update_validates_saves_and_is_seen_at_once() {
    let (_dir, settings) = handle();
    let error = settings
        .update(ConfigKey::AutoUpdateHour, "24")
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "auto_update_hour: must be an integer 0-23"
    );
    assert!(!settings.path().exists());
    let error = settings.update(ConfigKey::ThinkingMain, "x").unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("thinking.main: must be 'off'")
    );

    let updated = settings.update(ConfigKey::ForkIdleTimeout, "15").unwrap();
    assert_eq!(
        updated.render_line(ConfigKey::ForkIdleTimeout),
        "**fork_idle_timeout**: 15m"
    );
    assert_eq!(settings.current().fork_idle_timeout, 15);
    assert_eq!(RuntimeConfig::load(settings.path()).fork_idle_timeout, 15);
}

#[test]
fn cfg4_a_save_made_around_the_handle_is_seen_by_the_next_read() {
    let (_dir, settings) = handle();
    assert_eq!(settings.current().bg_fork_timeout, 1800);
    // What `/config` does when it writes the file itself: an atomic replace, same size.
    let mut config = RuntimeConfig::default();
    config.set(ConfigKey::BgForkTimeout, "1801").unwrap();
    config.save(settings.path()).unwrap();
    assert_eq!(settings.current().bg_fork_timeout, 1801);
    config.set(ConfigKey::BgForkTimeout, "1802").unwrap();
    config.save(settings.path()).unwrap();
    assert_eq!(settings.current().bg_fork_timeout, 1802);
}

#[test]
fn cfg1_a_file_deleted_after_a_read_falls_back_to_defaults() {
    let (_dir, settings) = handle();
    let mut config = RuntimeConfig::default();
    config.set(ConfigKey::AutoUpdate, "on").unwrap();
    settings.save(&config).unwrap();
    assert!(settings.current().auto_update);
    std::fs::remove_file(settings.path()).unwrap();
    assert_eq!(*settings.current(), RuntimeConfig::default());
}
