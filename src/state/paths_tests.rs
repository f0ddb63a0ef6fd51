use super::*;

#[test]
fn layout_paths() {
    let d = DataDir::new("/data");
    assert_eq!(d.sessions_file(), Path::new("/data/state/sessions.json"));
    assert_eq!(
        d.history_file(),
        Path::new("/data/state/session_history.jsonl")
    );
    assert_eq!(
        d.pending_updates_file(),
        Path::new("/data/state/pending_updates.json")
    );
    assert_eq!(d.config_file(), Path::new("/data/state/config.json"));
    assert_eq!(d.pid_file(), Path::new("/data/state/bot.pid"));
    assert_eq!(
        d.routine_sessions_dir(),
        Path::new("/data/state/routine_sessions")
    );
    assert_eq!(d.reminders_dir(), Path::new("/data/reminders"));
}

#[test]
fn ensure_layout_creates_dirs() {
    let tmp = tempfile::tempdir().unwrap();
    let d = DataDir::new(tmp.path().join("bot"));
    d.ensure_layout().unwrap();
    d.ensure_layout().unwrap();
    for dir in [
        d.state_dir(),
        d.routines_dir(),
        d.reminders_dir(),
        d.webhooks_dir(),
    ] {
        assert!(dir.is_dir(), "{}", dir.display());
    }
}

#[test]
fn state_guard_lexical_cases() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("bot");
    let d = DataDir::new(&root);
    let inside = [
        PathBuf::from("state"),
        PathBuf::from("state/"),
        PathBuf::from("state/config.json"),
        PathBuf::from("./state/x"),
        PathBuf::from("state/../state/x"),
        PathBuf::from("routines/../state/sessions.json"),
        PathBuf::from("a/b/../../state/deep/file.md"),
        root.join("state"),
        root.join("state/sessions.json"),
        root.join("routines/../state/x"),
        root.join("./state/./x"),
    ];
    for p in &inside {
        assert!(d.is_inside_state_dir(p), "{} should be inside", p.display());
    }
    let outside = [
        PathBuf::from("statefile.md"),
        PathBuf::from("states/x"),
        PathBuf::from("state/../USER.md"),
        PathBuf::from("routines/state/x.md"),
        PathBuf::from("."),
        PathBuf::from("../state/x"),
        root.join("statefile.md"),
        root.join("USER.md"),
        PathBuf::from("/etc/state/x"),
    ];
    for p in &outside {
        assert!(
            !d.is_inside_state_dir(p),
            "{} should be outside",
            p.display()
        );
    }
}

#[test]
fn state_guard_with_relative_root() {
    let d = DataDir::new("data/../bot");
    assert!(d.is_inside_state_dir(Path::new("state/x")));
    let abs = std::env::current_dir().unwrap().join("bot/state/x");
    assert!(d.is_inside_state_dir(&abs));
    assert!(!d.is_inside_state_dir(Path::new("data/state/x")));
}

#[cfg(unix)]
#[test]
fn state_guard_follows_symlinks() {
    let tmp = tempfile::tempdir().unwrap();
    let d = DataDir::new(tmp.path());
    d.ensure_layout().unwrap();
    std::os::unix::fs::symlink(d.state_dir(), tmp.path().join("sneaky")).unwrap();
    assert!(d.is_inside_state_dir(Path::new("sneaky/config.json")));
    assert!(d.is_inside_state_dir(Path::new("sneaky/new/dir/file.md")));
    assert!(!d.is_inside_state_dir(Path::new("routines/x.md")));
}

#[test]
fn normalize_keeps_leading_parents_of_relative_paths() {
    assert_eq!(normalize(Path::new("../a/./b/..")), Path::new("../a"));
    assert_eq!(normalize(Path::new("/../a")), Path::new("/a"));
}
