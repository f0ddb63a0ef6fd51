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

    /// Writes a filler until the disk is full.
    fn fill(&self) -> PathBuf {
        let path = self.0.join("filler");
        let mut file = std::fs::File::create(&path).unwrap();
        let block = vec![0u8; 4096];
        while file.write_all(&block).is_ok() {}
        let _ = file.sync_all();
        path
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

    std::fs::remove_file(&filler).unwrap();
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
