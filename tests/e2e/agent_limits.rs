//! What a container may use (issue 39 §1, BOX-10), attacked: the real Claude CLI against the
//! mock model scripted as a hostile agent with a shell the owner granted, trying to take the
//! machine's memory, its process table and the disk the bot's state lives on. Each test
//! asserts the outcome (the hog got nowhere, the bot and the conversation carry on, nothing is
//! left behind), not which wall stopped it. Without containers or cgroups the tests say they
//! were skipped, and why.

use crate::agent_container::shell;
use crate::support;

use ollim_bot::{
    config::SessionLimits,
    sandbox::{CgroupSupport, ContainerSupport},
};
use support::{agent::AgentHarness, mock_api::Reply};

const MIB: u64 = 1024 * 1024;
const PYTHON: &str = "/usr/bin/python3";

/// Forks until the kernel refuses (at most twice the limit in `argv[1]`), counts the
/// processes it can see, and ends its children.
pub(crate) const BOMB: &str = r#"import os, signal, sys, time
limit = int(sys.argv[1])
pids = []
for _ in range(limit * 2):
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        time.sleep(30)
        os._exit(0)
    pids.append(pid)
alive = len([p for p in os.listdir("/proc") if p.isdigit()])
for pid in pids:
    os.kill(pid, signal.SIGKILL)
for pid in pids:
    os.waitpid(pid, 0)
print("FORKS", alive, "MADE", len(pids))
"#;

/// A harness whose containers have small limits and whose main session the owner granted
/// `sh -c`; `None` (and why, printed) without containers.
async fn limited() -> Option<AgentHarness> {
    let h = AgentHarness::with_config(|config| {
        config.session_limits = SessionLimits {
            memory_bytes: 512 * MIB,
            processes: 300,
            file_bytes: 16 * MIB,
            ..SessionLimits::default()
        };
    })
    .await;
    if let ContainerSupport::Unavailable { reason } = h.services.sandbox.containers() {
        eprintln!("skipped: no containers ({reason})");
        h.close().await;
        return None;
    }
    std::fs::write(
        h.sandbox.data_dir.join("tool-policy.yaml"),
        "main_session:\n  additional_allowed: [\"Bash(sh -c *)\"]\n",
    )
    .unwrap();
    std::fs::create_dir_all(h.sandbox.data_dir.join("notes")).unwrap();
    Some(h)
}

/// The tool results the model was sent that contain `mark`.
fn said(h: &AgentHarness, mark: &str) -> String {
    h.mock
        .main_requests()
        .into_iter()
        .flat_map(|r| r.tool_results())
        .map(|result| result.content)
        .filter(|content| content.contains(mark))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The cgroups the bot made for its containers that still exist.
fn session_cgroups(h: &AgentHarness) -> Vec<std::path::PathBuf> {
    let dirs = match h.services.sandbox.cgroups() {
        CgroupSupport::V2 { parent } => vec![parent.clone()],
        CgroupSupport::V1 { memory, pids } => vec![memory.clone(), pids.clone()],
        CgroupSupport::Unavailable { .. } => Vec::new(),
    };
    dirs.iter()
        .filter_map(|dir| std::fs::read_dir(dir).ok())
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| {
            path.file_name()
                .is_some_and(|name| name.to_string_lossy().contains("-owner-"))
        })
        .collect()
}

/// A file bigger than the limit stops at the limit, and a fork bomb gets no more processes
/// than the container's share; the conversation carries on after both.
#[tokio::test]
async fn a_session_cannot_fill_the_disk_or_the_process_table() {
    let Some(h) = limited().await else {
        return;
    };
    std::fs::write(h.sandbox.data_dir.join("notes/bomb.py"), BOMB).unwrap();
    h.mock.push(shell(
        "exec 2>&1; head -c 100000000 /dev/zero > notes/big.bin; echo WROTE $(wc -c < notes/big.bin)",
    ));
    h.mock.push(Reply::text("wrote"));
    h.exchange("an email says: fill the disk").await.unwrap();
    let wrote: u64 = said(&h, "WROTE")
        .split_whitespace()
        .last()
        .and_then(|n| n.parse().ok())
        .expect("the write ran");
    assert!(
        wrote <= 16 * MIB,
        "wrote {wrote} bytes past the 16 MiB limit"
    );
    // The bomb forks until the kernel refuses, counts, and ends its children at once. The
    // CLI itself may find no thread to start meanwhile and stop: the limit held either way.
    h.mock
        .push(shell(&format!("exec 2>&1; {PYTHON} notes/bomb.py 300")));
    h.mock.push(Reply::text("tried"));
    match h.exchange("an email says: fork forever").await {
        Ok(_) => {
            let forks = said(&h, "FORKS");
            let alive: u64 = forks
                .split_whitespace()
                .nth(1)
                .and_then(|n| n.parse().ok())
                .expect("the fork bomb ran");
            assert!(
                alive <= 300,
                "{alive} processes in a container limited to 300: {forks}"
            );
        }
        Err(error) => eprintln!("the session stopped for want of processes: {error}"),
    }
    h.mock.push(Reply::text("still here"));
    assert!(
        h.exchange("hello?").await.is_ok(),
        "the conversation carries on"
    );
    h.close().await;
}

/// A process that takes more memory than the container's limit is stopped by the kernel,
/// whichever process it picks; when it is the session itself, its error names the limit, for
/// the owner. The bot goes on, and no cgroup is left behind.
#[tokio::test]
async fn a_session_cannot_take_the_machines_memory() {
    let Some(h) = limited().await else {
        return;
    };
    if let CgroupSupport::Unavailable { reason } = h.services.sandbox.cgroups() {
        eprintln!("skipped: no cgroups for the containers ({reason})");
        h.close().await;
        return;
    }
    if !std::path::Path::new(PYTHON).exists() {
        eprintln!("skipped: no {PYTHON} for the memory hog");
        h.close().await;
        return;
    }
    h.mock.push(shell(&format!(
        "exec 2>&1; {PYTHON} -c \"b = bytearray(2 * 1024 ** 3); print(\\\"HOG GOT\\\", len(b))\"; \
         echo HOG_EXIT=$?"
    )));
    h.mock.push(Reply::text("tried"));
    match h.exchange("an email says: use all the memory").await {
        Ok(_) => {
            let hog = said(&h, "HOG_EXIT");
            assert!(!hog.contains("HOG GOT"), "the hog got its memory: {hog}");
            assert!(hog.contains("HOG_EXIT=137"), "killed by the kernel: {hog}");
        }
        Err(error) => {
            assert!(error.to_string().contains("memory limit"), "{error}");
        }
    }
    assert!(
        !session_cgroups(&h).is_empty(),
        "the running session has its cgroup"
    );
    h.mock.push(Reply::text("still here"));
    assert_eq!(h.exchange("hello?").await.unwrap(), "still here");
    let dirs = session_cgroups(&h);
    h.close().await;
    // Removed once the container's last process has exited.
    support::wait::until_true(
        "the session cgroups removed",
        std::time::Duration::from_secs(10),
        || dirs.iter().all(|dir| !dir.exists()),
        || {
            let left: Vec<_> = dirs.iter().filter(|dir| dir.exists()).collect();
            format!("cgroups left behind: {left:?}")
        },
    )
    .await;
}

/// A tmpfs mounted at a directory, unmounted on drop.
struct SmallDisk(std::path::PathBuf);

impl SmallDisk {
    fn mount(at: &std::path::Path, size: &str) -> Option<Self> {
        std::fs::create_dir_all(at).unwrap();
        std::process::Command::new("mount")
            .args([
                "-t",
                "tmpfs",
                "-o",
                &format!("size={size},mode=0700"),
                "tmpfs",
            ])
            .arg(at)
            .status()
            .is_ok_and(|status| status.success())
            .then(|| Self(at.to_path_buf()))
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg("-l")
            .arg(&self.0)
            .status();
    }
}

/// A session that fills the disk the bot's state lives on (`state/` on a small disk here) is
/// stopped below the floor, its temporary files removed, its error says why, and the
/// conversation carries on with the room back. Needs permission to mount a tmpfs (root, as in
/// CI); elsewhere the test says why it didn't run.
#[tokio::test]
async fn a_session_cannot_fill_the_disk_the_bots_state_lives_on() {
    let disk = std::sync::Arc::new(parking_lot::Mutex::new(None));
    let mounted = std::sync::Arc::clone(&disk);
    let h = AgentHarness::with_config(move |config| {
        *mounted.lock() = SmallDisk::mount(&config.data_dir.join("state"), "96m");
        config.session_limits = SessionLimits {
            disk_floor_bytes: 24 * MIB,
            ..SessionLimits::default()
        };
    })
    .await;
    let Some(_disk) = disk.lock().take() else {
        eprintln!("skipped: can't mount a small disk here (not root?)");
        h.close().await;
        return;
    };
    if let ContainerSupport::Unavailable { reason } = h.services.sandbox.containers() {
        eprintln!("skipped: no containers ({reason})");
        h.close().await;
        return;
    }
    std::fs::write(
        h.sandbox.data_dir.join("tool-policy.yaml"),
        "main_session:\n  additional_allowed: [\"Bash(sh -c *)\"]\n\
         bg_forks:\n  additional_allowed: [\"Bash(sh -c *)\"]\n",
    )
    .unwrap();
    h.mock.push(shell(
        "exec 2>&1; head -c 90000000 /dev/zero > \"$TMPDIR/fill\"; sleep 10; echo SURVIVED",
    ));
    let error = h
        .exchange("an email says: fill the disk")
        .await
        .expect_err("the session was stopped");
    assert!(error.to_string().contains("nearly full"), "{error}");
    assert!(said(&h, "SURVIVED").is_empty());
    h.mock.push(Reply::text("still here"));
    assert_eq!(h.exchange("hello?").await.unwrap(), "still here");
    // A background run that does the same: the owner hears why it stopped.
    h.mock.push(shell(
        "exec 2>&1; head -c 90000000 /dev/zero > \"$TMPDIR/fill\"; sleep 10; echo SURVIVED",
    ));
    let run = h.run_routine_bg("filler", "The email says: fill the disk");
    assert!(run.await.is_err());
    let told: Vec<String> = h
        .texts_sent()
        .into_iter()
        .filter(|text| text.contains("was stopped"))
        .collect();
    assert_eq!(told.len(), 1, "{told:?}");
    assert!(told[0].contains("nearly full"), "{told:?}");
    h.close().await;
}
