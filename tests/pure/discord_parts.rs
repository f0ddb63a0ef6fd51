//! The Discord front end's parts never use each other (issue 41 §2): each owns its state and
//! handlers and reaches what they share through `discord::reach`; what crosses parts is
//! decided by the router (`discord::dispatch`). A part is a module of `src/discord` with a
//! private `reach: Arc<Reach>` field (the router's own is `pub(crate)`); test code is not
//! counted, as in `layers.rs`.

use std::collections::BTreeSet;

use crate::{
    layers::{code_only, module_files},
    sibling_circles::edges_among,
    source_tree::repo,
};

#[test]
fn the_discord_parts_stand_alone() {
    let src = repo().join("src");
    let files = module_files(&src, "discord");
    let discord = src.join("discord");
    let parts: BTreeSet<String> = files
        .iter()
        .filter(|file| {
            let text = std::fs::read_to_string(file).expect("a source file reads");
            String::from_utf8_lossy(&code_only(&text))
                .lines()
                .any(|line| line.trim() == "reach: Arc<Reach>,")
        })
        .filter_map(|file| file.strip_prefix(&discord).ok()?.iter().next())
        .map(|first| first.to_string_lossy().trim_end_matches(".rs").to_owned())
        .collect();
    for part in [
        "conversations",
        "approvals",
        "google",
        "quiet",
        "nags",
        "home",
        "notices",
        "recall",
    ] {
        assert!(parts.contains(part), "{part} is a part: {parts:?}");
    }
    let edges = edges_among(&src, &["discord".to_owned()], &files, &parts);
    assert!(
        edges.is_empty(),
        "Discord parts that use one another (share through `reach`, decide in `dispatch`): \
         {edges:?}"
    );
}
