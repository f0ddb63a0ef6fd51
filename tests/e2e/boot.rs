//! The daemon's start-up and shutdown end to end: the real binary against the fake Discord,
//! the pinned Claude CLI and the mock model. (BOOT-2/5/7/8, PID-1/3, GRT-1/2, SES-1, MSG-1,
//! SLC registration and owner gate, SLC-15), a module per topic.

use std::{path::Path, time::Duration};

use crate::support::wait;

mod greeting;
mod network;
mod owner;
mod refusals;
mod shutdown;

const VERSION: &str = env!("CARGO_PKG_VERSION");
const STRANGER: u64 = 42;

/// Polls `f` until it yields `Some`, or panics with `what` after `timeout`.
async fn poll<T>(what: &str, timeout: Duration, f: impl FnMut() -> Option<T>) -> T {
    wait::eventually(what, timeout, f, String::new).await
}

/// The subjects of the data dir's git log, newest first.
fn git_subjects(data_dir: &Path) -> String {
    let out = std::process::Command::new("git")
        .args(["log", "--format=%s"])
        .current_dir(data_dir)
        .output()
        .expect("run git log");
    String::from_utf8_lossy(&out.stdout).into_owned()
}
