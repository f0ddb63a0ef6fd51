//! Every store under each fault a disk can hand it (issue 40 §1): a directory where its file
//! should be (a file that can't be read), a damaged file, a write cut off by power loss, a
//! full disk. Each case goes through the store's own methods; after each, nothing is lost
//! (the bytes on disk are what they were, or set aside whole), the store keeps answering, and
//! the owner is told once. A malformed entry among good ones is in `state_file_tests` (lists
//! and maps keep it) and here for the stores that set the file aside whole.

use std::path::Path;

use chrono::{TimeZone, Utc};

use super::state_files;
use crate::{
    claude::SessionId,
    config::RuntimeConfig,
    domain::{nag::NagPolicy, open_nag::OpenNag},
    google::files::{GoogleFiles, StoredToken},
    state::{
        StateError,
        atomic::{TEMP_PREFIX, remove_stale_temp_files},
        cli_homes::CliHomeBook,
        content_approvals::ContentApprovals,
        fork_messages::{ForkMessageStore, RecordedSession, SessionOrigin},
        held_webhooks::{HeldRequest, HeldWebhooks, HoldCause},
        history::SessionHistory,
        inquiries::InquiryStore,
        inspection::{Health, inspect},
        nags::NagStore,
        paths::DataDir,
        pending::PendingUpdates,
        ping_budget::PingBudget,
        quiet::QuietStore,
        sessions::SessionStore,
        set_aside::{Trouble, pending_notices},
        tool_approvals::ToolApprovals,
        untrusted_sessions::UntrustedSessions,
    },
};

/// One store: its file under `state/`, and one change made through it.
struct Case {
    file: &'static str,
    change: fn(&DataDir) -> Result<(), StateError>,
}

fn state(data: &DataDir, name: &str) -> std::path::PathBuf {
    data.state_dir().join(name)
}

const CASES: &[Case] = &[
    Case {
        file: "sessions.json",
        change: |d| {
            let history = SessionHistory::new(d, chrono_tz::UTC, None);
            let id = SessionId::parse("2f1c7a8e-55b1-4d3c-9e0a-1b2c3d4e5f60").unwrap();
            SessionStore::new(d, history).save(&id).map(drop)
        },
    },
    Case {
        file: "pending_updates.json",
        change: |d| PendingUpdates::new(d, chrono_tz::UTC).append("a note"),
    },
    Case {
        file: "fork_messages.json",
        change: |d| {
            let session = RecordedSession {
                id: "s",
                parent: None,
                origin: &SessionOrigin::Owner,
            };
            ForkMessageStore::new(d).record(&[7], &session)
        },
    },
    Case {
        file: "inquiries.json",
        change: |d| {
            InquiryStore::new(d.inquiries_file())
                .register("p")
                .map(drop)
        },
    },
    Case {
        file: "ping_budget.json",
        change: |d| PingBudget::new(d, chrono_tz::UTC).try_spend().map(drop),
    },
    Case {
        file: "held_webhooks.json",
        change: |d| {
            let request = HeldRequest {
                webhook_id: "ci".into(),
                reason: "why".into(),
                received_at: Utc::now(),
                payload: "{}".into(),
                message_id: None,
                cause: HoldCause::default(),
            };
            HeldWebhooks::new(d.held_webhooks_file())
                .hold(request)
                .map(drop)
        },
    },
    Case {
        file: "nags.json",
        change: |d| {
            let opened = Utc.with_ymd_and_hms(2026, 11, 28, 9, 0, 0).unwrap();
            let nag = OpenNag::open(
                "meds".into(),
                "meds".into(),
                "text".into(),
                NagPolicy::default(),
                opened,
            );
            NagStore::new(d.nags_file()).open(nag).map(drop)
        },
    },
    Case {
        file: "quiet.json",
        change: |d| QuietStore::new(d.quiet_file()).set_until(Some(Utc::now())),
    },
    Case {
        file: "content_approvals.json",
        change: |d| ContentApprovals::new(d.content_approvals_file()).approve("skills/x", "h"),
    },
    Case {
        file: "tool_approvals.json",
        change: |d| {
            ToolApprovals::new(d.tool_approvals_file()).approve("r", &["Bash(ls)".into()], None)
        },
    },
    Case {
        file: "cli_homes.json",
        change: |d| CliHomeBook::new(d.cli_homes_file()).record_at("s", "owner-a", 1.0),
    },
    Case {
        file: "untrusted_sessions.json",
        change: |d| UntrustedSessions::new(d.untrusted_sessions_file()).mark("s"),
    },
    Case {
        file: "config.json",
        change: |d| {
            let mut config = RuntimeConfig::default();
            config
                .set(crate::config::runtime::ConfigKey::ModelMain, "sonnet")
                .map_err(|_| StateError::InvalidRoutineId("sonnet".into()))?;
            config.save(&d.config_file())
        },
    },
    Case {
        file: "scheduler.json",
        change: |d| {
            crate::scheduling::missed::record_tick(&d.scheduler_file(), Utc::now().fixed_offset())
        },
    },
    Case {
        file: "token.json",
        change: |d| {
            GoogleFiles::new(d)
                .save_token(&StoredToken::default())
                .map_err(|e| StateError::InvalidRoutineId(e.to_string()))
        },
    },
];

fn data_dir() -> (tempfile::TempDir, DataDir) {
    let dir = tempfile::tempdir().unwrap();
    let data = DataDir::new(dir.path());
    std::fs::create_dir_all(data.state_dir()).unwrap();
    (dir, data)
}

fn troubles(data: &DataDir, file: &str) -> Vec<Trouble> {
    let path = state(data, file);
    pending_notices(&data.state_dir())
        .into_iter()
        .filter(|n| n.file == path)
        .map(|n| n.trouble)
        .collect()
}

/// KEEP-3.
#[test]
fn every_store_is_in_the_list_the_start_up_check_and_doctor_judge() {
    let (_dir, data) = data_dir();
    let listed: Vec<&str> = inspect(&data, &state_files())
        .iter()
        .map(|f| f.name)
        .collect();
    for case in CASES {
        assert!(listed.contains(&case.file), "{} is not judged", case.file);
    }
}

/// KEEP-1: a directory where the file should be: every change is an error, nothing is
/// written over it, and the owner is told once however often the store tries.
#[test]
fn a_file_that_cannot_be_read_is_never_written_over_and_told_once() {
    for case in CASES {
        let (_dir, data) = data_dir();
        let path = state(&data, case.file);
        std::fs::create_dir(&path).unwrap();
        std::fs::write(path.join("inside"), "kept").unwrap();
        for _ in 0..3 {
            assert!(
                (case.change)(&data).is_err(),
                "{}: a change went through",
                case.file
            );
        }
        assert_eq!(
            std::fs::read_to_string(path.join("inside")).unwrap(),
            "kept",
            "{}",
            case.file
        );
        assert_eq!(
            troubles(&data, case.file),
            [Trouble::Unreadable],
            "{}",
            case.file
        );
    }
}

/// KEEP-2: a damaged file (a malformed entry among good ones, for the stores that hold one
/// value) is set aside whole, the owner told once, and the store works on.
#[test]
fn a_damaged_file_is_set_aside_whole_and_the_store_works_on() {
    for case in CASES {
        let (_dir, data) = data_dir();
        let path = state(&data, case.file);
        // Not a session id, and not JSON: a good entry and a cut-off one.
        let damaged = b"\x01{\"good\": 1, \"bad\": [";
        std::fs::write(&path, damaged).unwrap();
        (case.change)(&data).unwrap_or_else(|e| panic!("{}: {e}", case.file));
        (case.change)(&data).unwrap_or_else(|e| panic!("{}: {e}", case.file));
        let aside: Vec<_> = std::fs::read_dir(data.state_dir())
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| {
                p.to_string_lossy()
                    .contains(&format!("{}.corrupt-", case.file))
            })
            .collect();
        assert_eq!(aside.len(), 1, "{}", case.file);
        assert_eq!(std::fs::read(&aside[0]).unwrap(), damaged, "{}", case.file);
        assert_eq!(
            troubles(&data, case.file),
            [Trouble::Damaged],
            "{}",
            case.file
        );
    }
}

/// KEEP-1: power lost in the middle of a write leaves the old file whole and a temporary
/// file beside it: the store reads the old file, changes it, and start-up clears the leftover.
#[test]
fn a_write_cut_off_by_power_loss_leaves_the_old_file_whole() {
    for case in CASES {
        let (_dir, data) = data_dir();
        (case.change)(&data).unwrap_or_else(|e| panic!("{}: {e}", case.file));
        let path = state(&data, case.file);
        let before = std::fs::read(&path).unwrap();
        let leftover = data.state_dir().join(format!("{TEMP_PREFIX}cut"));
        std::fs::write(&leftover, &before[..before.len() / 2]).unwrap();
        assert!(
            inspect(&data, &state_files())
                .iter()
                .all(|f| matches!(f.health, Health::Absent | Health::Sound)),
            "{}",
            case.file
        );
        (case.change)(&data).unwrap_or_else(|e| panic!("{}: {e}", case.file));
        assert!(troubles(&data, case.file).is_empty(), "{}", case.file);
        assert_eq!(
            remove_stale_temp_files(&data.state_dir(), std::time::Duration::ZERO),
            1
        );
    }
}

/// KEEP-1: a full disk: the change fails, and the file is what it was, byte for byte. Needs
/// permission to mount a tmpfs (root, as in CI); elsewhere it says why it didn't run.
#[test]
fn a_full_disk_fails_the_change_and_keeps_the_file() {
    let (_dir, data) = data_dir();
    let Some(_disk) = TinyDisk::mount(&data.state_dir()) else {
        eprintln!("skipped: can't mount a tmpfs here (not root)");
        return;
    };
    for case in CASES {
        let _ = (case.change)(&data);
    }
    let before: Vec<(String, Vec<u8>)> = CASES
        .iter()
        .filter_map(|case| {
            Some((
                case.file.to_owned(),
                std::fs::read(state(&data, case.file)).ok()?,
            ))
        })
        .collect();
    assert_eq!(
        before.len(),
        CASES.len(),
        "every store wrote its file first"
    );
    let filler = data.state_dir().join("filler");
    fill(&filler);
    for case in CASES {
        let _ = (case.change)(&data);
    }
    for (file, bytes) in &before {
        assert_eq!(&std::fs::read(state(&data, file)).unwrap(), bytes, "{file}");
    }
    std::fs::remove_file(filler).unwrap();
}

/// A tmpfs mounted at a directory, unmounted on drop.
struct TinyDisk(std::path::PathBuf);

impl TinyDisk {
    fn mount(at: &Path) -> Option<Self> {
        let mounted = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=256k,mode=0700", "tmpfs"])
            .arg(at)
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|status| status.success());
        mounted.then(|| Self(at.to_path_buf()))
    }
}

impl Drop for TinyDisk {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(&self.0).status();
    }
}

fn fill(path: &Path) {
    use std::io::Write as _;
    let mut file = std::fs::File::create(path).unwrap();
    let block = vec![0u8; 4096];
    while file.write_all(&block).is_ok() {}
    let _ = file.sync_all();
}
