use super::*;

fn record(scenario: &str, overall: f64) -> EvalRecord {
    EvalRecord {
        run_id: "20261203T110000Z".to_owned(),
        timestamp: "2026-12-03T11:05:00Z".to_owned(),
        scenario: scenario.to_owned(),
        goal_type: "qualitative".to_owned(),
        scores: BTreeMap::new(),
        reasons: BTreeMap::new(),
        overall,
        passed: true,
        goal_met: None,
        turns: 3,
        files_created: Vec::new(),
        models: Models {
            bot: "default".to_owned(),
            proxy: "haiku".to_owned(),
            judge: "sonnet".to_owned(),
        },
        bot_version: "0.1.0".to_owned(),
        cli_version: "2.1.332".to_owned(),
        cost_usd: 0.01,
        duration_s: 12.0,
        error: None,
        transcript: "t.md".to_owned(),
    }
}

#[test]
fn a_fall_of_more_than_three_tenths_is_a_regression_and_exactly_that_is_not() {
    let records = [
        record("a", 3.3),
        record("a", 3.0),
        record("b", 4.0),
        record("b", 3.69),
        record("c", 4.5),
    ];
    let compared = compare(&records, &["a", "b", "c", "d"], 2);
    assert_eq!(compared.len(), 3);
    assert!(!compared[0].1.regressed(), "{:?}", compared[0]);
    assert!(compared[1].1.regressed(), "{:?}", compared[1]);
    assert_eq!(compared[1].1.text(), "4.00 → 3.69  Δ -0.31  REGRESSION");
    assert_eq!(compared[2].1, Comparison::OnlyOne { overall: 450 });
    let three = compare(
        &[record("a", 2.0), record("a", 3.3), record("a", 3.0)],
        &["a"],
        3,
    );
    assert_eq!(three[0].1.text(), "2.00 → 3.30 → 3.00  Δ -0.30");
}

#[test]
fn the_history_is_appended_and_a_torn_line_is_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("evals/history.jsonl");
    append(&path, &record("a", 3.5)).unwrap();
    std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap()
        .write_all(b"{\"run_id\": \"torn")
        .unwrap();
    std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap()
        .write_all(b"\n")
        .unwrap();
    append(&path, &record("b", 4.0)).unwrap();
    let (records, unreadable) = read(&path).unwrap();
    assert_eq!(unreadable, 1);
    assert_eq!(records.len(), 2);
    assert_eq!(records[1].scenario, "b");
    assert_eq!(read(&dir.path().join("none")).unwrap().0.len(), 0);
}
