//! Power loss during writes (issue 16), shared by `tests/power_loss.rs` and
//! `benches/power_loss.rs`: a writer that touches every kind of state file in a loop (run in
//! a child process that is killed with SIGKILL), and the check that every file reads back whole.

use std::{
    path::Path,
    process::{Command, Stdio},
    time::{Duration, SystemTime, UNIX_EPOCH},
};

use ollim_bot::{
    claude::SessionId,
    scheduling::files::{Commit, Reminder, load_reminders, write_reminder},
    state::{
        fork_messages::{ForkMessageStore, RecordedSession, SessionOrigin},
        history::SessionHistory,
        inquiries::InquiryStore,
        paths::DataDir,
        pending::PendingUpdates,
        ping_budget::PingBudget,
        sessions::SessionStore,
    },
};

/// Set in the child: the data dir to write into.
pub const WRITER: &str = "OLLIM_POWER_LOSS_WRITER";

/// Writes every kind of state file into `root` until killed.
pub fn write_forever(root: &Path) {
    let data_dir = DataDir::new(root);
    let tz = chrono_tz::UTC;
    let sessions = SessionStore::new(&data_dir, SessionHistory::new(&data_dir, tz, None));
    let pending = PendingUpdates::new(&data_dir, tz);
    let budget = PingBudget::new(&data_dir, tz);
    let inquiries = InquiryStore::new(data_dir.inquiries_file());
    let forks = ForkMessageStore::new(&data_dir);
    for i in 0u64.. {
        let id = SessionId::parse(&format!("0000{i:04x}-aaaa-bbbb-cccc-dddddddddddd")).unwrap();
        sessions.save(&id).unwrap();
        pending
            .append(&format!("update {i} {}", "x".repeat(200)))
            .unwrap();
        if i % 20 == 0 {
            pending.pop().unwrap();
        }
        let _ = budget.try_spend().unwrap();
        budget
            .configure(Some(5 + (i % 3) as u32), Some(90))
            .unwrap();
        inquiries.register(&format!("prompt {i}")).unwrap();
        let session = RecordedSession {
            id: id.as_str(),
            parent: None,
            origin: &SessionOrigin::Owner,
        };
        forks.record(&[i + 1], &session).unwrap();
        let reminder = Reminder::new_in(
            60,
            format!("reminder {i}"),
            chrono::Utc::now().with_timezone(&tz),
        );
        write_reminder(&data_dir, &reminder, Commit::Skip).unwrap();
    }
}

/// Runs `command` (this executable in writer mode) and kills it with SIGKILL after 15–75 ms.
pub fn kill_a_writer(mut command: Command, root: &Path) {
    let mut child = command
        .env(WRITER, root)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(random_delay());
    child.kill().unwrap();
    let status = child.wait().unwrap();
    assert!(!status.success(), "the writer ended by itself: {status:?}");
}

/// The state files under `root` that don't read back whole, each with what is wrong (empty:
/// all good).
pub fn damaged_files(root: &Path) -> Vec<String> {
    let state = root.join("state");
    let mut damaged = Vec::new();
    for name in [
        "pending_updates.json",
        "ping_budget.json",
        "inquiries.json",
        "fork_messages.json",
    ] {
        if let Ok(bytes) = std::fs::read(state.join(name))
            && serde_json::from_slice::<serde_json::Value>(&bytes).is_err()
        {
            damaged.push(format!("{name} is half-written: {bytes:?}"));
        }
    }
    if let Ok(id) = std::fs::read_to_string(state.join("sessions.json"))
        && SessionId::parse(id.trim()).is_err()
    {
        damaged.push(format!("sessions.json is half-written: {id:?}"));
    }
    if let Ok(history) = std::fs::read_to_string(state.join("session_history.jsonl")) {
        if !history.is_empty() && !history.ends_with('\n') {
            damaged.push("a history line was cut".to_owned());
        }
        for line in history.lines() {
            if serde_json::from_str::<serde_json::Value>(line).is_err() {
                damaged.push(format!("broken history line {line:?}"));
            }
        }
    }
    let (_, problems) = load_reminders(&DataDir::new(root), chrono_tz::UTC);
    damaged.extend(problems.iter().map(|problem| format!("{problem:?}")));
    let set_aside = std::fs::read_dir(&state)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|entry| entry.file_name().to_string_lossy().contains(".corrupt-"))
        .count();
    if set_aside > 0 {
        damaged.push(format!("{set_aside} file(s) set aside as unreadable"));
    }
    damaged
}

/// A pseudo-random delay from the clock's nanoseconds: 15–75 ms.
fn random_delay() -> Duration {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |t| t.subsec_nanos());
    Duration::from_millis(15 + u64::from(nanos % 60))
}
