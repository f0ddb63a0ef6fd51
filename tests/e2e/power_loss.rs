//! Power loss during writes (issue 16): a child process — this test binary run again in
//! writer mode — writes every kind of state file in a loop (session id and its history,
//! pending updates, the ping budget, fork records, inquiries, reminders) while the test kills
//! it with SIGKILL at random moments, 300 times. After every kill each file parses, none is
//! half-written, and every history line is whole; the temporary files the kills leave are
//! what start-up clears. `cargo bench --bench power_loss` does 1,000 kills and prints counts.

use crate::support;

use std::{path::Path, process::Command, time::Duration};

use ollim_bot::state::atomic::remove_stale_temp_files;
use support::power_loss::{WRITER, damaged_files, kill_a_writer, write_forever};

const KILLS: u32 = 300;

/// Writer mode: loops until killed. In a normal test run it returns at once.
#[test]
fn writer() {
    if let Some(root) = std::env::var_os(WRITER) {
        write_forever(Path::new(&root));
    }
}

#[test]
fn state_files_survive_kill_9_at_random_moments() {
    if std::env::var_os(WRITER).is_some() {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let exe = std::env::current_exe().unwrap();
    for round in 0..KILLS {
        let mut command = Command::new(&exe);
        command.args([
            "--exact",
            "power_loss::writer",
            "--test-threads=1",
            "--quiet",
        ]);
        kill_a_writer(command, root.path());
        let damaged = damaged_files(root.path());
        assert!(damaged.is_empty(), "after kill {round}: {damaged:#?}");
    }
    let history = std::fs::read_to_string(root.path().join("state/session_history.jsonl"))
        .unwrap_or_default();
    assert!(
        history.lines().count() > 100,
        "the writer got work done between kills"
    );
    let leftovers = |min_age: Duration| -> usize {
        ["state", "reminders"]
            .iter()
            .map(|dir| remove_stale_temp_files(&root.path().join(dir), min_age))
            .sum()
    };
    assert_eq!(
        leftovers(Duration::from_secs(3600)),
        0,
        "fresh ones are kept"
    );
    let cleared = leftovers(Duration::ZERO);
    eprintln!("{KILLS} kills left {cleared} temporary files, all cleared");
    assert!(damaged_files(root.path()).is_empty());
}
