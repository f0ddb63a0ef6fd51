//! The import layering of `src/` (issue 25 §1), checked against the one place it is written:
//! the diagram under "## Layers" in `docs/architecture.md`. Each line there that starts with
//! module names (in its first 30 columns) opens a layer; layers run from the top (`app`) down.
//! A top-level module may use modules of lower layers, and of its own layer as long as the
//! two don't use each other; every top-level module must appear in the diagram. Test code
//! (`#[cfg(test)]` modules, `*tests.rs` files, `fake.rs`) is not counted.

use std::{
    collections::{BTreeMap, BTreeSet},
    path::{Path, PathBuf},
};

use crate::source_tree::{repo, rust_files};

/// Where module names end and the description starts on a diagram line.
const NAME_COLUMNS: usize = 30;

/// The layers of the diagram, top first.
fn layers(architecture: &str) -> Vec<Vec<String>> {
    let section = architecture
        .split("## Layers")
        .nth(1)
        .expect("docs/architecture.md has a \"## Layers\" section");
    let block = section
        .split("```")
        .nth(1)
        .expect("the Layers section has a diagram in a ``` block");
    block
        .lines()
        .filter_map(|line| {
            let names: String = line.chars().take(NAME_COLUMNS).collect();
            let names: Vec<String> = names.split_whitespace().map(str::to_owned).collect();
            (!names.is_empty()).then_some(names)
        })
        .collect()
}

/// The top-level modules: each folder or `.rs` file in `src/` but `lib.rs` and `main.rs`.
fn top_level_modules(src: &Path) -> BTreeSet<String> {
    std::fs::read_dir(src)
        .expect("src/ lists")
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            if entry.path().is_dir() {
                Some(name)
            } else {
                let stem = name.strip_suffix(".rs")?;
                (stem != "lib" && stem != "main").then(|| stem.to_owned())
            }
        })
        .collect()
}

/// The non-test `.rs` files of a top-level module.
pub(crate) fn module_files(src: &Path, module: &str) -> Vec<PathBuf> {
    let file = src.join(format!("{module}.rs"));
    let mut files = if file.is_file() {
        vec![file]
    } else {
        Vec::new()
    };
    rust_files(&src.join(module), &mut files);
    files.retain(|path| {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        !name.ends_with("tests.rs") && name != "fake.rs"
    });
    files.sort();
    files
}

/// `text` with comments and `#[cfg(test)] mod … { … }` blocks blanked out (newlines kept, so
/// byte offsets still give line numbers).
pub(crate) fn code_only(text: &str) -> Vec<u8> {
    let mut bytes = text.as_bytes().to_vec();
    let blank = |bytes: &mut Vec<u8>, from: usize, to: usize| {
        for byte in &mut bytes[from..to] {
            if *byte != b'\n' {
                *byte = b' ';
            }
        }
    };
    let mut at = 0;
    while let Some(found) = text[at..].find("//") {
        let start = at + found;
        let end = text[start..].find('\n').map_or(text.len(), |n| start + n);
        blank(&mut bytes, start, end);
        at = end;
    }
    let cleaned = String::from_utf8_lossy(&bytes).into_owned();
    let mut at = 0;
    while let Some(found) = cleaned[at..].find("#[cfg(test)]") {
        let start = at + found;
        let after = &cleaned[start..];
        let Some(open) = after.find('{') else { break };
        let header = &after[..open];
        if !header.contains("mod ") || header.contains(';') {
            at = start + "#[cfg(test)]".len();
            continue;
        }
        let mut depth = 0usize;
        let mut end = start + open;
        for (offset, byte) in cleaned.as_bytes()[start + open..].iter().enumerate() {
            match byte {
                b'{' => depth += 1,
                b'}' => depth -= 1,
                _ => {}
            }
            if depth == 0 {
                end = start + open + offset + 1;
                break;
            }
        }
        blank(&mut bytes, start, end);
        at = end;
    }
    bytes
}

/// The top-level modules `code` names through `crate::`, with the byte offset of each use;
/// `use crate::{a, b::c}` groups count each name.
fn crate_uses(code: &[u8]) -> Vec<(String, usize)> {
    let text = String::from_utf8_lossy(code);
    let ident = |rest: &str| -> String {
        rest.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut uses = Vec::new();
    for (at, _) in text.match_indices("crate::") {
        let before = text[..at].chars().next_back();
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$') {
            continue;
        }
        let rest = &text[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 1usize;
            let mut start_of_item = true;
            for (offset, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    ',' if depth == 1 => start_of_item = true,
                    c if start_of_item && depth == 1 && !c.is_whitespace() => {
                        start_of_item = false;
                        let name = ident(&group[offset..]);
                        if !name.is_empty() {
                            uses.push((name, at));
                        }
                    }
                    _ => {}
                }
            }
        } else {
            let name = ident(rest);
            if !name.is_empty() {
                uses.push((name, at));
            }
        }
    }
    uses
}

/// Every use of another top-level module: (from, to) → the `file:line`s that make it.
fn edges(src: &Path, modules: &BTreeSet<String>) -> BTreeMap<(String, String), Vec<String>> {
    let mut edges: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    for module in modules {
        for file in module_files(src, module) {
            let text = std::fs::read_to_string(&file).expect("a source file reads");
            let code = code_only(&text);
            for (used, at) in crate_uses(&code) {
                if &used == module || !modules.contains(&used) {
                    continue;
                }
                let line = text[..at].matches('\n').count() + 1;
                let shown = file.strip_prefix(repo()).unwrap_or(&file).display();
                edges
                    .entry((module.clone(), used))
                    .or_default()
                    .push(format!("{shown}:{line}"));
            }
        }
    }
    edges
}

#[test]
fn imports_point_down_the_layers_docs_architecture_md_draws() {
    let architecture = std::fs::read_to_string(repo().join("docs/architecture.md")).unwrap();
    let layers = layers(&architecture);
    let src = repo().join("src");
    let modules = top_level_modules(&src);
    // Layer numbers count up from the bottom.
    let layer_of: BTreeMap<&str, usize> = layers
        .iter()
        .rev()
        .enumerate()
        .flat_map(|(level, names)| names.iter().map(move |name| (name.as_str(), level)))
        .collect();
    let missing: Vec<&String> = modules
        .iter()
        .filter(|module| !layer_of.contains_key(module.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "top-level modules missing from the Layers diagram in docs/architecture.md: {missing:?}"
    );
    let edges = edges(&src, &modules);
    let mut wrong = Vec::new();
    for ((from, to), places) in &edges {
        let (up, down) = (layer_of[from.as_str()], layer_of[to.as_str()]);
        let mutual = edges.contains_key(&(to.clone(), from.clone()));
        let places = places.join(", ");
        if down > up {
            wrong.push(format!(
                "{from} uses {to}, a layer above it in the diagram: {places}"
            ));
        } else if down == up && mutual {
            wrong.push(format!(
                "{from} uses {to}, which shares its layer and uses it back: {places}"
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "imports against the layers:\n{}",
        wrong.join("\n")
    );
    assert!(
        edges.len() > 50,
        "the scan found the imports: {}",
        edges.len()
    );
}

#[test]
fn the_scan_reads_groups_paths_and_skips_test_code() {
    let text = "use crate::{a, b::{c, d}, e::f};\nfn x() { crate::g::h(); }\n\
                // crate::comment\n#[cfg(test)]\nmod tests {\n    use crate::t;\n}\n";
    let names: Vec<String> = crate_uses(&code_only(text))
        .into_iter()
        .map(|(name, _)| name)
        .collect();
    assert_eq!(names, ["a", "b", "e", "g"]);
    let row = |names: &str, text: &str| format!("{names:<NAME_COLUMNS$}{text}\n");
    let diagram = format!(
        "## Layers\n\n```\n{}{}{}```\n",
        row(" app", "top"),
        row("", "more of it"),
        row(" b  c", "below")
    );
    assert_eq!(layers(&diagram), [vec!["app"], vec!["b", "c"]]);
}
