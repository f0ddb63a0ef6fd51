use chrono::TimeZone;

use super::*;
use crate::usage::UsageKind;

fn at(day: u32, hour: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, day, hour, 0, 0).unwrap()
}

fn record(at: DateTime<Utc>, kind: UsageKind, job: Option<&str>, cost: f64) -> UsageRecord {
    UsageRecord::example(at, kind, job, cost)
}

fn ledger() -> Vec<UsageRecord> {
    vec![
        record(at(20, 12), UsageKind::Main, None, 1.0),
        record(at(26, 7), UsageKind::Routine, Some("routine:daily"), 0.5),
        record(at(26, 9), UsageKind::Main, None, 0.25),
        record(at(27, 3), UsageKind::Webhook, Some("webhook:github"), 2.0),
        record(
            at(27, 4),
            UsageKind::Screening,
            Some("webhook:github"),
            0.01,
        ),
    ]
}

#[test]
fn a_window_is_split_by_kind_most_expensive_first() {
    let summary = Summary::of(&ledger(), at(26, 0), GroupBy::Kind, chrono_tz::UTC);
    assert_eq!(summary.total.runs, 4);
    assert!((summary.total.cost_usd - 2.76).abs() < 1e-9);
    let names: Vec<&str> = summary
        .groups
        .iter()
        .map(|(name, _)| name.as_str())
        .collect();
    assert_eq!(names, ["webhook", "routine", "main", "screening"]);
    assert_eq!(summary.total.cache_hit_share(), Some(0.75));
    assert_eq!(summary.top(2).len(), 2);
    assert_eq!(Totals::default().cache_hit_share(), None);
}

#[test]
fn jobs_group_with_their_screening_and_days_follow_the_owners_zone() {
    let by_job = Summary::of(&ledger(), at(1, 0), GroupBy::Job, chrono_tz::UTC);
    assert_eq!(by_job.groups[0].0, "webhook:github");
    assert_eq!(by_job.groups[0].1.runs, 2);
    // 03:00 and 04:00 UTC on the 27th are still the 26th in Los Angeles.
    let by_day = Summary::of(
        &ledger(),
        at(1, 0),
        GroupBy::Day,
        chrono_tz::America::Los_Angeles,
    );
    let days: Vec<&str> = by_day.groups.iter().map(|(day, _)| day.as_str()).collect();
    assert_eq!(days, ["2026-11-20", "2026-11-25", "2026-11-26"]);
}

#[test]
fn the_background_budget_counts_only_unattended_work_of_the_day() {
    let day = NaiveDate::from_ymd_opt(2026, 11, 27).unwrap();
    let spent = background_spent_on(&ledger(), day, chrono_tz::UTC);
    assert!((spent - 2.01).abs() < 1e-9);
    let la = background_spent_on(&ledger(), day, chrono_tz::America::Los_Angeles);
    assert!(la.abs() < 1e-9);
}

/// CLK-2: a day whose midnight a clock change skips starts at its first minute that exists,
/// and a day a clock change makes 25 hours long starts at its one midnight (issue 40 §1).
#[test]
fn a_day_starts_at_its_first_real_minute_when_a_clock_change_skips_midnight() {
    let utc = |text: &str| {
        DateTime::parse_from_rfc3339(text)
            .unwrap()
            .with_timezone(&Utc)
    };
    // São Paulo, 2018-11-04: at 00:00 the clocks went to 01:00 (-03:00 → -02:00).
    let sao_paulo = chrono_tz::America::Sao_Paulo;
    let noon = utc("2018-11-04T14:00:00Z");
    assert_eq!(day_start(noon, sao_paulo), utc("2018-11-04T03:00:00Z"));
    assert_eq!(
        day_of(utc("2018-11-04T02:59:00Z"), sao_paulo).to_string(),
        "2018-11-03"
    );
    // Its first instant is 01:00 local: no record of the day before counts in it.
    assert_eq!(
        day_of(utc("2018-11-04T03:00:00Z"), sao_paulo).to_string(),
        "2018-11-04"
    );
    // London, 2026-10-25: the day is 25 hours long and starts at its midnight.
    let london = chrono_tz::Europe::London;
    assert_eq!(
        day_start(utc("2026-10-25T23:30:00Z"), london),
        utc("2026-10-25T00:00:00+01:00")
    );
}
