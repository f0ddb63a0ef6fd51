//! Loading the job folders: broken files, files written by the original, the parse cache and
//! loads of only the changed files.

use std::fs;
use std::path::Path;

use super::store_tests::{TZ, data_dir, put, routine};
use super::*;
use crate::domain::job_options::{BgSession, RunMode, ToolRestriction, UpdateMode};
use crate::state::paths::DataDir;
#[test]
fn missing_folders_are_empty() {
    let (_tmp, dir) = data_dir();
    assert_eq!(load_routines(&dir), (Vec::new(), Vec::new()));
    assert_eq!(load_reminders(&dir, TZ), (Vec::new(), Vec::new()));
    assert!(!remove_routine(&dir, "x", Commit::Skip).unwrap());
}

#[test]
fn bad_files_are_problems_and_do_not_stop_the_others() {
    let (_tmp, dir) = data_dir();
    put(
        &dir,
        "routines/a-good.md",
        "---\nid: \"a\"\ncron: \"0 9 * * *\"\n---\nA\n",
    );
    put(&dir, "routines/b-no-cron.md", "---\nid: \"b\"\n---\nB\n");
    put(&dir, "routines/c-bad-yaml.md", "---\nid: [\n---\nC\n");
    put(
        &dir,
        "routines/d-good.md",
        "---\nid: 7\ncron: \"0 10 * * *\"\n---\nD\n",
    );
    put(
        &dir,
        "routines/e-dup.md",
        "---\nid: \"a\"\ncron: \"0 11 * * *\"\n---\nE\n",
    );
    put(&dir, "routines/f-plain.md", "just text\n");
    put(&dir, "routines/notes.txt", "---\nid: x\n---\nignored\n");
    fs::create_dir_all(dir.root().join("routines/folder.md")).unwrap();
    fs::write(dir.root().join("routines/g-binary.md"), [0xff, 0xfe, 0x00]).unwrap();

    let (routines, problems) = load_routines(&dir);
    let loaded: Vec<(&str, &str)> = routines
        .iter()
        .map(|f| (f.path.to_str().unwrap(), f.item.id.as_str()))
        .collect();
    assert_eq!(
        loaded,
        [("routines/d-good.md", "7")],
        "no file of a duplicated id runs"
    );
    let reasons: Vec<(String, String)> = problems
        .into_iter()
        .map(|p| (p.path.display().to_string(), p.reason))
        .collect();
    assert_eq!(reasons.len(), 6, "{reasons:#?}");
    assert_eq!(reasons[0].0, "routines/a-good.md");
    assert!(
        reasons[0]
            .1
            .contains("duplicate id \"a\" (also used by routines/e-dup.md)")
    );
    assert_eq!(reasons[1].0, "routines/b-no-cron.md");
    assert_eq!(reasons[1].1, "missing required field \"cron\"");
    assert_eq!(reasons[2].0, "routines/c-bad-yaml.md");
    assert!(reasons[2].1.contains("not valid YAML"));
    assert_eq!(reasons[3].0, "routines/e-dup.md");
    assert!(reasons[3].1.contains("duplicate id \"a\""));
    assert!(reasons[3].1.contains("routines/a-good.md"));
    assert_eq!(reasons[4].0, "routines/f-plain.md");
    assert!(reasons[4].1.contains("no YAML frontmatter"));
    assert_eq!(reasons[5].0, "routines/g-binary.md");
    assert!(reasons[5].1.contains("UTF-8"));
}

#[test]
fn python_written_files_load() {
    let (_tmp, dir) = data_dir();
    // Shapes the original bot wrote: kebab keys in dataclass order, every string quoted,
    // isoformat run-at with microseconds, block lists, and `.md` for an empty slug.
    put(
        &dir,
        "reminders/check-the-ci-status.md",
        "---\nid: \"0a1b2c3d\"\nrun-at: \"2026-02-24T13:00:00.482913-08:00\"\nbackground: true\n\
         max-chain: 2\nchain-parent: \"0a1b2c3d\"\nthinking: false\ndescription: \"CI check\"\n\
         update-main-session: \"always\"\nallow-ping: false\nallowed-tools:\n  - \"Bash(gh run *)\"\n\
         skills:\n  - \"ci\"\n---\nCheck the CI status.\n",
    );
    put(
        &dir,
        "reminders/.md",
        "---\nid: \"deadbeef\"\nrun-at: \"2026-02-24T14:00:00-08:00\"\n---\n!!!\n",
    );
    put(
        &dir,
        "routines/morning-review.md",
        "---\nid: \"12345678\"\ncron: \"0 9 * * 1-5\"\nbackground: true\nmodel: \"sonnet\"\n\
         isolated: true\ndescription: \"Morning review\"\n---\nReview my tasks.\n",
    );
    let (reminders, problems) = load_reminders(&dir, TZ);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(reminders.len(), 2);
    assert_eq!(reminders[0].path, Path::new("reminders/.md"));
    let ci = &reminders[1].item;
    assert_eq!(ci.id, "0a1b2c3d");
    assert_eq!(ci.run_at.timestamp_subsec_micros(), 482_913);
    assert_eq!((ci.max_chain, ci.chain_depth), (2, 0));
    assert_eq!(
        ci.options.tools,
        ToolRestriction::Allowed(vec!["Bash(gh run *)".to_owned()])
    );
    assert!(!ci.options.thinking && !ci.options.allow_ping);
    assert_eq!(ci.run, RunMode::Background(BgSession::Forked));
    assert_eq!(ci.options.update_mode, UpdateMode::Always);
    let (routines, problems) = load_routines(&dir);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(routines[0].item.id, "12345678");
    assert_eq!(
        routines[0].item.run,
        RunMode::Background(BgSession::Isolated)
    );
    assert_eq!(routines[0].item.options.model.as_deref(), Some("sonnet"));
}

#[test]
fn the_load_cache_reparses_only_changed_files() {
    let dir = tempfile::tempdir().unwrap();
    let data_dir = DataDir::new(dir.path());
    let routine = Routine::new("0 9 * * *", "Plan the day");
    let rel = write_routine(&data_dir, &routine, Commit::Skip).unwrap();
    let mut cache = LoadCache::default();
    let (first, _) = load_routines_cached(&data_dir, &mut cache);
    assert_eq!(first[0].item, routine);
    let path = data_dir.root().join(&rel);
    let edited = std::fs::read_to_string(&path)
        .unwrap()
        .replace("Plan the day", "Plan the whole week");
    std::fs::write(&path, edited).unwrap();
    let (second, _) = load_routines_cached(&data_dir, &mut cache);
    assert_eq!(second[0].item.message, "Plan the whole week");
    std::fs::write(&path, "no frontmatter at all").unwrap();
    let (items, problems) = load_routines_cached(&data_dir, &mut cache);
    assert!(items.is_empty());
    assert_eq!(problems.len(), 1);
    std::fs::remove_file(&path).unwrap();
    let (items, problems) = load_routines_cached(&data_dir, &mut cache);
    assert!(items.is_empty() && problems.is_empty());
}

#[test]
fn a_changes_load_reads_only_the_files_named() {
    let dir = tempfile::tempdir().unwrap();
    let data_dir = DataDir::new(dir.path());
    let kept = write_routine(&data_dir, &routine("kept", "Stays"), Commit::Skip).unwrap();
    let mut cache = LoadCache::default();
    let (first, _) = load_routines_cached(&data_dir, &mut cache);
    assert_eq!(first.len(), 1);
    // An edit nobody reported is not seen by a changes load (the full read catches it)…
    let path = data_dir.root().join(&kept);
    let edited = fs::read_to_string(&path)
        .unwrap()
        .replace("Stays", "Edited");
    fs::write(&path, edited).unwrap();
    let added = write_routine(&data_dir, &routine("added", "New"), Commit::Skip).unwrap();
    put(&data_dir, "routines/broken.md", "no frontmatter at all");
    let changed: std::collections::BTreeSet<_> = [
        added.clone(),
        "routines/broken.md".into(),
        "reminders/elsewhere.md".into(),
    ]
    .into();
    let (items, problems) = load_routines_changed(&data_dir, &mut cache, &changed);
    let ids: Vec<&str> = items.iter().map(|f| f.item.id.as_str()).collect();
    assert_eq!(ids, ["added", "kept"], "file-name order");
    assert_eq!(items[1].item.message, "Stays");
    assert_eq!(problems.len(), 1, "{problems:?}");
    // …and a removal named by an event drops the job.
    fs::remove_file(data_dir.root().join(&added)).unwrap();
    let (items, _) = load_routines_changed(&data_dir, &mut cache, &[added].into());
    assert_eq!(items.len(), 1);
    let (items, _) = load_routines_cached(&data_dir, &mut cache);
    assert_eq!(items[0].item.message, "Edited");
}
