//! Power loss during writes, 1,000 times (issue 16's figure): this bench re-runs itself as a
//! writer of every kind of state file and SIGKILLs it at a random moment (15–75 ms in), then
//! counts the files that don't read back whole and the temporary files left behind.
//! Prints figures; asserts nothing.

use ollim_test_support as support;

use std::{path::Path, process::Command, time::Instant};

use ollim_bot::state::atomic::remove_stale_temp_files;
use support::power_loss::{WRITER, damaged_files, kill_a_writer, write_forever};

const KILLS: u32 = 1_000;

fn main() {
    if let Some(root) = std::env::var_os(WRITER) {
        write_forever(Path::new(&root));
        return;
    }
    let root = tempfile::tempdir().expect("temp dir");
    let exe = std::env::current_exe().expect("this bench's path");
    let started = Instant::now();
    let mut damaged_rounds = 0;
    for _ in 0..KILLS {
        kill_a_writer(Command::new(&exe), root.path());
        let damaged = damaged_files(root.path());
        if !damaged.is_empty() {
            damaged_rounds += 1;
            eprintln!("{damaged:#?}");
        }
    }
    let elapsed = started.elapsed();
    let history = std::fs::read_to_string(root.path().join("state/session_history.jsonl"))
        .unwrap_or_default()
        .lines()
        .count();
    let leftovers: usize = ["state", "reminders"]
        .iter()
        .map(|dir| remove_stale_temp_files(&root.path().join(dir), std::time::Duration::ZERO))
        .sum();
    println!(
        "power loss: {KILLS} SIGKILLs of a writer of every state file, 15-75 ms into each run"
    );
    println!("  kills after which a file did not read back whole: {damaged_rounds}");
    println!("  session history lines written in between:        {history}");
    println!("  temporary files left (cleared at start-up):       {leftovers}");
    println!("  wall time: {:.1} s", elapsed.as_secs_f64());
}
