//! Folders on disk: slug naming, writing, removing and the git commits (loading is in
//! `load_tests`); the fixtures both use.

use std::fs;
use std::path::Path;
use std::process::Command;

use chrono_tz::Tz;

use super::*;
use crate::domain::job_options::{BgSession, RunMode};
use crate::state::git::init_repo;
use crate::state::paths::DataDir;

pub(super) const TZ: Tz = chrono_tz::America::Los_Angeles;

pub(super) fn data_dir() -> (tempfile::TempDir, DataDir) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = DataDir::new(tmp.path());
    (tmp, dir)
}

pub(super) fn put(dir: &DataDir, rel: &str, text: &str) {
    let path = dir.root().join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

pub(super) fn names(dir: &DataDir, folder: &str) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir.root().join(folder))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

pub(super) fn routine(id: &str, message: &str) -> Routine {
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
    let mut reminder = Reminder::new_in(5, "!!! ???", chrono::Utc::now().with_timezone(&TZ));
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
    let reminder = Reminder::new_in(5, "Ping", chrono::Utc::now().with_timezone(&TZ));
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
    let mut deep = Reminder::new_in(5, "x", chrono::Utc::now().with_timezone(&TZ));
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

/// REM-15: who set each file of an id, read from the frontmatter alone.
#[test]
fn setters_are_read_per_file_of_the_id() {
    let (_tmp, dir) = data_dir();
    put(
        &dir,
        "reminders/a.md",
        "---\nid: \"x\"\nrun-at: \"2026-01-01T00:00:00Z\"\n---\nA\n",
    );
    // No run-at: the scheduler skips it, but who set it still reads.
    put(
        &dir,
        "reminders/b.md",
        "---\nid: \"x\"\nset-by: \"routine:r\"\ngeneration: 1\n---\nB\n",
    );
    put(
        &dir,
        "reminders/c.md",
        "---\nid: \"x\"\nset-by: \"routine:r\"\n---\nC\n",
    );
    let by_run = SetBy::Background {
        job: "routine:r".into(),
        generation: 1,
    };
    assert_eq!(
        reminder_setters(&dir, "x").unwrap(),
        [Some(SetBy::Owner), Some(by_run), None]
    );
    assert!(reminder_setters(&dir, "nope").unwrap().is_empty());
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
    let reminder = Reminder::new_in(10, "Stretch", chrono::Utc::now().with_timezone(&TZ));
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
