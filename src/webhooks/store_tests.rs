use std::time::{Duration, SystemTime};

use super::*;

fn spec(id: &str, body: &str) -> String {
    format!("---\nid: {id}\nfields:\n  type: object\n---\n{body}\n")
}

fn write(dir: &Path, name: &str, text: &str, modified: SystemTime) {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(modified)
        .unwrap();
}

fn at(secs: u64) -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000 + secs)
}

#[test]
fn a_missing_folder_has_no_specs() {
    let store = SpecStore::new("/nonexistent/webhooks");
    assert!(store.scan().is_empty());
    assert!(matches!(store.find("x"), Ok(None)));
}

#[test]
fn specs_are_found_by_id_not_file_name_whk_2() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "ci.md", &spec("github-ci", "CI."), at(0));
    write(dir.path(), "README.md", "# notes, not a spec", at(0));
    write(dir.path(), "notes.txt", "ignored", at(0));
    let store = SpecStore::new(dir.path());
    assert_eq!(store.scan().len(), 1);
    assert_eq!(store.find("github-ci").unwrap().unwrap().id, "github-ci");
    assert!(matches!(store.find("ci"), Ok(None)));
}

#[test]
fn an_unchanged_file_is_not_parsed_again_but_a_new_mtime_or_size_is() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.md", &spec("a", "One."), at(0));
    let store = SpecStore::new(dir.path());
    let first = store.find("a").unwrap().unwrap();
    let again = store.find("a").unwrap().unwrap();
    assert!(Arc::ptr_eq(&first, &again), "parsed twice");

    // Same size and modification time: the cached parse stands (the stamp is the cache key).
    write(dir.path(), "a.md", &spec("a", "Two."), at(0));
    let cached = store.find("a").unwrap().unwrap();
    assert_eq!(cached.template.source(), "One.");

    write(dir.path(), "a.md", &spec("a", "Two."), at(5));
    let touched = store.find("a").unwrap().unwrap();
    assert_eq!(touched.template.source(), "Two.");

    write(dir.path(), "a.md", &spec("a", "Three!"), at(5));
    let resized = store.find("a").unwrap().unwrap();
    assert_eq!(resized.template.source(), "Three!");
}

#[test]
fn a_new_spec_works_and_a_removed_one_is_gone_without_restart_whk_2() {
    let dir = tempfile::tempdir().unwrap();
    let store = SpecStore::new(dir.path());
    assert!(matches!(store.find("new"), Ok(None)));
    write(dir.path(), "new.md", &spec("new", "Hi."), at(0));
    assert!(store.find("new").unwrap().is_some());
    std::fs::remove_file(dir.path().join("new.md")).unwrap();
    assert!(matches!(store.find("new"), Ok(None)));
}

#[test]
fn a_broken_spec_names_its_file_and_leaves_the_others_working() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "good.md", &spec("good", "Fine."), at(0));
    write(
        dir.path(),
        "bad.md",
        "---\nid: bad-hook\nfields: [not, a, mapping]\n---\nx",
        at(0),
    );
    write(dir.path(), "mangled.md", "---\nid: [oops\n---\nx", at(0));
    let store = SpecStore::new(dir.path());
    assert!(store.find("good").unwrap().is_some());
    let error = store.find("bad-hook").unwrap_err();
    assert_eq!(error.file, dir.path().join("bad.md"));
    assert_eq!(error.id.as_deref(), Some("bad-hook"));
    let text = error.to_string();
    assert!(
        text.starts_with("webhook spec bad.md is broken: \"fields\" must be a mapping"),
        "{text}"
    );
    let unnamed = store.find("mangled").unwrap_err();
    assert_eq!(unnamed.file, dir.path().join("mangled.md"));
    assert!(matches!(store.find("other"), Ok(None)));
    let scanned = store.scan();
    assert_eq!(scanned.iter().filter(|s| s.is_err()).count(), 2);
}

#[test]
fn the_first_file_by_name_wins_a_duplicate_id() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "b.md", &spec("same", "From b."), at(0));
    write(dir.path(), "a.md", &spec("same", "From a."), at(0));
    let store = SpecStore::new(dir.path());
    assert_eq!(
        store.find("same").unwrap().unwrap().template.source(),
        "From a."
    );
}

/// A log sink for one test: everything the fmt layer writes, kept in memory.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_broken_file_is_logged_once_per_version() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "bad.md", "---\nid: bad\n---\nx", at(0));
    let store = SpecStore::new(dir.path());
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .finish();
    tracing::subscriber::with_default(subscriber, || {
        // Another test's subscriber may have left this callsite's cached interest at "never"
        // (tracing caches it process-wide); ask again under this one.
        tracing::callsite::rebuild_interest_cache();
        for _ in 0..3 {
            assert!(store.find("bad").is_err());
        }
        write(dir.path(), "bad.md", "---\nid: bad\n---\nxy", at(1));
        assert!(store.find("bad").is_err());
    });
    let logged = String::from_utf8(captured.0.lock().clone()).unwrap();
    assert_eq!(
        logged.matches("webhook spec bad.md is broken").count(),
        2,
        "{logged}"
    );
}
