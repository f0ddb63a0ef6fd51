//! A full disk (issue 16), through the real binary, the fake Discord and the real CLI against
//! the mock model: the data dir's `state/` is a 512 KiB tmpfs that a filler file fills up
//! while the bot runs. The bot keeps answering, the state written before stays intact, the
//! owner hears once that saving stopped and once, after the filler is removed, that it works
//! again — without a restart. Needs permission to mount a tmpfs (root, as in CI); elsewhere
//! the test says why it didn't run.

use crate::support;

use std::{
    io::Write as _,
    path::{Path, PathBuf},
    process::Command,
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::Duration,
};

use support::{bot::BotHarness, cli::CliSandbox};

const FULL: &str = "I can't save my files";
const BACK: &str = "saving works again";

/// A tmpfs mounted at a directory, unmounted on drop.
struct TinyDisk(PathBuf);

impl TinyDisk {
    fn mount(at: &Path) -> Option<Self> {
        std::fs::create_dir_all(at).unwrap();
        let mounted = Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=512k,mode=0700", "tmpfs"])
            .arg(at)
            .status()
            .is_ok_and(|status| status.success());
        mounted.then(|| Self(at.to_path_buf()))
    }

    /// Writes a filler until the disk is full, and keeps it full: space freed later (a
    /// database's journal removed after its write failed, a file replaced by a smaller one)
    /// is taken again at once, as another program filling the disk would, so whether the bot's
    /// next write fails doesn't depend on what was being written at the moment it filled.
    fn fill(&self) -> Filler {
        let path = self.0.join("filler");
        let mut file = std::fs::File::create(&path).unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let keeper = {
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                let block = vec![0u8; 512];
                while !stop.load(Ordering::Relaxed) {
                    while file.write_all(&block).is_ok() {}
                    std::thread::sleep(Duration::from_millis(2));
                }
            })
        };
        // Full once a write fails: the keeper has run out of space at least once.
        let probe = self.0.join("probe");
        while std::fs::write(&probe, [0u8; 4096]).is_ok() {
            std::thread::sleep(Duration::from_millis(2));
        }
        let _ = std::fs::remove_file(&probe);
        Filler { path, stop, keeper }
    }
}

/// The filler that keeps a [`TinyDisk`] full until it is removed.
struct Filler {
    path: PathBuf,
    stop: Arc<AtomicBool>,
    keeper: std::thread::JoinHandle<()>,
}

impl Filler {
    /// Stops filling and removes the filler: the space is free again.
    fn remove(self) {
        self.stop.store(true, Ordering::Relaxed);
        self.keeper.join().unwrap();
        std::fs::remove_file(&self.path).unwrap();
    }
}

impl Drop for TinyDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

fn count(h: &BotHarness, needle: &str) -> usize {
    h.bot_messages()
        .iter()
        .filter(|m| m.content.contains(needle))
        .count()
}

#[tokio::test]
async fn a_full_disk_is_told_once_the_bot_answers_and_recovers_by_itself() {
    let sandbox = CliSandbox::new();
    let state = sandbox.data_dir.join("state");
    let Some(disk) = TinyDisk::mount(&state) else {
        eprintln!("skipped: this user can't mount a tmpfs to fill");
        return;
    };
    let h = BotHarness::greeted_fast_sync(sandbox).await;
    h.converse("the code word is heron", "noted").await;
    let sessions = state.join("sessions.json");
    let saved = std::fs::read(&sessions).unwrap();

    let filler = disk.fill();
    // The owner's message: answered, though nothing can be saved.
    h.converse("are you still there?", "still here").await;
    let told = h
        .wait_for_bot_message_within("the full notice", Duration::from_secs(30), |m| {
            m.content.contains(FULL)
        })
        .await;
    assert!(told.content.contains("space"), "{}", told.content);
    h.converse("and now?", "yes").await;
    assert_eq!(
        std::fs::read(&sessions).unwrap(),
        saved,
        "earlier state intact"
    );
    assert_eq!(count(&h, FULL), 1, "told once");

    filler.remove();
    h.wait_for_bot_message_within("the recovery", Duration::from_secs(30), |m| {
        m.content.contains(BACK)
    })
    .await;
    h.converse("good?", "good").await;
    // Saving really works again: the unfinished-work ledger is written and readable.
    let ledger = std::fs::read_to_string(state.join("unfinished.json")).unwrap();
    assert!(ledger.contains("running"), "{ledger}");
    assert_eq!(count(&h, FULL), 1);
    assert_eq!(count(&h, BACK), 1);
    let mut h = h;
    h.terminate().await;
    drop(disk);
}
