//! Registry bookkeeping with fixed clocks (RTN-5, REM-1, REM-4, REM-12, SCH-2).

use std::path::PathBuf;

use chrono::TimeZone;

use super::*;

const TZ: Tz = chrono_tz::America::Los_Angeles;

fn at(h: u32, m: u32, s: u32) -> DateTime<Tz> {
    TZ.with_ymd_and_hms(2026, 11, 21, h, m, s).unwrap()
}

fn routine(id: &str, cron: &str) -> JobFile<Routine> {
    let mut routine = Routine::new(cron, "Plan the day");
    routine.id = id.to_owned();
    JobFile {
        path: PathBuf::from(format!("routines/{id}.md")),
        item: routine,
        notes: Vec::new(),
    }
}

fn reminder(id: &str, run_at: DateTime<Tz>) -> JobFile<Reminder> {
    let mut reminder =
        Reminder::new_in(1, "Move the laundry", chrono::Utc::now().with_timezone(&TZ));
    reminder.id = id.to_owned();
    reminder.run_at = run_at.fixed_offset();
    JobFile {
        path: PathBuf::from(format!("reminders/{id}.md")),
        item: reminder,
        notes: Vec::new(),
    }
}

#[test]
fn a_routine_fires_at_its_minute_and_moves_on() {
    let mut registry = Registry::default();
    registry.sync(vec![routine("r1", "0 9 * * *")], vec![], at(8, 59, 30));
    assert_eq!(registry.next_wake(), Some(at(9, 0, 0)));
    assert!(registry.take_due(at(8, 59, 59)).is_empty());
    let due = registry.take_due(at(9, 0, 0));
    assert!(matches!(&due[..], [Fire::Routine(file)] if file.item.id == "r1"));
    assert!(registry.take_due(at(9, 0, 1)).is_empty(), "fires once");
    assert_eq!(
        registry.next_wake(),
        Some(TZ.with_ymd_and_hms(2026, 11, 22, 9, 0, 0).unwrap())
    );
}

#[test]
fn an_edit_reschedules_and_a_deletion_unregisters() {
    let mut registry = Registry::default();
    registry.sync(vec![routine("r1", "0 9 * * *")], vec![], at(8, 0, 0));
    let edited = registry.sync(vec![routine("r1", "5 9 * * *")], vec![], at(8, 0, 10));
    assert!(edited.removed_routines.is_empty());
    assert_eq!(registry.next_wake(), Some(at(9, 5, 0)));
    let mut body = routine("r1", "5 9 * * *");
    body.item.message = "New body".into();
    registry.sync(vec![body], vec![], at(9, 4, 0));
    match &registry.take_due(at(9, 5, 0))[..] {
        [Fire::Routine(file)] => assert_eq!(file.item.message, "New body"),
        other => panic!("{other:?}"),
    }
    let gone = registry.sync(vec![], vec![], at(9, 6, 0));
    assert_eq!(gone.removed_routines, vec!["r1".to_owned()]);
    assert!(registry.is_empty());
}

#[test]
fn a_bad_cron_is_a_problem_and_the_others_still_register() {
    let mut registry = Registry::default();
    let outcome = registry.sync(
        vec![routine("bad", "61 9 * * *"), routine("good", "0 10 * * *")],
        vec![],
        at(8, 0, 0),
    );
    assert_eq!(outcome.problems.len(), 1);
    assert_eq!(outcome.problems[0].path, PathBuf::from("routines/bad.md"));
    assert_eq!(registry.len(), 1);
}

#[test]
fn reminders_fire_once_overdue_ones_late_and_deleted_ones_never() {
    let mut registry = Registry::default();
    registry.sync(
        vec![],
        vec![
            reminder("soon", at(9, 30, 0)),
            reminder("missed", at(7, 0, 0)),
            reminder("cancelled", at(9, 45, 0)),
        ],
        at(9, 0, 0),
    );
    assert_eq!(
        registry.next_wake(),
        Some(at(9, 0, 5)),
        "overdue fires 5 s later"
    );
    match &registry.take_due(at(9, 0, 5))[..] {
        [Fire::Reminder { file, late }] => {
            assert_eq!(file.item.id, "missed");
            assert_eq!(*late, Some(at(7, 0, 0)));
        }
        other => panic!("{other:?}"),
    }
    registry.sync(
        vec![],
        vec![
            reminder("soon", at(9, 30, 0)),
            reminder("missed", at(7, 0, 0)),
        ],
        at(9, 10, 0),
    );
    assert!(
        registry.take_due(at(9, 20, 0)).is_empty(),
        "fired once only"
    );
    match &registry.take_due(at(9, 30, 0))[..] {
        [Fire::Reminder { file, late: None }] => assert_eq!(file.item.id, "soon"),
        other => panic!("{other:?}"),
    }
    registry.sync(vec![], vec![], at(9, 31, 0));
    assert!(
        registry.take_due(at(10, 0, 0)).is_empty(),
        "the deleted one never fires"
    );
    assert!(registry.is_empty());
}

#[test]
fn a_reminder_just_behind_the_sync_fires_at_once_without_the_marker() {
    let mut registry = Registry::default();
    registry.sync(vec![], vec![reminder("now", at(9, 0, 0))], at(9, 0, 8));
    match &registry.take_due(at(9, 0, 8))[..] {
        [Fire::Reminder { late: None, .. }] => {}
        other => panic!("{other:?}"),
    }
}

/// Issue 16, clock jumps: a jump forward over a routine's time passes it over (reported, not
/// fired); a reminder due in the gap fires, marked late; a jump backward never fires twice.
#[test]
fn a_jump_forward_is_time_offline_and_a_jump_back_fires_nothing_twice() {
    let mut registry = Registry::default();
    registry.sync(
        vec![routine("morning", "0 9 * * *")],
        vec![reminder("laundry", at(9, 30, 0))],
        at(8, 0, 0),
    );
    // Suspended at 8:00, awake at 11:00.
    let passed = registry.pass_over_gap(at(8, 0, 0), at(11, 0, 0));
    assert_eq!(passed.len(), 1);
    assert_eq!(passed[0].item.id, "morning");
    let due = registry.take_due(at(11, 0, 0));
    assert_eq!(due.len(), 1, "only the reminder fires: {due:?}");
    assert!(matches!(&due[0], Fire::Reminder { late: Some(_), .. }));
    // Back an hour: nothing fires again.
    assert!(registry.take_due(at(10, 0, 0)).is_empty());
    assert!(registry.take_due(at(11, 30, 0)).is_empty());
}
