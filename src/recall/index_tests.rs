use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Utc};

use super::*;
use crate::recall::{
    entry::fingerprint,
    gather::{Places, read},
};

fn at(text: &str) -> DateTime<Utc> {
    text.parse().unwrap()
}

fn english() -> Words {
    Words::new("english").unwrap()
}

/// A data dir with notes, listed as recall's sources (no transcripts).
struct Notes {
    dir: tempfile::TempDir,
}

impl Notes {
    fn new(notes: &[(&str, &str)]) -> Self {
        let notes_dir = tempfile::tempdir().unwrap();
        let this = Self { dir: notes_dir };
        for (name, text) in notes {
            this.write(name, text);
        }
        this
    }

    fn write(&self, name: &str, text: &str) {
        let path = self.dir.path().join("notes").join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn places(&self) -> Places {
        Places {
            data_dir: self.dir.path().to_path_buf(),
            claude_dirs: Vec::new(),
        }
    }

    fn index_dir(&self) -> std::path::PathBuf {
        self.dir.path().join("state/recall")
    }

    fn refreshed(&self, forgotten: &BTreeSet<String>) -> (Index, Updated) {
        let places = self.places();
        let mut index = Index::open(&self.index_dir(), english()).unwrap();
        let sources = places.list();
        let updated = index
            .update(
                &sources,
                |source| read(source, Some(&BTreeMap::new())),
                forgotten,
            )
            .unwrap();
        (index, updated)
    }
}

fn texts(hits: &[Hit]) -> Vec<&str> {
    hits.iter().map(|hit| hit.entry.text.as_str()).collect()
}

/// Word forms meet ("renewal" finds "renew"), and a question's filler words don't drown it.
#[test]
fn word_forms_meet_and_the_best_passage_comes_first() {
    let notes = Notes::new(&[
        (
            "flat.md",
            "# Flat\nDecided to renew the lease on the Elm Street flat.",
        ),
        ("shop.md", "# Shopping\nBuy milk and bread on the way home."),
        ("work.md", "# Work\nThe street party is on Friday."),
    ]);
    let (index, updated) = notes.refreshed(&BTreeSet::new());
    assert_eq!((updated.read, updated.passages), (3, 3));
    let hits = index
        .search(
            &Query::new("what did I decide about the lease renewal?"),
            at("2026-12-01T00:00:00Z"),
        )
        .unwrap();
    assert!(
        texts(&hits)[0].contains("renew the lease"),
        "{:?}",
        texts(&hits)
    );
    assert!(!texts(&hits).iter().any(|t| t.contains("milk")));
    // Nothing in a question is read as `FTS5` syntax.
    for odd in [
        "\"",
        "lease OR",
        "NEAR(",
        "a AND",
        "*",
        "elm:street",
        "(",
        "-",
    ] {
        index
            .search(&Query::new(odd), at("2026-12-01T00:00:00Z"))
            .unwrap();
    }
}

/// A question in other words than the passage still meets it ("plane" for "flight", "mum"
/// for "mom"), and a passage holding the words themselves still comes before one holding only
/// words that stand for them.
#[test]
fn other_words_for_the_same_thing_meet() {
    let notes = Notes::new(&[
        (
            "flight.md",
            "# Visit\nMom's flight lands at 18:40 on Friday.",
        ),
        ("call.md", "# Calls\nCall mum about Sunday lunch."),
        (
            "plane.md",
            "# Toys\nThe plane kit for Leo arrives on Monday.",
        ),
    ]);
    let (index, _) = notes.refreshed(&BTreeSet::new());
    let now = at("2026-12-01T00:00:00Z");
    let hits = index
        .search(&Query::new("what time does mum's plane arrive?"), now)
        .unwrap();
    assert!(
        texts(&hits)[0].contains("flight lands"),
        "{:?}",
        texts(&hits)
    );
    let hits = index.search(&Query::new("plane kit arrives"), now).unwrap();
    assert!(texts(&hits)[0].contains("plane kit"), "{:?}", texts(&hits));
}

/// Only what changed is read again; a removed file's passages go.
#[test]
fn an_update_reads_only_what_changed() {
    let notes = Notes::new(&[("a.md", "apples"), ("b.md", "bananas")]);
    let (_, first) = notes.refreshed(&BTreeSet::new());
    assert_eq!(first.read, 2);
    let (_, again) = notes.refreshed(&BTreeSet::new());
    assert_eq!((again.read, again.dropped, again.passages), (0, 0, 2));
    notes.write("a.md", "apricots and more apricots");
    std::fs::remove_file(notes.dir.path().join("notes/b.md")).unwrap();
    let (index, changed) = notes.refreshed(&BTreeSet::new());
    assert_eq!((changed.read, changed.dropped, changed.passages), (1, 2, 1));
    let now = at("2026-12-01T00:00:00Z");
    assert!(
        index
            .search(&Query::new("bananas"), now)
            .unwrap()
            .is_empty()
    );
    assert_eq!(index.search(&Query::new("apricot"), now).unwrap().len(), 1);
}

/// Forgetting takes the passages holding every word asked, and a rebuild (a damaged file)
/// never brings them back.
#[test]
fn what_is_forgotten_stays_out_of_a_rebuild() {
    let notes = Notes::new(&[(
        "pin.md",
        "# Bank\nMy bank PIN is 4711.\n\n# Bank hours\nThe bank opens at nine.",
    )]);
    let (mut index, _) = notes.refreshed(&BTreeSet::new());
    let gone = index.forget(&Query::new("bank pin")).unwrap();
    assert_eq!(gone.len(), 1, "{gone:?}");
    assert!(gone[0].text.contains("4711"));
    let now = at("2026-12-01T00:00:00Z");
    assert!(
        index
            .search(&Query::new("pin 4711"), now)
            .unwrap()
            .is_empty()
    );
    assert_eq!(index.search(&Query::new("bank"), now).unwrap().len(), 1);
    drop(index);
    let forgotten: BTreeSet<String> = gone.iter().map(Entry::fingerprint).collect();
    assert!(forgotten.contains(&fingerprint("# Bank\nMy bank PIN is 4711.")));
    // The file damaged: rebuilt from the sources, the tombstone still holding.
    std::fs::write(notes.index_dir().join(FILE), b"not a database at all").unwrap();
    let (index, rebuilt) = notes.refreshed(&forgotten);
    assert_eq!((rebuilt.read, rebuilt.passages), (1, 1));
    assert!(
        index
            .search(&Query::new("pin 4711"), now)
            .unwrap()
            .is_empty()
    );
}

/// An index made for another language is made again.
#[test]
fn another_language_rebuilds_the_index() {
    let notes = Notes::new(&[("de.md", "Wir haben die Wohnungen besichtigt.")]);
    notes.refreshed(&BTreeSet::new());
    let places = notes.places();
    let mut index = Index::open(&notes.index_dir(), Words::new("german").unwrap()).unwrap();
    assert_eq!(index.count().unwrap(), 0);
    index
        .update(
            &places.list(),
            |source| read(source, None),
            &BTreeSet::new(),
        )
        .unwrap();
    let hits = index
        .search(&Query::new("Wohnung"), at("2026-12-01T00:00:00Z"))
        .unwrap();
    assert_eq!(hits.len(), 1);
    assert!(Words::new("klingon").is_none());
}

/// Dates and kinds narrow what is found.
#[test]
fn dates_and_kinds_narrow_the_search() {
    let notes = Notes::new(&[("a.md", "dentist on monday")]);
    let (index, _) = notes.refreshed(&BTreeSet::new());
    let now = at("2100-01-01T00:00:00Z");
    let mut query = Query::new("dentist");
    assert_eq!(index.search(&query, now).unwrap().len(), 1);
    query.since = Some(now);
    assert!(index.search(&query, now).unwrap().is_empty());
    query.since = None;
    query.kinds = vec![Kind::Said];
    assert!(index.search(&query, now).unwrap().is_empty());
    query.kinds = vec![Kind::Note];
    assert_eq!(index.search(&query, now).unwrap().len(), 1);
}

/// Every language the `recall_language` setting takes has its stemmer.
#[test]
fn every_language_the_setting_takes_stems() {
    for language in crate::config::runtime::RECALL_LANGUAGES {
        let words = Words::new(language).unwrap_or_else(|| panic!("{language}"));
        assert_eq!(words.language(), language);
    }
    assert!(Words::new("klingon").is_none());
}
