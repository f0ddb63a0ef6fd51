//! Routine fires missed while the bot was down: not replayed (RTN-7), but each one is
//! reported to the main session as a pending update, so the owner hears about it.
//!
//! The scheduler writes the time of its last tick to `state/scheduler.json`; at start-up every
//! cron fire between that time and now is a missed fire.

use std::path::Path;

use chrono::{DateTime, FixedOffset};
use chrono_tz::Tz;
use serde::{Deserialize, Serialize};

use super::{
    cron::CronSchedule,
    files::{JobFile, Routine},
};
use crate::{
    scheduling::forward::clock_time,
    state::{
        StateError,
        state_file::{Json, StateFile},
    },
};

/// Most missed fires listed per routine.
const MAX_LISTED: usize = 10;

/// What `state/scheduler.json` holds: the format `doctor` and the start-up check judge it by
/// (issue 40 §1).
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct LastTick {
    #[serde(default)]
    last_tick: Option<DateTime<FixedOffset>>,
}

/// The scheduler's file as a state file.
pub type Format = Json<LastTick>;

/// When the scheduler last ran, if it ever did: a missing file means never; a damaged one is
/// set aside and one that can't be read is left alone (the owner told of either), and there
/// is no missed-fire report this time.
pub fn last_tick(path: &Path) -> Option<DateTime<FixedOffset>> {
    match StateFile::<Format>::new(path).read() {
        Ok(tick) => tick.last_tick,
        Err(error) => {
            tracing::warn!(%error, "no missed-fire report this time");
            None
        }
    }
}

/// Records `now` as the last tick.
pub fn record_tick(path: &Path, now: DateTime<FixedOffset>) -> Result<(), StateError> {
    StateFile::<Format>::new(path).update(|tick| tick.last_tick = Some(now))
}

/// The pending-update text for each routine that should have fired in `(since, now]`.
pub fn missed_fire_reports(
    routines: &[JobFile<Routine>],
    since: DateTime<FixedOffset>,
    now: DateTime<Tz>,
) -> Vec<String> {
    let tz = now.timezone();
    let since = since.with_timezone(&tz);
    routines
        .iter()
        .filter_map(|file| {
            let schedule = CronSchedule::parse(&file.item.cron).ok()?;
            let fires = schedule.fires_between(since, now, MAX_LISTED + 1);
            if fires.is_empty() {
                return None;
            }
            let mut listed: Vec<String> = fires
                .iter()
                .take(MAX_LISTED)
                .map(|at| format!("{} {}", at.format("%a %b %-d"), clock_time(*at, tz)))
                .collect();
            if fires.len() > MAX_LISTED {
                listed.push("and more".to_owned());
            }
            let routine = &file.item;
            let name = if routine.description.is_empty() {
                routine.message.chars().take(60).collect::<String>()
            } else {
                routine.description.clone()
            };
            Some(format!(
                "Missed while offline: routine \"{name}\" ({}) was due {} and was not run.",
                file.path.display(),
                listed.join(", ")
            ))
        })
        .collect()
}

/// How far the wall clock may run ahead of the monotonic clock between two looks before it
/// counts as a jump (a suspend, an NTP step); smaller drifts are ordinary.
pub const CLOCK_JUMP: std::time::Duration = std::time::Duration::from_secs(120);

/// Whether the wall clock jumped forward between two looks: it advanced `wall` while the
/// monotonic clock (which stops during a suspend and never steps) advanced `monotonic`.
pub fn jumped_forward(wall: chrono::Duration, monotonic: std::time::Duration) -> bool {
    chrono::Duration::from_std(monotonic + CLOCK_JUMP).is_ok_and(|allowed| wall > allowed)
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use chrono::TimeZone;

    use super::*;

    #[test]
    fn every_fire_in_the_gap_is_reported_once_per_routine() {
        let tz = chrono_tz::America::Los_Angeles;
        let mut hourly = Routine::new("0 * * * *", "Stretch");
        hourly.description = "Stretch break".into();
        let daily = Routine::new("0 6 * * *", "Morning plan");
        let files = vec![
            JobFile {
                path: PathBuf::from("routines/stretch.md"),
                item: hourly,
                notes: Vec::new(),
            },
            JobFile {
                path: PathBuf::from("routines/morning.md"),
                item: daily,
                notes: Vec::new(),
            },
        ];
        let since = tz
            .with_ymd_and_hms(2026, 11, 21, 7, 30, 0)
            .unwrap()
            .fixed_offset();
        let now = tz.with_ymd_and_hms(2026, 11, 21, 10, 15, 0).unwrap();
        let reports = missed_fire_reports(&files, since, now);
        assert_eq!(reports.len(), 1, "{reports:?}");
        assert_eq!(
            reports[0],
            "Missed while offline: routine \"Stretch break\" (routines/stretch.md) was due \
             Sat Nov 21 8:00 AM, Sat Nov 21 9:00 AM, Sat Nov 21 10:00 AM and was not run."
        );
    }

    #[test]
    fn the_last_tick_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("scheduler.json");
        let now = chrono::DateTime::parse_from_rfc3339("2026-11-21T10:15:00.250-08:00").unwrap();
        assert!(last_tick(&path).is_none());
        record_tick(&path, now).unwrap();
        assert_eq!(last_tick(&path), Some(now));
        std::fs::write(&path, "garbage").unwrap();
        assert!(last_tick(&path).is_none());
        assert!(!path.exists(), "set aside");
    }

    #[test]
    fn only_a_real_jump_counts() {
        let minutes = |m: i64| chrono::Duration::minutes(m);
        let secs = std::time::Duration::from_secs;
        assert!(!jumped_forward(minutes(10), secs(600)), "in step");
        assert!(!jumped_forward(minutes(11), secs(600)), "a minute of drift");
        assert!(jumped_forward(minutes(180), secs(5)), "a suspend");
        assert!(
            !jumped_forward(minutes(-60), secs(5)),
            "backwards is not forwards"
        );
    }
}
