use std::os::unix::fs::symlink;

use super::*;

/// A data dir with `state/`, a project `.env` beside it and a note.
struct Layout {
    dir: tempfile::TempDir,
    secrets: SecretPlaces,
}

impl Layout {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        std::fs::create_dir_all(data.join("state")).unwrap();
        std::fs::create_dir_all(data.join("routines")).unwrap();
        std::fs::write(dir.path().join("project.env"), "DISCORD_TOKEN=x").unwrap();
        std::fs::write(data.join("note.md"), "hi").unwrap();
        let secrets = SecretPlaces {
            files: vec![dir.path().join("project.env")],
            dirs: vec![data.join("state")],
            send_roots: vec![data.clone()],
        };
        Self { dir, secrets }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    fn check(&self, path: &Path) -> Result<PathBuf, FileRefusal> {
        check_file(path.to_str().unwrap(), None, &self.secrets)
    }
}

#[test]
fn a_small_regular_file_is_sent_by_its_real_path() {
    let l = Layout::new();
    let note = l.path("data/note.md");
    assert_eq!(l.check(&note).unwrap(), note.canonicalize().unwrap());
    let link = l.path("data/link.md");
    symlink(&note, &link).unwrap();
    assert_eq!(l.check(&link).unwrap(), note.canonicalize().unwrap());
    let home = l.path("data");
    assert_eq!(
        check_file("~/note.md", Some(&home), &l.secrets).unwrap(),
        note.canonicalize().unwrap()
    );
}

#[test]
fn paths_must_be_absolute_and_readable() {
    let l = Layout::new();
    assert_eq!(
        check_file("relative.txt", None, &l.secrets),
        Err(FileRefusal::NotAbsolute("relative.txt".into()))
    );
    assert_eq!(
        check_file("~/x", None, &l.secrets),
        Err(FileRefusal::NoHome)
    );
    let missing = l.check(&l.path("missing")).unwrap_err();
    assert!(missing.to_string().starts_with("cannot read"), "{missing}");
    let dangling = l.path("data/dangling.md");
    symlink(l.path("gone"), &dangling).unwrap();
    assert!(matches!(
        l.check(&dangling),
        Err(FileRefusal::Unreadable { .. })
    ));
    assert!(matches!(
        l.check(&l.path("data")),
        Err(FileRefusal::NotRegularFile(_))
    ));
}

#[test]
fn system_files_are_refused_directly_through_dot_dot_and_through_links() {
    let l = Layout::new();
    for raw in [
        "/proc/self/environ",
        "/proc/1/cmdline",
        "/sys/kernel/hostname",
        "/dev/null",
        "/tmp/../proc/self/environ",
    ] {
        assert!(
            matches!(
                check_file(raw, None, &l.secrets),
                Err(FileRefusal::SystemFile(_))
            ),
            "{raw}"
        );
    }
    let link = l.path("data/environ.txt");
    symlink("/proc/self/environ", &link).unwrap();
    assert_eq!(l.check(&link), Err(FileRefusal::SystemFile(link.clone())));
    let dir_link = l.path("data/me");
    symlink("/proc/self", &dir_link).unwrap();
    assert!(matches!(
        l.check(&dir_link.join("environ")),
        Err(FileRefusal::SystemFile(_))
    ));
}

#[test]
fn the_loaded_env_file_and_secret_named_files_are_refused_also_through_links() {
    let l = Layout::new();
    let env = l.path("project.env");
    assert_eq!(l.check(&env), Err(FileRefusal::SecretFile(env.clone())));
    let link = l.path("data/harmless.md");
    symlink(&env, &link).unwrap();
    assert_eq!(l.check(&link), Err(FileRefusal::SecretFile(link.clone())));
    for name in [".env", ".env.local", ".credentials.json", ".claude.json"] {
        let other = l.path(name);
        std::fs::write(&other, "KEY=1").unwrap();
        assert!(
            matches!(l.check(&other), Err(FileRefusal::SecretFile(_))),
            "{name}"
        );
        let to_other = l.path(&format!("data/{name}-link.md"));
        symlink(&other, &to_other).unwrap();
        assert!(
            matches!(l.check(&to_other), Err(FileRefusal::SecretFile(_))),
            "{name}"
        );
    }
    let refusal = l.check(&env).unwrap_err().to_string();
    assert!(refusal.contains("never sent"), "{refusal}");
}

#[test]
fn every_state_file_is_refused_also_through_links_and_dot_dot() {
    let l = Layout::new();
    for name in ["token.json", "credentials.json", "sessions.json"] {
        let file = l.path("data/state").join(name);
        std::fs::write(&file, "{}").unwrap();
        assert!(
            matches!(l.check(&file), Err(FileRefusal::StateFile(_))),
            "{name}"
        );
    }
    let sneaky = l.path("data/routines/../state/token.json");
    assert!(matches!(l.check(&sneaky), Err(FileRefusal::StateFile(_))));
    let link = l.path("data/token.md");
    symlink(l.path("data/state/token.json"), &link).unwrap();
    assert!(matches!(l.check(&link), Err(FileRefusal::StateFile(_))));
    let dir_link = l.path("data/st");
    symlink(l.path("data/state"), &dir_link).unwrap();
    assert!(matches!(
        l.check(&dir_link.join("token.json")),
        Err(FileRefusal::StateFile(_))
    ));
}

#[test]
fn files_over_25_mb_are_refused() {
    let l = Layout::new();
    let big = l.path("data/big.bin");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(MAX_FILE_BYTES + 1)
        .unwrap();
    let refusal = l.check(&big).unwrap_err();
    assert!(matches!(refusal, FileRefusal::TooLarge { .. }));
    assert!(refusal.to_string().contains("25 MB"), "{refusal}");
    let exact = l.path("data/exact.bin");
    std::fs::File::create(&exact)
        .unwrap()
        .set_len(MAX_FILE_BYTES)
        .unwrap();
    assert!(l.check(&exact).is_ok());
}

#[test]
fn places_of_a_config_cover_the_env_file_and_state() {
    let config = Config::from_lookup(|name| match name {
        "OLLIM_USER_NAME" | "OLLIM_BOT_NAME" => Some("x".into()),
        "OLLIM_DATA_DIR" => Some("/srv/bot".into()),
        "OLLIM_ENV_FILE" => Some("/srv/project/.env".into()),
        _ => None,
    })
    .unwrap();
    let places = SecretPlaces::of(&config);
    assert_eq!(places.files, vec![PathBuf::from("/srv/project/.env")]);
    assert_eq!(places.dirs, vec![PathBuf::from("/srv/bot/state")]);
    assert_eq!(places.send_roots, vec![PathBuf::from("/srv/bot")]);
}

#[test]
fn only_files_in_the_data_dir_are_sent_also_through_links() {
    let l = Layout::new();
    let outside = l.path("elsewhere.txt");
    std::fs::write(&outside, "private").unwrap();
    assert_eq!(
        l.check(&outside),
        Err(FileRefusal::OutsideWorkspace(outside.clone()))
    );
    let link = l.path("data/elsewhere.md");
    symlink(&outside, &link).unwrap();
    assert_eq!(
        l.check(&link),
        Err(FileRefusal::OutsideWorkspace(link.clone()))
    );
    assert!(l.check(&l.path("data/note.md")).is_ok());
}

#[test]
fn what_the_box_hides_is_never_sent() {
    let l = Layout::new();
    for name in [
        "data/server.pem",
        "data/token-backup.json",
        "data/id_ed25519",
        "data/notes/deploy.key",
    ] {
        let file = l.path(name);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, "-----BEGIN PRIVATE KEY-----").unwrap();
        assert_eq!(
            l.check(&file),
            Err(FileRefusal::SecretFile(file.clone())),
            "{name}"
        );
    }
    let keys = l.path("data/id_rsa.d");
    std::fs::create_dir_all(&keys).unwrap();
    std::fs::write(keys.join("readme.md"), "keys live here").unwrap();
    assert_eq!(
        l.check(&keys.join("readme.md")),
        Err(FileRefusal::SecretFile(keys.join("readme.md"))),
        "a file under a private entry at the top"
    );
}
