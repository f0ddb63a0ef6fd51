//! Tests for [`super::PingBudget`], driven by fixed clocks through the `_at` variants.
// Refills snap to whole tokens, so these tests compare exact values on purpose.
#![allow(clippy::float_cmp)]

use super::*;
use chrono::TimeZone;
use chrono_tz::America::Los_Angeles;
use std::fs;

fn setup() -> (tempfile::TempDir, PingBudget) {
    let dir = tempfile::tempdir().unwrap();
    let budget = PingBudget::new(&DataDir::new(dir.path()), Los_Angeles);
    (dir, budget)
}

/// 2026-02-`day` `h:m` in Los Angeles.
fn at(day: u32, h: u32, m: u32) -> DateTime<Tz> {
    Los_Angeles.with_ymd_and_hms(2026, 2, day, h, m, 0).unwrap()
}

/// Writes a budget file with the given values; dates are 2026-02-24.
fn write_state(budget: &PingBudget, available: f64, last_refill: DateTime<Tz>, daily: u32) {
    fs::create_dir_all(budget.path().parent().unwrap()).unwrap();
    let value = serde_json::json!({
        "capacity": 5,
        "available": available,
        "refill_rate_minutes": 90,
        "last_refill": last_refill.fixed_offset().to_rfc3339(),
        "critical_used": 0,
        "critical_reset_date": "2026-02-24",
        "daily_used": daily,
        "daily_used_reset": "2026-02-24",
    });
    fs::write(budget.path(), value.to_string()).unwrap();
}

fn snap(available: f64, daily_used: u32, critical_used: u32) -> BudgetSnapshot {
    BudgetSnapshot {
        capacity: 5,
        available,
        refill_rate_minutes: 90,
        daily_used,
        critical_used,
    }
}

fn file_json(budget: &PingBudget) -> serde_json::Value {
    serde_json::from_str(&fs::read_to_string(budget.path()).unwrap()).unwrap()
}

#[test]
fn missing_file_gives_defaults_and_is_written() {
    let (_dir, budget) = setup();
    let s = budget.snapshot_at(at(24, 9, 30)).unwrap();
    assert_eq!(s, snap(5.0, 0, 0));
    assert_eq!(s.compact_status(), "budget: 5/5");
    assert_eq!(s.minutes_to_next_refill(), None);
    assert_eq!(
        file_json(&budget),
        serde_json::json!({
            "capacity": 5,
            "available": 5.0,
            "refill_rate_minutes": 90,
            "last_refill": "2026-02-24T09:30:00-08:00",
            "critical_used": 0,
            "critical_reset_date": "2026-02-24",
            "daily_used": 0,
            "daily_used_reset": "2026-02-24",
        })
    );
    let text = fs::read_to_string(budget.path()).unwrap();
    assert!(text.contains("\"available\": 5.0"), "{text}");
}

#[test]
fn real_clock_variant_works() {
    let (_dir, budget) = setup();
    assert_eq!(budget.snapshot().unwrap().whole_available(), 5);
    assert_eq!(budget.try_spend().unwrap(), Spend::Spent);
    budget.record_critical().unwrap();
    let s = budget.snapshot().unwrap();
    assert_eq!((s.daily_used, s.critical_used), (1, 1));
}

#[test]
fn refills_one_token_per_rate() {
    let (_dir, budget) = setup();
    write_state(&budget, 0.0, at(24, 8, 0), 0);
    let s = budget.snapshot_at(at(24, 9, 30)).unwrap();
    assert_eq!(s.available, 1.0);
    assert_eq!(s.compact_status(), "budget: 1/5 (next refill in 90 min)");
    // last_refill moved to now, so an immediate second read adds nothing.
    assert_eq!(budget.snapshot_at(at(24, 9, 30)).unwrap().available, 1.0);
    assert_eq!(
        file_json(&budget)["last_refill"],
        "2026-02-24T09:30:00-08:00"
    );
}

#[test]
fn partial_refill_and_next_minutes() {
    let (_dir, budget) = setup();
    write_state(&budget, 3.0, at(24, 9, 0), 0);
    // 48 min at 90 min/token = 0.5333 tokens.
    let s = budget.snapshot_at(at(24, 9, 48)).unwrap();
    assert!((s.available - (3.0 + 48.0 / 90.0)).abs() < 1e-9);
    assert_eq!(s.whole_available(), 3);
    assert_eq!(s.minutes_to_next_refill(), Some(42));

    assert_eq!(snap(3.53, 0, 0).minutes_to_next_refill(), Some(43));
    assert_eq!(snap(3.0, 0, 0).minutes_to_next_refill(), Some(90));
    assert_eq!(
        snap(2.0 + 1.0 / 3.0, 0, 0).minutes_to_next_refill(),
        Some(60)
    );
    assert_eq!(snap(0.0, 0, 0).minutes_to_next_refill(), Some(90));
    assert_eq!(
        snap(3.53, 0, 0).preamble_status(),
        "3/5 available (refills 1 every 90 min, next in 43 min)"
    );
    assert_eq!(
        snap(5.0, 0, 0).preamble_status(),
        "5/5 available (refills 1 every 90 min)"
    );
}

#[test]
fn refill_caps_at_capacity() {
    let (_dir, budget) = setup();
    write_state(&budget, 4.5, at(20, 0, 0), 0);
    let s = budget.snapshot_at(at(24, 9, 0)).unwrap();
    assert_eq!(s.available, 5.0);
    assert_eq!(s.extended_status(), "budget: 5/5.");
}

#[test]
fn clock_moving_back_never_reduces_available() {
    let (_dir, budget) = setup();
    write_state(&budget, 2.5, at(24, 12, 0), 0);
    let s = budget.snapshot_at(at(24, 10, 0)).unwrap();
    assert_eq!(s.available, 2.5);
    // The earlier time is now the reference, so refill resumes from there.
    let s = budget.snapshot_at(at(24, 10, 45)).unwrap();
    assert_eq!(s.available, 3.0);
}

#[test]
fn counters_reset_at_local_midnight() {
    let (_dir, budget) = setup();
    budget.snapshot_at(at(24, 15, 0)).unwrap();
    assert_eq!(budget.try_spend_at(at(24, 15, 0)).unwrap(), Spend::Spent);
    budget.record_critical_at(at(24, 15, 0)).unwrap();
    // 17:00 in Los Angeles is already the 25th in UTC: still the same local day.
    let s = budget.snapshot_at(at(24, 17, 0)).unwrap();
    assert_eq!((s.daily_used, s.critical_used), (1, 1));
    let s = budget.snapshot_at(at(24, 23, 59)).unwrap();
    assert_eq!((s.daily_used, s.critical_used), (1, 1));
    let s = budget.snapshot_at(at(25, 0, 1)).unwrap();
    assert_eq!((s.daily_used, s.critical_used), (0, 0));
    let file = file_json(&budget);
    assert_eq!(file["daily_used_reset"], "2026-02-25");
    assert_eq!(file["critical_reset_date"], "2026-02-25");
}

#[test]
fn each_counter_resets_on_its_own_date() {
    let (_dir, budget) = setup();
    write_state(&budget, 5.0, at(24, 9, 0), 2);
    let mut file = file_json(&budget);
    file["critical_used"] = 3.into();
    file["critical_reset_date"] = "2026-02-23".into();
    fs::write(budget.path(), file.to_string()).unwrap();
    let s = budget.snapshot_at(at(24, 10, 0)).unwrap();
    assert_eq!((s.daily_used, s.critical_used), (2, 0));
}

#[test]
fn spend_until_exhausted() {
    let (_dir, budget) = setup();
    let now = at(24, 9, 0);
    for _ in 0..5 {
        assert_eq!(budget.try_spend_at(now).unwrap(), Spend::Spent);
    }
    assert_eq!(budget.try_spend_at(now).unwrap(), Spend::Exhausted);
    let s = budget.snapshot_at(now).unwrap();
    assert_eq!(s, snap(0.0, 5, 0));
    assert_eq!(
        s.extended_status(),
        "budget: 0/5 (next refill in 90 min). used today: 5."
    );
    // 89 minutes later still less than one whole token.
    assert_eq!(
        budget.try_spend_at(at(24, 10, 29)).unwrap(),
        Spend::Exhausted
    );
    assert_eq!(budget.try_spend_at(at(24, 10, 30)).unwrap(), Spend::Spent);
}

#[test]
fn refund_gives_the_token_back() {
    let (_dir, budget) = setup();
    let now = at(24, 9, 0);
    assert_eq!(budget.try_spend_at(now).unwrap(), Spend::Spent);
    assert_eq!(budget.refund_at(now).unwrap(), snap(5.0, 0, 0));
    assert_eq!(budget.refund_at(now).unwrap(), snap(5.0, 0, 0));
}

#[test]
fn critical_is_counted_and_consumes_nothing() {
    let (_dir, budget) = setup();
    write_state(&budget, 0.0, at(24, 9, 0), 0);
    budget.record_critical_at(at(24, 9, 0)).unwrap();
    budget.record_critical_at(at(24, 9, 0)).unwrap();
    let s = budget.snapshot_at(at(24, 9, 0)).unwrap();
    assert_eq!(s, snap(0.0, 0, 2));
    assert_eq!(file_json(&budget)["critical_used"], 2);
}

#[test]
fn extended_status_strings() {
    assert_eq!(
        snap(3.54, 2, 0).extended_status(),
        "budget: 3/5 (next refill in 42 min). used today: 2."
    );
    assert_eq!(snap(5.0, 0, 0).extended_status(), "budget: 5/5.");
    assert_eq!(
        snap(5.0, 0, 1).extended_status(),
        "budget: 5/5. critical bypasses: 1 (urgent overrides, not deducted from budget)."
    );
    assert_eq!(
        snap(1.0, 4, 2).extended_status(),
        "budget: 1/5 (next refill in 90 min). used today: 4. \
         critical bypasses: 2 (urgent overrides, not deducted from budget)."
    );
    assert_eq!(
        snap(3.54, 2, 0).compact_status(),
        "budget: 3/5 (next refill in 42 min)"
    );
}

#[test]
fn configure_updates_settings_and_keeps_counters() {
    let (_dir, budget) = setup();
    let now = at(24, 9, 0);
    budget.try_spend_at(now).unwrap();
    budget.record_critical_at(now).unwrap();
    let s = budget.configure_at(Some(8), None, now).unwrap();
    assert_eq!((s.capacity, s.refill_rate_minutes), (8, 90));
    assert_eq!((s.available, s.daily_used, s.critical_used), (4.0, 1, 1));
    let s = budget.configure_at(None, Some(30), now).unwrap();
    assert_eq!((s.capacity, s.refill_rate_minutes), (8, 30));
    let s = budget.configure_at(Some(2), Some(60), now).unwrap();
    assert_eq!(
        (s.capacity, s.available, s.refill_rate_minutes),
        (2, 2.0, 60)
    );
    assert_eq!((s.daily_used, s.critical_used), (1, 1));
    let file = file_json(&budget);
    assert_eq!(
        (
            file["capacity"].clone(),
            file["refill_rate_minutes"].clone()
        ),
        (2.into(), 60.into())
    );
    assert_eq!(budget.snapshot_at(now).unwrap(), s);
}

#[test]
fn configure_rejects_zero_without_touching_the_file() {
    let (_dir, budget) = setup();
    let err = budget.configure_at(Some(0), Some(10), at(24, 9, 0));
    assert!(matches!(
        err,
        Err(BudgetError::NotPositive {
            setting: "capacity"
        })
    ));
    let err = budget
        .configure_at(None, Some(0), at(24, 9, 0))
        .unwrap_err();
    assert_eq!(err.to_string(), "refill_rate must be a positive integer");
    assert!(!budget.path().exists());
    assert_eq!(positive_setting("capacity", 8).unwrap(), 8);
    assert!(positive_setting("capacity", 0).is_err());
    assert!(positive_setting("capacity", -3).is_err());
    assert!(positive_setting("capacity", i64::MAX).is_err());
}

#[test]
fn corrupt_file_is_moved_aside_and_defaults_used() {
    let (dir, budget) = setup();
    fs::create_dir_all(dir.path().join("state")).unwrap();
    fs::write(budget.path(), b"{\"capacity\": oops").unwrap();
    let now = at(24, 9, 0);
    assert_eq!(budget.snapshot_at(now).unwrap(), snap(5.0, 0, 0));
    let copies = crate::state::set_aside::copies_of(&dir.path().join("state/ping_budget.json"));
    assert_eq!(fs::read(&copies[0]).unwrap(), b"{\"capacity\": oops");
    assert_eq!(file_json(&budget)["capacity"], 5);
}

#[test]
fn out_of_range_values_are_sanitised() {
    let (_dir, budget) = setup();
    write_state(&budget, 9.0, at(24, 9, 0), 0);
    let mut file = file_json(&budget);
    file["capacity"] = 0.into();
    file["refill_rate_minutes"] = 0.into();
    fs::write(budget.path(), file.to_string()).unwrap();
    let s = budget.snapshot_at(at(24, 9, 0)).unwrap();
    assert_eq!(s, snap(5.0, 0, 0));
    // A negative counter does not fit the type: the whole file counts as corrupt.
    file["daily_used"] = (-1).into();
    fs::write(budget.path(), file.to_string()).unwrap();
    assert_eq!(budget.snapshot_at(at(24, 9, 0)).unwrap(), snap(5.0, 0, 0));
}

#[test]
fn concurrent_spends_never_exceed_capacity() {
    let (_dir, budget) = setup();
    let now = at(24, 9, 0);
    budget.snapshot_at(now).unwrap();
    let handles: Vec<_> = (0..8)
        .map(|_| {
            let budget = budget.clone();
            std::thread::spawn(move || {
                (0..3)
                    .filter(|_| budget.try_spend_at(now).unwrap() == Spend::Spent)
                    .count()
            })
        })
        .collect();
    let spent: usize = handles.into_iter().map(|h| h.join().unwrap()).sum();
    assert_eq!(spent, 5);
    assert_eq!(budget.snapshot_at(now).unwrap(), snap(0.0, 5, 0));
}
