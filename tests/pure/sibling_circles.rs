//! No two folders side by side in `src/` use each other, directly or round a longer circle
//! (issue 41 §2): within `src/agent`, `client` may use `session` or the other way round, not
//! both. (Files of one folder may: they are often one type's parts.) Each use is read as a full path — `crate::a::b::c`, a
//! `crate::a::{b::c, d}` group, `super::…` resolved from the file's place — and counts for the
//! sibling it names. Test code is not counted, as in `layers.rs`.

use std::{
    collections::{BTreeMap, BTreeSet},
    path::{Path, PathBuf},
};

use crate::{
    layers::{code_only, module_files},
    source_tree::repo,
};

/// The module path of a source file under `src/`: `src/agent/client/main_client.rs` →
/// `agent::client::main_client`; a `mod.rs` names its folder.
fn module_path(src: &Path, file: &Path) -> Vec<String> {
    let relative = file.strip_prefix(src).unwrap_or(file);
    let mut parts: Vec<String> = relative
        .iter()
        .map(|part| part.to_string_lossy().into_owned())
        .collect();
    if let Some(last) = parts.pop() {
        let stem = last.trim_end_matches(".rs");
        if stem != "mod" {
            parts.push(stem.to_owned());
        }
    }
    parts
}

fn ident(text: &str) -> &str {
    let end = text
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    &text[..end]
}

/// Every path a use tree starting at `text` names (after `crate::` or `super::`), as segments:
/// `a::{b::c, d}` → `a::b::c`, `a::d`. Stops at the tree's end.
fn use_tree(text: &str, prefix: &[String], out: &mut Vec<Vec<String>>) -> usize {
    let mut path = prefix.to_vec();
    let mut at = 0;
    loop {
        let rest = &text[at..];
        if let Some(group) = rest.strip_prefix('{') {
            at += 1;
            let mut inner = 0;
            loop {
                let item = &group[inner..];
                let skipped = item.len() - item.trim_start().len();
                inner += skipped;
                if group[inner..].starts_with('}') {
                    return at + inner + 1;
                }
                inner += use_tree(&group[inner..], &path, out);
                let after = &group[inner..];
                let skipped = after.len() - after.trim_start().len();
                inner += skipped;
                if group[inner..].starts_with(',') {
                    inner += 1;
                } else if group[inner..].starts_with('}') {
                    return at + inner + 1;
                } else if inner >= group.len() {
                    return at + inner;
                }
            }
        }
        let name = ident(rest);
        if name.is_empty() {
            out.push(path);
            return at;
        }
        path.push(name.to_owned());
        at += name.len();
        if text[at..].starts_with("::") {
            at += 2;
        } else {
            out.push(path);
            return at;
        }
    }
}

/// The full paths `code` (of the file at module path `here`) names through `crate::` and
/// `super::`.
fn paths_used(code: &str, here: &[String], is_mod_rs: bool) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for keyword in ["crate::", "super::"] {
        for (at, _) in code.match_indices(keyword) {
            let before = code[..at].chars().next_back();
            if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let mut rest = &code[at + keyword.len()..];
            let prefix: Vec<String> = if keyword == "crate::" {
                Vec::new()
            } else {
                // `super` of a file is its folder's module; of a `mod.rs`, the folder's parent.
                let mut base = here.to_vec();
                base.pop();
                while let Some(more) = rest.strip_prefix("super::") {
                    base.pop();
                    rest = more;
                }
                if is_mod_rs {
                    base.pop();
                }
                base
            };
            use_tree(rest, &prefix, &mut out);
        }
    }
    out
}

/// The folders inside `folder` (a top-level module's, or one level down), by name.
fn siblings(folder: &Path) -> BTreeSet<String> {
    std::fs::read_dir(folder)
        .map(|entries| {
            entries
                .flatten()
                .filter(|entry| entry.path().is_dir())
                .filter_map(|entry| entry.file_name().into_string().ok())
                .collect()
        })
        .unwrap_or_default()
}

/// A circle in `edges`, if any, as the names round it.
fn circle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        stack: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = stack.iter().position(|n| n == node) {
            let mut round = stack[at..].to_vec();
            round.push(node.to_owned());
            return Some(round);
        }
        if done.contains(node) {
            return None;
        }
        stack.push(node.to_owned());
        for next in edges.get(node).into_iter().flatten() {
            if let Some(round) = visit(next, edges, stack, done) {
                return Some(round);
            }
        }
        stack.pop();
        done.insert(node.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    edges
        .keys()
        .find_map(|node| visit(node, edges, &mut Vec::new(), &mut done))
}

/// The uses between the child folders of the folder at module path `parent`, child →
/// children.
fn child_edges(
    src: &Path,
    parent: &[String],
    files: &[PathBuf],
) -> BTreeMap<String, BTreeSet<String>> {
    let folder = parent
        .iter()
        .fold(src.to_path_buf(), |path, part| path.join(part));
    edges_among(src, parent, files, &siblings(&folder))
}

/// The uses between `children` (modules of the folder at module path `parent`), child →
/// children.
pub(crate) fn edges_among(
    src: &Path,
    parent: &[String],
    files: &[PathBuf],
    children: &BTreeSet<String>,
) -> BTreeMap<String, BTreeSet<String>> {
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let here = module_path(src, file);
        let Some(child) = here.get(parent.len()).filter(|_| here.starts_with(parent)) else {
            continue;
        };
        let text = std::fs::read_to_string(file).expect("a source file reads");
        let code = String::from_utf8_lossy(&code_only(&text)).into_owned();
        let is_mod_rs = file.ends_with("mod.rs");
        for path in paths_used(&code, &here, is_mod_rs) {
            let Some(used) = path.get(parent.len()).filter(|_| path.starts_with(parent)) else {
                continue;
            };
            if used != child && children.contains(child) && children.contains(used) {
                edges.entry(child.clone()).or_default().insert(used.clone());
            }
        }
    }
    edges
}

#[test]
fn no_two_sibling_folders_use_each_other() {
    let src = repo().join("src");
    let mut circles = Vec::new();
    let mut pairs = 0;
    for entry in std::fs::read_dir(&src).expect("src/ lists").flatten() {
        if !entry.path().is_dir() {
            continue;
        }
        let top = entry.file_name().to_string_lossy().into_owned();
        let files = module_files(&src, &top);
        let mut parents = vec![vec![top.clone()]];
        for sub in std::fs::read_dir(entry.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            if sub.path().is_dir() {
                parents.push(vec![
                    top.clone(),
                    sub.file_name().to_string_lossy().into_owned(),
                ]);
            }
        }
        for parent in parents {
            let edges = child_edges(&src, &parent, &files);
            pairs += edges.values().map(BTreeSet::len).sum::<usize>();
            if let Some(round) = circle(&edges) {
                circles.push(format!("in {}: {}", parent.join("::"), round.join(" → ")));
            }
        }
    }
    assert!(
        circles.is_empty(),
        "sibling modules in a circle:\n{}",
        circles.join("\n")
    );
    assert!(pairs > 8, "the scan found the sibling uses: {pairs}");
}

#[test]
fn the_scan_reads_nested_groups_and_super() {
    let here = [
        "agent".to_owned(),
        "client".to_owned(),
        "main_client".to_owned(),
    ];
    let code =
        "use crate::agent::{x, session::{A, b::C}};\nuse super::super::turn::T;\nuse super::offer;";
    let paths: Vec<String> = paths_used(code, &here, false)
        .into_iter()
        .map(|path| path.join("::"))
        .collect();
    assert_eq!(
        paths,
        [
            "agent::x",
            "agent::session::A",
            "agent::session::b::C",
            "agent::turn::T",
            "agent::client::offer"
        ]
    );
    let edges: BTreeMap<String, BTreeSet<String>> = [
        ("a".to_owned(), BTreeSet::from(["b".to_owned()])),
        ("b".to_owned(), BTreeSet::from(["c".to_owned()])),
        ("c".to_owned(), BTreeSet::from(["a".to_owned()])),
    ]
    .into();
    assert_eq!(circle(&edges).unwrap(), ["a", "b", "c", "a"]);
}
