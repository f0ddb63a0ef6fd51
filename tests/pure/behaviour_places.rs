//! The Code and Tests columns of `docs/behaviour.md` say where each behaviour lives now
//! (issue 25 §1): they are worked out from the sources, so a moved or renamed module shows
//! here as a failure instead of leaving the page pointing at nothing. To rewrite the columns
//! after a move: `OLLIM_WRITE_BEHAVIOUR_INDEX=1 cargo test --test pure behaviour_places`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::source_tree::{repo, rust_files};

/// Where an ID is named: the modules of `src/` and the tests that name it.
#[derive(Default)]
struct Places {
    code: BTreeSet<String>,
    tests: BTreeSet<String>,
}

/// The module a file of `src/` is (`agent::session::fork`), and whether it holds only tests.
fn src_module(relative: &Path) -> (String, bool) {
    let mut parts: Vec<String> = relative
        .with_extension("")
        .iter()
        .skip(1)
        .map(|part| part.to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|last| last == "mod") {
        parts.pop();
    }
    let mut only_tests = false;
    if let Some(last) = parts.last_mut() {
        if last == "tests" {
            parts.pop();
            only_tests = true;
        } else if let Some(stem) = last.strip_suffix("_tests") {
            *last = stem.to_owned();
            only_tests = true;
        }
    }
    if parts.is_empty() || parts == ["lib"] || parts == ["main"] {
        parts = vec!["crate".to_owned()];
    }
    (parts.join("::"), only_tests)
}

/// The label of a test file (`e2e boot`, `pure layers`); `None` for support code.
fn test_label(relative: &Path) -> Option<String> {
    let parts: Vec<String> = relative
        .with_extension("")
        .iter()
        .map(|part| part.to_string_lossy().into_owned())
        .collect();
    match parts.as_slice() {
        [tests, binary, module, ..] if tests == "tests" => {
            (module != "main" && module != "support").then(|| format!("{binary} {module}"))
        }
        _ => None,
    }
}

/// Every listed ID's places, from the sources.
fn places(ids: &BTreeSet<String>, prefixes: &BTreeSet<String>) -> BTreeMap<String, Places> {
    let root = repo();
    let mut found: BTreeMap<String, Places> = BTreeMap::new();
    let mut files = Vec::new();
    for dir in ["src", "tests"] {
        rust_files(&root.join(dir), &mut files);
    }
    for file in files {
        let relative = file.strip_prefix(&root).unwrap_or(&file).to_path_buf();
        let source = std::fs::read_to_string(&file).unwrap();
        let in_src = relative.starts_with("src");
        let (module, only_tests) = if in_src {
            src_module(&relative)
        } else {
            (String::new(), false)
        };
        // Inline unit tests: everything after `mod tests {` in a file of `src/`.
        let tests_from = source
            .lines()
            .position(|line| line.trim_start().starts_with("mod tests {"))
            .map_or(usize::MAX, |index| index + 1);
        let lines: Vec<&str> = source.lines().collect();
        // A test lists an ID where it drives it (its own doc or body), not where a module's
        // header names it (issue 40 §2).
        let in_header = |line: usize| {
            lines
                .get(line.saturating_sub(1))
                .is_some_and(|text| text.trim_start().starts_with("//!"))
        };
        for (id, line) in super::behaviour_index::ids_in(&source, prefixes) {
            if !ids.contains(&id) {
                continue;
            }
            let is_test = !in_src || only_tests || line > tests_from;
            if is_test && in_header(line) {
                continue;
            }
            let entry = found.entry(id).or_default();
            if !in_src {
                if let Some(label) = test_label(&relative) {
                    entry.tests.insert(label);
                }
            } else if only_tests || line > tests_from {
                entry.tests.insert(format!("{module}::tests (unit)"));
            } else {
                entry.code.insert(module.clone());
            }
        }
    }
    found
}

/// `` `a`, `b` +N `` (the first two, alphabetically), or `—`.
fn column(items: &BTreeSet<String>) -> String {
    if items.is_empty() {
        return "—".to_owned();
    }
    let shown: Vec<String> = items
        .iter()
        .take(2)
        .map(|item| format!("`{item}`"))
        .collect();
    let rest = items.len().saturating_sub(2);
    let more = if rest > 0 {
        format!(" +{rest}")
    } else {
        String::new()
    };
    format!("{}{more}", shown.join(", "))
}

#[test]
fn the_code_and_tests_columns_match_the_sources() {
    let path = repo().join("docs/behaviour.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let (prefixes, listed) = super::behaviour_index::index(&text);
    let ids: BTreeSet<String> = listed.into_iter().collect();
    let places = places(&ids, &prefixes);
    let empty = Places::default();
    let mut stale = Vec::new();
    let mut rewritten = String::with_capacity(text.len());
    for line in text.lines() {
        let cells: Vec<&str> = line.split(" | ").collect();
        let id = line
            .strip_prefix("| ")
            .and_then(|row| row.split_once(" |"))
            .map(|(id, _)| id);
        match (id, cells.as_slice()) {
            (Some(id), [first, what, _, _]) if ids.contains(id) => {
                let place = places.get(id).unwrap_or(&empty);
                let row = format!(
                    "{first} | {what} | {} | {} |",
                    column(&place.code),
                    column(&place.tests)
                );
                if row != line {
                    stale.push(format!("{id}:\n  page:    {line}\n  sources: {row}"));
                }
                rewritten.push_str(&row);
            }
            _ => rewritten.push_str(line),
        }
        rewritten.push('\n');
    }
    if std::env::var_os("OLLIM_WRITE_BEHAVIOUR_INDEX").is_some() {
        std::fs::write(&path, rewritten).unwrap();
        return;
    }
    assert!(
        stale.is_empty(),
        "docs/behaviour.md names places the sources no longer have ({} rows); rewrite the \
         columns with OLLIM_WRITE_BEHAVIOUR_INDEX=1 cargo test --test pure behaviour_places:\n{}",
        stale.len(),
        stale
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
