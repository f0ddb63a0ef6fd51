//! Looking at other processes through Linux `/proc`: who mentions a sandbox, what is left
//! behind, and how much memory a process holds.

use std::time::{Duration, Instant};

/// Processes (other than this test process) whose environment or command line mentions
/// `needle`.
pub fn processes_mentioning(needle: &str) -> Vec<u32> {
    let needle = needle.as_bytes();
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return found;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        if pid == std::process::id() {
            continue;
        }
        let mentions = ["environ", "cmdline"].iter().any(|file| {
            std::fs::read(entry.path().join(file))
                .is_ok_and(|bytes| bytes.windows(needle.len()).any(|w| w == needle))
        });
        if mentions {
            found.push(pid);
        }
    }
    found
}

/// `pid: <command line>` for diagnostics.
pub fn describe_process(pid: u32) -> String {
    let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
    format!("{pid}: {}", cmd.chars().take(120).collect::<String>())
}

/// Waits until no process other than the test mentions `needle` (a `SIGKILLed` child may take
/// a few milliseconds to disappear); panics with the survivors after `grace`.
pub async fn assert_no_process_mentions(needle: &str, grace: Duration) {
    let deadline = Instant::now() + grace;
    loop {
        let left = processes_mentioning(needle);
        if left.is_empty() {
            return;
        }
        if Instant::now() >= deadline {
            let described: Vec<String> = left.into_iter().map(describe_process).collect();
            panic!("processes left behind after {grace:?}: {described:#?}");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The numeric fields `names` of `/proc/<pid>/status` (KiB for the `Vm*`/`Rss*` ones).
pub fn status_fields<const N: usize>(pid: u32, names: [&str; N]) -> Option<[u64; N]> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| {
        let line = status
            .lines()
            .find(|line| line.strip_prefix(name).is_some_and(|l| l.starts_with(':')))?;
        line.split_whitespace().nth(1)?.parse::<u64>().ok()
    };
    let mut out = [0; N];
    for (slot, name) in out.iter_mut().zip(names) {
        *slot = field(name)?;
    }
    Some(out)
}

/// `VmRSS` and `VmHWM` of `pid`, in KiB.
pub fn memory_kib(pid: u32) -> Option<(u64, u64)> {
    let [rss, hwm] = status_fields(pid, ["VmRSS", "VmHWM"])?;
    Some((rss, hwm))
}

/// The direct children of `pid`.
pub fn children(pid: u32) -> Vec<u32> {
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task"))
        .into_iter()
        .flatten()
        .flatten();
    let lists = tasks.filter_map(|task| std::fs::read_to_string(task.path().join("children")).ok());
    let lists: Vec<String> = lists.collect();
    lists
        .iter()
        .flat_map(|l| l.split_whitespace())
        .filter_map(|p| p.parse().ok())
        .collect()
}

/// `pid` and all its descendants, `pid` first.
pub fn tree(pid: u32) -> Vec<u32> {
    let mut all = vec![pid];
    let mut next = 0;
    while next < all.len() {
        all.extend(children(all[next]));
        next += 1;
    }
    all
}

/// The command name of `pid` (`/proc/<pid>/comm`), empty if it is gone.
pub fn comm(pid: u32) -> String {
    let name = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
    name.trim().to_owned()
}

/// KiB to MiB, for printing.
#[allow(clippy::cast_precision_loss)] // a figure printed for a person
pub fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}
