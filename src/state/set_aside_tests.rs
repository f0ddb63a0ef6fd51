use super::*;

#[test]
fn the_file_is_kept_under_a_free_name_after_its_last_write_and_the_owner_will_hear_of_it() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("pending_updates.json");
    fs::write(dir.path().join("pending_updates.json.corrupt-100"), "older").unwrap();
    fs::write(&file, b"\x00\xffnot json").unwrap();
    let written = std::time::UNIX_EPOCH + std::time::Duration::from_secs(100);
    fs::File::options()
        .write(true)
        .open(&file)
        .unwrap()
        .set_modified(written)
        .unwrap();
    let notice = set_aside(&file, "expected value\n at line 1 column 1");
    assert!(!file.exists());
    let aside = dir.path().join("pending_updates.json.corrupt-100-1");
    assert_eq!(notice.moved_to.as_deref(), Some(aside.as_path()));
    assert_eq!(fs::read(&aside).unwrap(), b"\x00\xffnot json");
    assert_eq!(notice.reason, "expected value at line 1 column 1");
    assert_eq!(
        notice.describe(dir.path()),
        "`pending_updates.json` couldn't be read (expected value at line 1 column 1), so I \
         moved it to `pending_updates.json.corrupt-100-1` and started it fresh."
    );
    assert_eq!(pending_notices(dir.path()), vec![notice]);
}

#[test]
fn told_notices_are_forgotten_and_later_ones_kept() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["a.json", "b.json"] {
        fs::write(dir.path().join(name), "{").unwrap();
        set_aside(&dir.path().join(name), "EOF");
    }
    let pending = pending_notices(dir.path());
    assert_eq!(pending.len(), 2);
    fs::write(dir.path().join("c.json"), "{").unwrap();
    set_aside(&dir.path().join("c.json"), "EOF");
    forget_notices(dir.path(), pending.len()).unwrap();
    let left = pending_notices(dir.path());
    assert_eq!(left.len(), 1);
    assert!(left[0].file.ends_with("c.json"));
    forget_notices(dir.path(), 1).unwrap();
    assert!(!dir.path().join(NOTICE_FILE).exists());
}

#[test]
fn a_file_that_vanished_is_still_reported() {
    let dir = tempfile::tempdir().unwrap();
    let notice = set_aside(&dir.path().join("gone.json"), "EOF");
    assert_eq!(notice.moved_to, None);
    assert!(
        notice
            .describe(dir.path())
            .contains("couldn't be moved aside")
    );
}
