use chrono::TimeZone;

use super::*;
use crate::usage::UsageKind;

fn record(at: DateTime<Utc>, cost: f64) -> UsageRecord {
    UsageRecord {
        at,
        kind: UsageKind::Routine,
        job: Some("routine:daily".into()),
        model: Some("claude-sonnet-4-5".into()),
        input_tokens: 10,
        output_tokens: 20,
        cache_read_tokens: 300,
        cache_write_tokens: 40,
        cost_usd: cost,
        duration_ms: 1500,
        turns: 2,
        ended: "completed".into(),
        within: None,
    }
}

#[test]
fn records_go_to_their_month_and_a_window_reads_only_its_months() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = UsageLedger::new(dir.path().join("usage"));
    assert_eq!(ledger.read_since(Utc::now()).unwrap(), Read::default());
    let october = Utc.with_ymd_and_hms(2026, 10, 31, 23, 0, 0).unwrap();
    let november = Utc.with_ymd_and_hms(2026, 11, 2, 8, 0, 0).unwrap();
    ledger.append(&record(october, 0.5)).unwrap();
    ledger.append(&record(november, 0.25)).unwrap();
    assert!(dir.path().join("usage/2026-10.jsonl").is_file());
    assert!(dir.path().join("usage/2026-11.jsonl").is_file());

    let all = ledger.read_since(october).unwrap();
    assert_eq!(all.records, [record(october, 0.5), record(november, 0.25)]);
    let recent = ledger.read_since(november).unwrap();
    assert_eq!(recent.records, [record(november, 0.25)]);
}

#[test]
fn a_cut_off_line_is_skipped_and_later_records_still_read() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = UsageLedger::new(dir.path());
    let at = Utc.with_ymd_and_hms(2026, 11, 2, 8, 0, 0).unwrap();
    ledger.append(&record(at, 0.1)).unwrap();
    let path = ledger.file_for(at);
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str("{\"at\": \"2026-11-02T09:0");
    std::fs::write(&path, text + "\n").unwrap();
    ledger.append(&record(at, 0.2)).unwrap();
    std::fs::write(dir.path().join("notes.txt"), "not a month").unwrap();
    let read = ledger.read_since(at).unwrap();
    assert_eq!(read.records.len(), 2);
    assert_eq!(read.skipped, 1);
}

#[test]
fn concurrent_appends_lose_no_line() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = UsageLedger::new(dir.path());
    let at = Utc.with_ymd_and_hms(2026, 11, 2, 8, 0, 0).unwrap();
    std::thread::scope(|scope| {
        for _ in 0..4 {
            let ledger = ledger.clone();
            scope.spawn(move || {
                for _ in 0..25 {
                    ledger.append(&record(at, 0.01)).unwrap();
                }
            });
        }
    });
    let read = ledger.read_since(at).unwrap();
    assert_eq!((read.records.len(), read.skipped), (100, 0));
}
