//! The look-up pages can't fall behind (issue 25 §1): every ID that code, tests or benches
//! name (`SES-3`, `F-21`, …) with a prefix `docs/behaviour.md` has a section for is listed
//! there, once; and every "issue N" they cite has its section in `docs/decisions.md`.

use std::collections::{BTreeMap, BTreeSet};

use crate::source_tree::{repo, rust_files};

/// The prefixes (`## SES — …` headers) and the IDs (`| SES-1 | …` rows) of the index.
pub(crate) fn index(text: &str) -> (BTreeSet<String>, Vec<String>) {
    let prefixes = text
        .lines()
        .filter_map(|line| line.strip_prefix("## "))
        .filter_map(|header| {
            header
                .split_once(" — ")
                .map(|(prefix, _)| prefix.to_owned())
        })
        .collect();
    let ids = text
        .lines()
        .filter_map(|line| line.strip_prefix("| "))
        .filter_map(|row| row.split_once(" |").map(|(id, _)| id.to_owned()))
        .filter(|id| id.contains('-') && id != "ID")
        .collect();
    (prefixes, ids)
}

/// The `PREFIX-<digits>` words of `text` whose prefix is in `prefixes`, with their lines.
pub(crate) fn ids_in(text: &str, prefixes: &BTreeSet<String>) -> Vec<(String, usize)> {
    let mut found = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let bytes = line.as_bytes();
        for (at, _) in line.match_indices('-') {
            // ASCII bytes never occur inside a multi-byte character, so walking bytes is safe.
            let mut start = at;
            while start > 0 && bytes[start - 1].is_ascii_uppercase() {
                start -= 1;
            }
            let mut digits = at + 1;
            while digits < bytes.len() && bytes[digits].is_ascii_digit() {
                digits += 1;
            }
            let word_before =
                start > 0 && (bytes[start - 1].is_ascii_alphanumeric() || bytes[start - 1] == b'_');
            let word_after = digits < line.len()
                && (bytes[digits].is_ascii_alphanumeric() || bytes[digits] == b'_');
            let prefix = &line[start..at];
            if digits > at + 1 && !word_before && !word_after && prefixes.contains(prefix) {
                found.push((line[start..digits].to_owned(), number + 1));
            }
        }
    }
    found
}

/// What `find` finds in every `.rs` file of `src/`, `tests/`, `test-support/` and `benches/`, each with its
/// `file:line`.
fn citations<T>(find: impl Fn(&str) -> Vec<(T, usize)>) -> Vec<(T, String)> {
    let mut files = Vec::new();
    for dir in ["src", "tests", "test-support", "benches"] {
        rust_files(&repo().join(dir), &mut files);
    }
    let mut found = Vec::new();
    for file in files {
        let source = std::fs::read_to_string(&file).unwrap();
        let shown = file
            .strip_prefix(repo())
            .unwrap_or(&file)
            .display()
            .to_string();
        for (item, line) in find(&source) {
            found.push((item, format!("{shown}:{line}")));
        }
    }
    found
}

/// The citations whose item `listed` doesn't know, with where each is cited.
fn unlisted<T: Ord>(
    cited: Vec<(T, String)>,
    listed: impl Fn(&T) -> bool,
) -> BTreeMap<T, Vec<String>> {
    let mut missing: BTreeMap<T, Vec<String>> = BTreeMap::new();
    for (item, place) in cited {
        if !listed(&item) {
            missing.entry(item).or_default().push(place);
        }
    }
    missing
}

#[test]
fn every_behaviour_id_the_code_names_is_in_docs_behaviour_md() {
    let text = std::fs::read_to_string(repo().join("docs/behaviour.md")).unwrap();
    let (prefixes, listed) = index(&text);
    assert!(prefixes.len() > 20, "{prefixes:?}");
    let mut seen = BTreeSet::new();
    let twice: Vec<&String> = listed.iter().filter(|id| !seen.insert(*id)).collect();
    assert!(
        twice.is_empty(),
        "listed twice in docs/behaviour.md: {twice:?}"
    );
    let named = citations(|source| ids_in(source, &prefixes));
    let count = named.len();
    let missing = unlisted(named, |id| seen.contains(id));
    assert!(count > 500, "the scan found the IDs: {count}");
    assert!(
        missing.is_empty(),
        "IDs named in code but missing from docs/behaviour.md (add a line each):\n{}",
        missing
            .iter()
            .map(|(id, places)| format!("{id}: {}", places.join(", ")))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// The issue numbers `text` cites as "issue N" / "Issue N", with their lines.
fn issues_in(text: &str) -> Vec<(u32, usize)> {
    let mut found = Vec::new();
    for (number, line) in text.lines().enumerate() {
        for (at, _) in line.match_indices("ssue ") {
            let cited = at > 0 && matches!(line.as_bytes()[at - 1], b'i' | b'I');
            let word_before = at > 1 && line.as_bytes()[at - 2].is_ascii_alphanumeric();
            let digits: String = line[at + "ssue ".len()..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            if cited
                && !word_before
                && let Ok(issue) = digits.parse()
            {
                found.push((issue, number + 1));
            }
        }
    }
    found
}

#[test]
fn every_issue_the_code_cites_has_a_decision_record() {
    let text = std::fs::read_to_string(repo().join("docs/decisions.md")).unwrap();
    let recorded: BTreeSet<u32> = text
        .lines()
        .filter_map(|line| line.strip_prefix("## Issue "))
        .filter_map(|rest| rest.split_whitespace().next()?.parse().ok())
        .collect();
    let cited = citations(issues_in);
    let count = cited.len();
    let missing = unlisted(cited, |issue| recorded.contains(issue));
    assert!(count > 100, "the scan found the citations: {count}");
    assert!(
        missing.is_empty(),
        "issues cited in code without a section in docs/decisions.md:\n{missing:?}"
    );
}

#[test]
fn ids_are_whole_words_with_a_known_prefix() {
    let prefixes: BTreeSet<String> = ["SES", "F"].map(str::to_owned).into();
    let found: Vec<String> = ids_in("SES-3, (F-21) xSES-4 SES-5a UTF-8 SES- F-2_", &prefixes)
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    assert_eq!(found, ["SES-3", "F-21"]);
    let issues: Vec<u32> = issues_in("(issue 23 §4) Issue 24, tissue 9, issue x")
        .into_iter()
        .map(|(issue, _)| issue)
        .collect();
    assert_eq!(issues, [23, 24]);
}
