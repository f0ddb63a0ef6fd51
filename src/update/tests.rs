use std::{path::Path, process::Command};

use semver::Version;

use super::*;

#[test]
fn restart_finds_the_replaced_binary() {
    let dir = tempfile::tempdir().unwrap();
    let installed = dir.path().join("ollim-bot");
    std::fs::write(&installed, "new").unwrap();
    let deleted = PathBuf::from(format!("{} (deleted)", installed.display()));
    assert_eq!(restart_program(deleted), installed);
    assert_eq!(restart_program(installed.clone()), installed);
}

#[test]
fn a_binary_really_named_deleted_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let odd = dir.path().join("ollim-bot (deleted)");
    std::fs::write(&odd, "odd").unwrap();
    assert_eq!(restart_program(odd.clone()), odd);
}

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@t"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

/// A bare origin with `v0.1.0`, a checkout cloned from it, and the seed repository that
/// publishes to it.
fn repos() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let root = tempfile::tempdir().unwrap();
    let origin = root.path().join("origin.git");
    let seed = root.path().join("seed");
    let checkout = root.path().join("checkout");
    git(
        root.path(),
        &["init", "-q", "--bare", "-b", "main", "origin.git"],
    );
    git(root.path(), &["init", "-q", "-b", "main", "seed"]);
    std::fs::write(seed.join("README"), "one").unwrap();
    git(&seed, &["add", "."]);
    git(&seed, &["commit", "-q", "-m", "first"]);
    git(&seed, &["tag", "v0.1.0"]);
    git(
        &seed,
        &["remote", "add", "origin", origin.to_str().unwrap()],
    );
    git(&seed, &["push", "-q", "origin", "main", "--tags"]);
    git(
        root.path(),
        &["clone", "-q", origin.to_str().unwrap(), "checkout"],
    );
    (root, seed, checkout)
}

fn publish(seed: &Path, subject: &str, tag: Option<&str>) {
    std::fs::write(seed.join("README"), subject).unwrap();
    git(seed, &["commit", "-q", "-am", subject]);
    if let Some(tag) = tag {
        git(seed, &["tag", tag]);
    }
    git(seed, &["push", "-q", "origin", "main", "--tags"]);
}

#[tokio::test]
async fn untagged_commits_are_no_update_and_a_newer_tag_is() {
    let (_root, seed, checkout) = repos();
    let state = tempfile::tempdir().unwrap();
    let updater = Updater::new(
        SourceDir::Checkout(checkout.clone()),
        state.path(),
        Version::new(0, 1, 0),
    );
    publish(&seed, "untagged work", None);
    let run = updater.begin().unwrap();
    assert_eq!(run.detect().await.unwrap(), Detection::UpToDate);
    assert!(updater.begin().is_none(), "one check at a time");
    drop(run);
    publish(&seed, "release", Some("v0.2.0"));
    let detection = updater.begin().unwrap().detect().await.unwrap();
    assert_eq!(
        detection,
        Detection::Available(Release::from_tag("v0.2.0").unwrap())
    );
}

#[tokio::test]
async fn a_tag_applied_before_is_not_applied_again() {
    let (_root, seed, checkout) = repos();
    let state = tempfile::tempdir().unwrap();
    let updater = Updater::new(
        SourceDir::Checkout(checkout),
        state.path(),
        Version::new(0, 1, 0),
    );
    publish(&seed, "release", Some("v0.2.0"));
    updater.record_applied("v0.2.0");
    let record = std::fs::read_to_string(state.path().join("update.json")).unwrap();
    assert!(record.contains("\"applied_tag\": \"v0.2.0\""), "{record}");
    let detection = updater.begin().unwrap().detect().await.unwrap();
    assert_eq!(
        detection,
        Detection::AlreadyApplied(Release::from_tag("v0.2.0").unwrap())
    );
    publish(&seed, "next", Some("v0.2.1"));
    let detection = updater.begin().unwrap().detect().await.unwrap();
    assert!(matches!(detection, Detection::Available(r) if r.tag == "v0.2.1"));
}

#[tokio::test]
async fn a_broken_origin_is_a_fetch_failure_and_no_checkout_is_unavailable() {
    let (_root, _seed, checkout) = repos();
    git(
        &checkout,
        &["remote", "set-url", "origin", "/nonexistent/origin.git"],
    );
    let state = tempfile::tempdir().unwrap();
    let updater = Updater::new(
        SourceDir::Checkout(checkout),
        state.path(),
        Version::new(0, 1, 0),
    );
    let error = updater.begin().unwrap().detect().await.unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("`git fetch --tags origin` returned 128"),
        "{error}"
    );
    let updater = Updater::new(
        SourceDir::Unavailable("no checkout here".into()),
        state.path(),
        Version::new(0, 1, 0),
    );
    let error = updater.begin().unwrap().detect().await.unwrap_err();
    assert_eq!(
        error.to_string(),
        "updates are unavailable: no checkout here"
    );
}
