use std::time::Duration;

use tokio::time::Instant;

use super::{BackoffPolicy, StartGate, StartTransition, Starter};
use crate::claude::ClaudeError;

fn crash() -> ClaudeError {
    ClaudeError::ProcessExited {
        code: Some(1),
        limit: None,
        stderr_tail: "boom".to_owned(),
    }
}

fn gate() -> StartGate {
    StartGate::new(BackoffPolicy {
        first: Duration::from_secs(2),
        max: Duration::from_secs(60),
        owner_spacing: Duration::from_secs(10),
    })
}

fn secs(n: u64) -> Duration {
    Duration::from_secs(n)
}

#[test]
fn healthy_gate_admits_everyone() {
    let gate = gate();
    let t0 = Instant::now();
    assert!(gate.admit(Starter::Background, t0).is_ok());
    assert!(gate.admit(Starter::Owner, t0).is_ok());
    assert_eq!(gate.record(&Ok(()), t0), StartTransition::Unchanged);
}

#[test]
fn first_failure_is_reported_once_then_backs_off_doubling() {
    let gate = gate();
    let t0 = Instant::now();
    assert_eq!(
        gate.record(&Err(&crash()), t0),
        StartTransition::StartedFailing
    );
    let refused = gate.admit(Starter::Background, t0 + secs(1)).unwrap_err();
    assert!(
        matches!(&refused, ClaudeError::NotStarting { retry_in_secs: 1, last_failure } if last_failure.contains("boom")),
        "{refused:?}"
    );
    // 2 s after the first failure one background start may try; the next must wait.
    assert!(gate.admit(Starter::Background, t0 + secs(2)).is_ok());
    assert!(gate.admit(Starter::Background, t0 + secs(2)).is_err());
    assert_eq!(
        gate.record(&Err(&crash()), t0 + secs(2)),
        StartTransition::Unchanged
    );
    // Second failure: 4 s, then 8 s.
    assert!(gate.admit(Starter::Background, t0 + secs(5)).is_err());
    assert!(gate.admit(Starter::Background, t0 + secs(6)).is_ok());
    gate.record(&Err(&crash()), t0 + secs(6));
    assert!(gate.admit(Starter::Background, t0 + secs(13)).is_err());
    assert!(gate.admit(Starter::Background, t0 + secs(14)).is_ok());
}

#[test]
fn waits_stop_growing_at_the_ceiling() {
    let gate = gate();
    let mut now = Instant::now();
    for _ in 0..30 {
        gate.record(&Err(&crash()), now);
        now += secs(60);
        assert!(gate.admit(Starter::Background, now).is_ok());
    }
}

#[test]
fn the_owner_may_try_every_ten_seconds() {
    let gate = gate();
    let t0 = Instant::now();
    for _ in 0..6 {
        gate.record(&Err(&crash()), t0);
    }
    assert!(gate.admit(Starter::Background, t0 + secs(10)).is_err());
    assert!(gate.admit(Starter::Owner, t0 + secs(10)).is_ok());
    let refused = gate.admit(Starter::Owner, t0 + secs(15)).unwrap_err();
    assert!(matches!(
        refused,
        ClaudeError::NotStarting {
            retry_in_secs: 5,
            ..
        }
    ));
}

#[test]
fn a_good_start_ends_the_streak_and_says_how_long_it_was() {
    let gate = gate();
    let t0 = Instant::now();
    gate.record(&Err(&crash()), t0);
    gate.record(&Err(&crash()), t0);
    assert_eq!(
        gate.record(&Ok(()), t0 + secs(5)),
        StartTransition::Recovered {
            failures: 2,
            told: false
        }
    );
    assert!(gate.admit(Starter::Background, t0 + secs(5)).is_ok());
    assert_eq!(
        gate.record(&Err(&crash()), t0 + secs(6)),
        StartTransition::StartedFailing
    );
}

#[test]
fn timeouts_and_missing_sessions_are_not_start_failures() {
    let gate = gate();
    let t0 = Instant::now();
    let timeout = ClaudeError::Timeout {
        subtype: "initialize".to_owned(),
        secs: 60,
    };
    assert_eq!(gate.record(&Err(&timeout), t0), StartTransition::Unchanged);
    assert!(gate.admit(Starter::Background, t0).is_ok());
    let explained = gate.explain(timeout, t0);
    assert!(matches!(explained, ClaudeError::Timeout { .. }));
}

#[test]
fn a_failed_start_is_explained_as_not_starting() {
    let gate = gate();
    let t0 = Instant::now();
    gate.record(&Err(&crash()), t0);
    let explained = gate.explain(crash(), t0);
    assert_eq!(
        explained.to_string(),
        "Claude Code won't start (the Claude Code CLI exited unexpectedly (exit code 1): boom); \
         next try in 2s"
    );
}

#[test]
fn the_owner_is_told_once_per_streak() {
    let gate = gate();
    let t0 = Instant::now();
    assert!(!gate.tell_once(), "nothing to tell while healthy");
    gate.record(&Err(&crash()), t0);
    assert!(gate.tell_once());
    gate.record(&Err(&crash()), t0 + secs(2));
    assert!(!gate.tell_once());
    assert_eq!(
        gate.record(&Ok(()), t0 + secs(6)),
        StartTransition::Recovered {
            failures: 2,
            told: true
        }
    );
    gate.record(&Err(&crash()), t0 + secs(7));
    assert!(gate.tell_once(), "a new streak is told again");
}
