use std::time::Duration;

use super::*;

#[test]
fn an_explicit_checkout_wins() {
    let checkout = tempfile::tempdir().unwrap();
    std::fs::create_dir(checkout.path().join(".git")).unwrap();
    let built = tempfile::tempdir().unwrap();
    assert_eq!(
        SourceDir::resolve(Some(checkout.path().to_path_buf()), built.path()),
        SourceDir::Checkout(checkout.path().to_path_buf())
    );
}

#[test]
fn a_linked_worktree_counts() {
    let built = tempfile::tempdir().unwrap();
    std::fs::write(built.path().join(".git"), "gitdir: /elsewhere\n").unwrap();
    assert_eq!(
        SourceDir::resolve(None, built.path()),
        SourceDir::Checkout(built.path().to_path_buf())
    );
}

#[test]
fn no_checkout_says_what_to_do() {
    let plain = tempfile::tempdir().unwrap();
    let SourceDir::Unavailable(why) = SourceDir::resolve(None, plain.path()) else {
        panic!("a plain directory is no checkout");
    };
    assert!(why.contains("set OLLIM_SOURCE_DIR"), "{why}");
    let SourceDir::Unavailable(why) =
        SourceDir::resolve(Some(plain.path().to_path_buf()), plain.path())
    else {
        panic!("a plain directory is no checkout");
    };
    assert!(why.starts_with("OLLIM_SOURCE_DIR ("), "{why}");
}

#[test]
fn the_poll_interval_defaults_to_five_minutes() {
    assert_eq!(poll_interval(None), Duration::from_secs(300));
    assert_eq!(poll_interval(Some("0")), Duration::from_secs(300));
    assert_eq!(poll_interval(Some("soon")), Duration::from_secs(300));
    assert_eq!(poll_interval(Some(" 2 ")), Duration::from_secs(2));
}
