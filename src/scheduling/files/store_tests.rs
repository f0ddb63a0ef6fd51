//! Folders on disk: loading, slug naming, writing, removing and the git commits.

use std::fs;
use std::path::Path;
use std::process::Command;

use chrono_tz::Tz;

use super::*;
use crate::domain::job_options::{BgSession, RunMode, ToolRestriction, UpdateMode};
use crate::state::git::init_repo;
use crate::state::paths::DataDir;

const TZ: Tz = chrono_tz::America::Los_Angeles;

fn data_dir() -> (tempfile::TempDir, DataDir) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = DataDir::new(tmp.path());
    (tmp, dir)
}

fn put(dir: &DataDir, rel: &str, text: &str) {
    let path = dir.root().join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn names(dir: &DataDir, folder: &str) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir.root().join(folder))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn routine(id: &str, message: &str) -> Routine {
    let mut routine = Routine::new("0 9 * * *", message);
    routine.id = id.into();
    routine
}

fn git_log(root: &Path) -> String {
    let out = Command::new("git")
        .args(["log", "--format=%s", "--name-status"])
        .current_dir(root)
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn slugs() {
    assert_eq!(slugify("Check the CI status!"), "check-the-ci-status");
    assert_eq!(slugify("  --Hello,   World--  "), "hello-world");
    assert_eq!(slugify("Déjà vu 2x"), "d-j-vu-2x");
    assert_eq!(slugify("日本語"), "");
    assert_eq!(slugify("!!!"), "");
    assert_eq!(slugify("/focus"), "focus");
    let long = "a".repeat(49) + " b";
    assert_eq!(slugify(&long), "a".repeat(49));
    assert_eq!(slugify(&"x".repeat(80)).len(), 50);
}

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
        [("routines/a-good.md", "a"), ("routines/d-good.md", "7")]
    );
    let reasons: Vec<(String, String)> = problems
        .into_iter()
        .map(|p| (p.path.display().to_string(), p.reason))
        .collect();
    assert_eq!(reasons.len(), 5, "{reasons:#?}");
    assert_eq!(reasons[0].0, "routines/b-no-cron.md");
    assert_eq!(reasons[0].1, "missing required field \"cron\"");
    assert_eq!(reasons[1].0, "routines/c-bad-yaml.md");
    assert!(reasons[1].1.contains("not valid YAML"));
    assert_eq!(reasons[2].0, "routines/e-dup.md");
    assert!(reasons[2].1.contains("duplicate id \"a\""));
    assert!(reasons[2].1.contains("routines/a-good.md"));
    assert_eq!(reasons[3].0, "routines/f-plain.md");
    assert!(reasons[3].1.contains("no YAML frontmatter"));
    assert_eq!(reasons[4].0, "routines/g-binary.md");
    assert!(reasons[4].1.contains("UTF-8"));
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
fn write_names_files_by_slug_with_suffixes() {
    let (_tmp, dir) = data_dir();
    let first = write_routine(&dir, &routine("r1", "Plan the day!"), Commit::Skip).unwrap();
    assert_eq!(first, Path::new("routines/plan-the-day.md"));
    let second = write_routine(&dir, &routine("r2", "plan the day"), Commit::Skip).unwrap();
    assert_eq!(second, Path::new("routines/plan-the-day-2.md"));
    let third = write_routine(&dir, &routine("r3", "Plan: the day."), Commit::Skip).unwrap();
    assert_eq!(third, Path::new("routines/plan-the-day-3.md"));
    // Same id: overwritten in place, even with a changed message.
    let mut edited = routine("r2", "plan the day");
    edited.cron = "30 8 * * *".into();
    assert_eq!(write_routine(&dir, &edited, Commit::Skip).unwrap(), second);
    edited.message = "Something else entirely".into();
    assert_eq!(write_routine(&dir, &edited, Commit::Skip).unwrap(), second);
    assert_eq!(
        names(&dir, "routines"),
        ["plan-the-day-2.md", "plan-the-day-3.md", "plan-the-day.md"]
    );
    let (routines, problems) = load_routines(&dir);
    assert!(problems.is_empty());
    let found = routines.iter().find(|f| f.item.id == "r2").unwrap();
    assert_eq!(found.item, edited);
    assert_eq!(found.path, second);
}

#[test]
fn empty_slug_falls_back_to_the_id() {
    let (_tmp, dir) = data_dir();
    let mut reminder = Reminder::new_in(5, "!!! ???", TZ);
    reminder.id = "ab12cd34".into();
    assert_eq!(
        write_reminder(&dir, &reminder, Commit::Skip).unwrap(),
        Path::new("reminders/ab12cd34.md")
    );
    reminder.id = "日本".into();
    assert_eq!(
        write_reminder(&dir, &reminder, Commit::Skip).unwrap(),
        Path::new("reminders/reminder.md")
    );
}

#[test]
fn names_taken_by_other_or_broken_files_are_skipped() {
    let (_tmp, dir) = data_dir();
    put(&dir, "reminders/ping.md", "not a job file");
    fs::create_dir_all(dir.root().join("reminders/ping-2.md")).unwrap();
    let reminder = Reminder::new_in(5, "Ping", TZ);
    assert_eq!(
        write_reminder(&dir, &reminder, Commit::Skip).unwrap(),
        Path::new("reminders/ping-3.md")
    );
    assert_eq!(
        fs::read_to_string(dir.root().join("reminders/ping.md")).unwrap(),
        "not a job file"
    );
}

#[test]
fn invalid_items_are_refused_and_nothing_is_written() {
    let (_tmp, dir) = data_dir();
    // A persistent routine's id names its session file (PRS-1).
    let mut persistent = routine("../r1", "x");
    persistent.run = RunMode::Background(BgSession::Persistent);
    let err = write_routine(&dir, &persistent, Commit::Skip).unwrap_err();
    assert!(
        matches!(
            err,
            FilesError::Invalid {
                kind: "routine",
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("ASCII letters"), "{err}");
    let mut deep = Reminder::new_in(5, "x", TZ);
    deep.chain_depth = 2;
    deep.max_chain = 1;
    assert!(write_reminder(&dir, &deep, Commit::Skip).is_err());
    let empty = routine("r2", "   ");
    assert!(write_routine(&dir, &empty, Commit::Skip).is_err());
    let mut cron = routine("r3", "x");
    cron.cron = "daily".into();
    assert!(write_routine(&dir, &cron, Commit::Skip).is_err());
    assert!(!dir.root().join("routines").join("x.md").exists());
    assert!(!dir.root().join("reminders").join("x.md").exists());
}

#[test]
fn remove_matches_the_yaml_id_not_the_name() {
    let (_tmp, dir) = data_dir();
    put(
        &dir,
        "reminders/a.md",
        "---\nid: \"keep\"\nrun-at: \"2026-01-01T00:00:00Z\"\n---\nA\n",
    );
    put(
        &dir,
        "reminders/b.md",
        "---\nid: 123\nrun-at: \"2026-01-01T00:00:00Z\"\n---\nB\n",
    );
    // Invalid as a reminder (no run-at) but its id can still be cancelled.
    put(&dir, "reminders/c.md", "---\nid: \"broken\"\n---\nC\n");
    put(&dir, "reminders/123.md", "no frontmatter");
    assert!(remove_reminder(&dir, "123", Commit::Skip).unwrap());
    assert!(remove_reminder(&dir, "broken", Commit::Skip).unwrap());
    assert!(!remove_reminder(&dir, "nope", Commit::Skip).unwrap());
    assert_eq!(names(&dir, "reminders"), ["123.md", "a.md"]);
}

#[test]
fn remove_deletes_every_duplicate() {
    let (_tmp, dir) = data_dir();
    put(
        &dir,
        "routines/a.md",
        "---\nid: \"d\"\ncron: \"0 9 * * *\"\n---\nA\n",
    );
    put(
        &dir,
        "routines/b.md",
        "---\nid: \"d\"\ncron: \"0 9 * * *\"\n---\nB\n",
    );
    assert!(remove_routine(&dir, "d", Commit::Skip).unwrap());
    assert!(names(&dir, "routines").is_empty());
}

#[test]
fn commit_now_records_add_and_remove() {
    let (_tmp, dir) = data_dir();
    assert!(init_repo(dir.root()).unwrap());
    let first = routine("r1", "Morning review");
    let rel = write_routine(&dir, &first, Commit::Now).unwrap();
    let reminder = Reminder::new_in(10, "Stretch", TZ);
    let rem_rel = write_reminder(&dir, &reminder, Commit::Now).unwrap();
    assert!(remove_routine(&dir, "r1", Commit::Now).unwrap());
    assert!(remove_reminder(&dir, &reminder.id, Commit::Now).unwrap());
    assert!(!dir.root().join(&rel).exists());
    assert_eq!(
        git_log(dir.root()),
        format!(
            "remove reminder {id}\n\nD\t{rem}\nremove routine r1\n\nD\t{rel}\n\
             add reminder {id}\n\nA\t{rem}\nadd routine r1\n\nA\t{rel}\n",
            id = reminder.id,
            rem = rem_rel.display(),
            rel = rel.display(),
        )
    );
}

#[tokio::test]
async fn commit_queued_goes_through_the_recorder() {
    let (_tmp, dir) = data_dir();
    assert!(init_repo(dir.root()).unwrap());
    let (recorder, worker) = crate::state::git::GitRecorder::spawn(dir.root().to_path_buf());
    let rel = write_routine(&dir, &routine("q1", "Queued"), Commit::Queued(&recorder)).unwrap();
    recorder.flush().await;
    assert!(remove_routine(&dir, "q1", Commit::Queued(&recorder)).unwrap());
    worker.shutdown().await;
    assert_eq!(
        git_log(dir.root()),
        format!(
            "remove routine q1\n\nD\t{rel}\nadd routine q1\n\nA\t{rel}\n",
            rel = rel.display()
        )
    );
}

#[test]
fn skip_and_no_repo_write_without_commits() {
    let (_tmp, dir) = data_dir();
    let rel = write_routine(&dir, &routine("n1", "No repo"), Commit::Now).unwrap();
    assert!(dir.root().join(rel).is_file());
    assert!(!dir.root().join(".git").exists());
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
