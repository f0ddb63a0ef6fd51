use std::time::{Duration, Instant};

use chrono::{TimeZone, Timelike};
use chrono_tz::Europe::Berlin;

use super::*;
use crate::update::process::CommandError;

const HOUR: Duration = Duration::from_secs(3600);

fn release(tag: &str) -> Release {
    Release::from_tag(tag).unwrap()
}

#[test]
fn off_never_checks() {
    let now = Instant::now();
    assert_eq!(check_due(false, HOUR, None, now), CheckDue::Off);
}

#[test]
fn the_first_tick_checks_then_the_interval_counts() {
    let start = Instant::now();
    assert_eq!(check_due(true, HOUR, None, start), CheckDue::Now);
    let later = start + Duration::from_secs(59 * 60);
    assert_eq!(check_due(true, HOUR, Some(start), later), CheckDue::NotYet);
    assert_eq!(
        check_due(true, HOUR, Some(start), start + HOUR),
        CheckDue::Now
    );
}

#[test]
fn a_fetch_failure_skips() {
    let error = UpdateError::Command(CommandError::TimedOut {
        command: "git fetch --tags origin".into(),
        secs: 60,
    });
    let step = next_step(Err(error), AgentActivity::Idle, 6, 6);
    assert!(
        matches!(&step, AutoStep::FetchFailed(e) if e.to_string() == "`git fetch --tags origin` timed out after 60s"),
        "{step:?}"
    );
}

#[test]
fn nothing_new_does_nothing_whatever_else() {
    let step = next_step(Ok(Detection::UpToDate), AgentActivity::Turn, 3, 6);
    assert!(matches!(step, AutoStep::NothingNew), "{step:?}");
    let step = next_step(
        Ok(Detection::AlreadyApplied(release("v9.0.0"))),
        AgentActivity::Idle,
        6,
        6,
    );
    assert!(matches!(step, AutoStep::AlreadyApplied(r) if r.tag == "v9.0.0"));
}

#[test]
fn a_busy_agent_defers_before_the_hour_counts() {
    for activity in [AgentActivity::Turn, AgentActivity::InFork] {
        for hour in [6, 7] {
            let step = next_step(
                Ok(Detection::Available(release("v1.0.0"))),
                activity,
                hour,
                6,
            );
            assert!(
                matches!(step, AutoStep::DeferBusy),
                "{activity:?} {hour}: {step:?}"
            );
        }
    }
}

#[test]
fn outside_the_hour_it_waits_and_inside_it_applies() {
    let available = || Ok(Detection::Available(release("v1.0.0")));
    let step = next_step(available(), AgentActivity::Idle, 5, 6);
    assert!(matches!(step, AutoStep::WaitForHour(6)), "{step:?}");
    let step = next_step(available(), AgentActivity::Idle, 6, 6);
    assert!(
        matches!(&step, AutoStep::Apply(r) if r.tag == "v1.0.0"),
        "{step:?}"
    );
}

#[test]
fn the_hour_is_the_local_wall_clock_hour_across_dst() {
    // 2026-03-29 is the spring-forward day in Berlin: 05:30 UTC is 07:30 local (CEST),
    // the day before 05:30 UTC was 06:30 local (CET).
    let after = chrono::Utc
        .with_ymd_and_hms(2026, 3, 29, 5, 30, 0)
        .unwrap()
        .with_timezone(&Berlin);
    let before = chrono::Utc
        .with_ymd_and_hms(2026, 3, 28, 5, 30, 0)
        .unwrap()
        .with_timezone(&Berlin);
    let available = || Ok(Detection::Available(release("v1.0.0")));
    let step = next_step(available(), AgentActivity::Idle, before.hour(), 6);
    assert!(matches!(step, AutoStep::Apply(_)), "{step:?}");
    let step = next_step(available(), AgentActivity::Idle, after.hour(), 6);
    assert!(matches!(step, AutoStep::WaitForHour(6)), "{step:?}");
}
