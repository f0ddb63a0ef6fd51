//! What the usage ledger costs (issue 27); prints figures, asserts nothing.
//!
//! `cargo bench --bench usage` (release profile) measures, on this machine's disk:
//!
//! - what a turn pays to record its usage: queueing a record on the `UsageWriter` (the turn's
//!   only cost), next to what one synced append costs the writer task behind it;
//! - `usage` over a year: 365 days × 50 records (18,250, twelve month files) read back and
//!   summed by kind, job and day — what `ollim-bot usage --since 365d` and `/cost` do;
//! - `/cost`'s chart: 30 days of that ledger read, split by day and drawn as a PNG (USE-5).

use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use ollim_bot::usage::{
    Summary, UsageKind, UsageLedger, UsageRecord, UsageWriter, chart::ledger_chart,
    summary::GroupBy,
};

/// Records per synthetic day.
const PER_DAY: usize = 50;
/// Appends timed one by one.
const APPENDS: usize = 200;
/// Charts drawn and averaged.
const CHARTS: u32 = 20;

fn record(at: DateTime<Utc>, n: usize) -> UsageRecord {
    let kind = UsageKind::ALL[n % UsageKind::ALL.len()];
    UsageRecord {
        at,
        kind,
        job: kind
            .is_background()
            .then(|| format!("{}:job{}", kind.name(), n % 7)),
        model: Some("claude-sonnet-4-5".into()),
        input_tokens: 1_200,
        output_tokens: 300,
        cache_read_tokens: 20_000,
        cache_write_tokens: 800,
        cost_usd: 0.012,
        duration_ms: 2_500,
        turns: 2,
        ended: "completed".into(),
        within: None,
    }
}

fn per(total: Duration, count: usize) -> String {
    let count = u32::try_from(count).unwrap_or(u32::MAX);
    format!("{:?}", total / count)
}

fn main() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let dir = tempfile::tempdir().expect("a temp dir");

    // What a turn pays: queueing, and what the writer does behind it.
    let ledger = UsageLedger::new(dir.path().join("appends"));
    let started = Instant::now();
    for n in 0..APPENDS {
        ledger.append(&record(Utc::now(), n)).expect("append");
    }
    let synced = started.elapsed();
    let queued = runtime.block_on(async {
        let (writer, worker) = UsageWriter::spawn(UsageLedger::new(dir.path().join("queued")));
        let started = Instant::now();
        for n in 0..APPENDS {
            writer.record(record(Utc::now(), n));
        }
        let queued = started.elapsed();
        worker.shutdown().await;
        queued
    });
    println!("recording a turn's usage ({APPENDS} records):");
    println!(
        "  the turn queues it:            {} each",
        per(queued, APPENDS)
    );
    println!(
        "  the writer appends and syncs:  {} each (off the turn's path)",
        per(synced, APPENDS)
    );

    // A year of records.
    let year = UsageLedger::new(dir.path().join("year"));
    let now = Utc::now();
    let mut written = 0;
    for day in 0..365 {
        for n in 0..PER_DAY {
            let minutes = i64::try_from(n).unwrap_or_default();
            let at = now - chrono::Duration::days(day) - chrono::Duration::minutes(minutes);
            year.append(&record(at, n)).expect("append");
            written += 1;
        }
    }
    let since = now - chrono::Duration::days(366);
    let started = Instant::now();
    let read = year.read_since(since).expect("read");
    let reading = started.elapsed();
    let started = Instant::now();
    for by in [GroupBy::Kind, GroupBy::Job, GroupBy::Day] {
        let summary = Summary::of(&read.records, since, by, chrono_tz::UTC);
        assert_eq!(usize::try_from(summary.total.runs).ok(), Some(written));
    }
    let summing = started.elapsed();
    let files = std::fs::read_dir(year.dir()).map_or(0, Iterator::count);
    println!("usage over a year ({written} records in {files} files):");
    println!("  reading the ledger:            {reading:?}");
    println!("  three summaries (kind/job/day): {summing:?}");
    println!(
        "  together:                      {:?} (goal: under 1 s)",
        reading + summing
    );

    let started = Instant::now();
    let mut bytes = 0;
    for _ in 0..CHARTS {
        let png = ledger_chart(year.dir(), now, chrono_tz::UTC, 30)
            .expect("draw")
            .expect("a chart");
        bytes = png.len();
    }
    println!(
        "/cost's chart of 30 days ({} records read, {bytes} bytes of PNG): {:?} each",
        30 * PER_DAY,
        started.elapsed() / CHARTS
    );
}
