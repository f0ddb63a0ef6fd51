use super::test_support::{git_out, temp_repo};
use super::*;

fn setup() -> (tempfile::TempDir, tempfile::TempDir, ExtraEnv) {
    let (repo, home, env) = temp_repo();
    assert!(!init_repo_with(repo.path(), &env).unwrap());
    (repo, home, env)
}

#[test]
fn the_secrets_are_ignored_and_the_owners_lines_kept() {
    let dir = tempfile::tempdir().unwrap();
    let exclude = dir.path().join(".git/info/exclude");
    std::fs::create_dir_all(exclude.parent().unwrap()).unwrap();
    std::fs::write(&exclude, "notes/private.md\n.env").unwrap();
    ensure_ignored_secrets(dir.path()).unwrap();
    ensure_ignored_secrets(dir.path()).unwrap();
    let text = std::fs::read_to_string(&exclude).unwrap();
    assert!(
        text.starts_with("notes/private.md\n.env\n# Added by ollim-bot"),
        "{text}"
    );
    for line in IGNORED_SECRETS {
        assert_eq!(
            text.lines().filter(|l| *l == line).count(),
            1,
            "{line}: {text}"
        );
    }
}

#[test]
fn commits_only_the_named_path_without_global_identity() {
    let (repo, _home, env) = setup();
    let root = repo.path();
    std::fs::create_dir(root.join("routines")).unwrap();
    std::fs::write(root.join("routines/a.md"), "a").unwrap();
    std::fs::write(root.join("USER.md"), "me").unwrap();
    record_logged(
        root,
        Path::new("routines/a.md"),
        "add routine a",
        Action::Add,
        &env,
    );
    assert_eq!(
        git_out(root, &env, &["log", "--format=%s"]),
        "add routine a\n"
    );
    assert_eq!(
        git_out(root, &env, &["log", "--format=%an <%ae>|%cn <%ce>"]),
        "ollim-bot <ollim-bot@localhost>|ollim-bot <ollim-bot@localhost>\n"
    );
    assert_eq!(git_out(root, &env, &["ls-files"]), "routines/a.md\n");
    assert!(git_out(root, &env, &["status", "--porcelain"]).contains("?? USER.md"));

    // Something already staged elsewhere is not swept into the commit.
    git_out(root, &env, &["add", "USER.md"]);
    std::fs::write(root.join("routines/a.md"), "a2").unwrap();
    record_logged(
        root,
        &root.join("routines/a.md"),
        "edit a",
        Action::Add,
        &env,
    );
    assert_eq!(
        git_out(root, &env, &["show", "--name-only", "--format=%s", "HEAD"]),
        "edit a\n\nroutines/a.md\n"
    );
    assert!(git_out(root, &env, &["status", "--porcelain"]).contains("A  USER.md"));

    // No change: no commit, no error.
    record_logged(root, Path::new("routines/a.md"), "noop", Action::Add, &env);
    let inode =
        || std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(root.join("routines")).unwrap());
    let folder = inode();
    record_logged(
        root,
        &root.join("routines/a.md"),
        "remove a",
        Action::Remove,
        &env,
    );
    assert_eq!(
        git_out(root, &env, &["log", "--format=%s"]),
        "remove a\nedit a\nadd routine a\n"
    );
    assert!(!root.join("routines/a.md").exists());
    assert_eq!(
        inode(),
        folder,
        "its folder stays: never removed, not made again"
    );
    // Removing an untracked or missing path is quiet.
    record_logged(
        root,
        Path::new("reminders/x.md"),
        "remove x",
        Action::Remove,
        &env,
    );
    assert_eq!(git_out(root, &env, &["rev-list", "--count", "HEAD"]), "3\n");
}

#[test]
fn not_a_repo_and_outside_paths_are_no_ops() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("x.md"), "x").unwrap();
    commit_path_blocking(dir.path(), Path::new("x.md"), "add x");
    assert!(!dir.path().join(".git").exists());
    let (repo, _home, env) = setup();
    record_logged(
        repo.path(),
        Path::new("/etc/hosts"),
        "nope",
        Action::Add,
        &env,
    );
    let out = git(repo.path(), &env).args(["log"]).output().unwrap();
    assert!(!out.status.success(), "no commits expected");
}

/// A commit that finds the index locked by another process (the daemon's worker, a
/// subcommand) waits the lock out instead of losing the commit.
#[test]
fn a_locked_index_is_waited_out() {
    let (repo, _home, env) = setup();
    let root = repo.path();
    std::fs::create_dir_all(root.join("reminders")).unwrap();
    std::fs::write(root.join("reminders/a.md"), "a").unwrap();
    let lock = root.join(".git/index.lock");
    std::fs::write(&lock, "").unwrap();
    let unlock = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(300));
        std::fs::remove_file(lock).unwrap();
    });
    record_logged(
        root,
        Path::new("reminders/a.md"),
        "add a",
        Action::Add,
        &env,
    );
    unlock.join().unwrap();
    assert!(git_out(root, &env, &["log", "--format=%s"]).contains("add a"));
}
