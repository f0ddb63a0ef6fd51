//! Fixed-clock tests of the forward schedule (BGF-15, BGF-16).

use super::*;
use chrono::TimeZone;
use chrono_tz::America::Los_Angeles;

/// A wall-clock time in Los Angeles.
fn la(y: i32, mo: u32, d: u32, h: u32, mi: u32) -> DateTime<Tz> {
    Los_Angeles.with_ymd_and_hms(y, mo, d, h, mi, 0).unwrap()
}

/// 9:00 AM on a fixed day.
fn nine() -> DateTime<Tz> {
    la(2026, 3, 10, 9, 0)
}

fn routine(
    id: &str,
    description: Option<&str>,
    previous: Option<DateTime<Tz>>,
    next: Option<DateTime<Tz>>,
) -> ScheduledJob {
    ScheduledJob {
        id: id.to_string(),
        kind: ScheduledKind::Routine {
            previous_fire: previous,
            next_fire: next,
        },
        allow_ping: true,
        description: description.map(str::to_string),
        body: format!("Body of {id}"),
        file_path: format!("routines/{id}.md"),
    }
}

fn reminder(id: &str, run_at: DateTime<Tz>) -> ScheduledJob {
    ScheduledJob {
        id: id.to_string(),
        kind: ScheduledKind::Reminder {
            run_at,
            chain: None,
        },
        allow_ping: true,
        description: None,
        body: format!("Reminder {id}"),
        file_path: format!("reminders/{id}.md"),
    }
}

fn ids(entries: &[ScheduleEntry]) -> Vec<&str> {
    entries.iter().map(|e| e.file_path.as_str()).collect()
}

#[test]
fn one_within_base_window_plus_two_later_shows_three() {
    let now = nine();
    let jobs = [
        reminder("a", now + Duration::hours(1)),
        reminder("b", now + Duration::hours(5)),
        reminder("c", now + Duration::hours(8)),
        reminder("d", now + Duration::hours(9)),
    ];
    let entries = forward_schedule(&jobs, now, None);
    assert_eq!(
        ids(&entries),
        ["reminders/a.md", "reminders/b.md", "reminders/c.md"]
    );
}

#[test]
fn fewer_than_min_forward_keeps_all() {
    let now = nine();
    let jobs = [
        reminder("late", now + Duration::hours(11)),
        reminder("soon", now + Duration::minutes(10)),
    ];
    let entries = forward_schedule(&jobs, now, None);
    assert_eq!(ids(&entries), ["reminders/soon.md", "reminders/late.md"]);
}

#[test]
fn four_within_base_window_are_all_kept() {
    let now = nine();
    let jobs: Vec<_> = (1..=4)
        .map(|i| reminder(&format!("r{i}"), now + Duration::minutes(40 * i)))
        .chain([reminder("later", now + Duration::hours(4))])
        .collect();
    let entries = forward_schedule(&jobs, now, None);
    assert_eq!(entries.len(), 4);
    assert!(entries.iter().all(|e| e.fire_time <= now + BASE_WINDOW));
}

#[test]
fn grace_window_is_inclusive_on_both_sides() {
    let now = nine();
    let jobs = [
        reminder("edge-past", now - GRACE),
        reminder("too-old", now - GRACE - Duration::seconds(1)),
        reminder("edge-future", now + MAX_WINDOW),
        reminder("too-far", now + MAX_WINDOW + Duration::seconds(1)),
        routine("r-prev", None, Some(now - GRACE), None),
        routine("r-old", None, Some(now - Duration::minutes(16)), None),
    ];
    let entries = forward_schedule(&jobs, now, None);
    assert_eq!(
        ids(&entries),
        [
            "reminders/edge-past.md",
            "routines/r-prev.md",
            "reminders/edge-future.md"
        ]
    );
    assert_eq!(entries[0].tag, Some(EntryTag::JustFired));
    assert_eq!(entries[2].tag, None);
}

#[test]
fn routine_next_fire_capped_at_twelve_hours() {
    let now = nine();
    let jobs = [
        routine("near", Some("Near"), None, Some(now + Duration::hours(12))),
        routine("far", Some("Far"), None, Some(now + Duration::hours(13))),
        routine("none", None, None, None),
    ];
    let entries = forward_schedule(&jobs, now, None);
    assert_eq!(ids(&entries), ["routines/near.md"]);
}

#[test]
fn firing_routine_is_this_task_and_not_duplicated() {
    let now = nine();
    let jobs = [
        routine("morning", Some("Morning review"), Some(now), Some(now)),
        routine("other", None, Some(now - Duration::minutes(5)), None),
    ];
    let entries = forward_schedule(&jobs, now, Some("morning"));
    assert_eq!(entries.len(), 2);
    assert_eq!(entries[0].file_path, "routines/other.md");
    assert_eq!(entries[0].tag, Some(EntryTag::JustFired));
    assert_eq!(entries[1].tag, Some(EntryTag::ThisTask));
    assert_eq!(entries[1].label, "Morning review");
}

#[test]
fn labels_for_routines_and_reminders() {
    let now = nine();
    let mut chain = reminder("chain", now + Duration::minutes(30));
    chain.kind = ScheduledKind::Reminder {
        run_at: now + Duration::minutes(30),
        chain: Some(ChainPosition { depth: 1, max: 3 }),
    };
    let mut no_chain = reminder("zero", now + Duration::minutes(40));
    no_chain.kind = ScheduledKind::Reminder {
        run_at: now + Duration::minutes(40),
        chain: Some(ChainPosition { depth: 0, max: 0 }),
    };
    let mut described = reminder("desc", now + Duration::minutes(50));
    described.description = Some("Water the plants".to_string());
    let jobs = [
        chain,
        no_chain,
        described,
        routine("plain", Some("  "), None, Some(now + Duration::hours(1))),
    ];
    let entries = forward_schedule(&jobs, now, None);
    let labels: Vec<_> = entries.iter().map(|e| e.label.as_str()).collect();
    assert_eq!(
        labels,
        ["Chain reminder (2/4)", "Reminder", "Reminder", "Routine"]
    );
    assert_eq!(entries[2].description, "Water the plants");
    assert_eq!(entries[3].description, "Body of plain");
}

#[test]
fn body_description_flattened_and_cut_by_chars() {
    let now = nine();
    let mut job = reminder("long", now + Duration::minutes(5));
    // 59 multibyte characters, a newline, then more text: cut lands after 60 chars.
    job.body = format!("  {}\nüberall und noch viel mehr Text  ", "é".repeat(59));
    let mut short = reminder("short", now + Duration::minutes(6));
    short.body = "line one\r\nline two\n".to_string();
    let entries = forward_schedule(&[job, short], now, None);
    assert_eq!(entries[0].description, format!("{} ...", "é".repeat(59)));
    assert_eq!(entries[0].description.chars().count(), 63);
    assert_eq!(entries[1].description, "line one line two");

    let mut exact = reminder("exact", now + Duration::minutes(7));
    exact.body = "ß".repeat(DESCRIPTION_CHARS);
    let entries = forward_schedule(&[exact], now, None);
    assert_eq!(entries[0].description, "ß".repeat(DESCRIPTION_CHARS));
}

#[test]
fn silent_flag_follows_allow_ping() {
    let now = nine();
    let mut job = reminder("quiet", now + Duration::minutes(5));
    job.allow_ping = false;
    let entries = forward_schedule(&[job], now, None);
    assert!(entries[0].silent);
}

/// Modelled on the [S3] example, with a third entry so the window spans three hours.
#[test]
fn renders_seed_example() {
    let now = nine();
    let mut email = routine("email-digest", None, None, Some(la(2026, 3, 10, 9, 30)));
    email.allow_ping = false;
    email.body = "Check email".to_string();
    let jobs = [
        routine(
            "morning-tasks",
            Some("Morning task review"),
            Some(now),
            Some(la(2026, 3, 11, 9, 0)),
        ),
        email,
        reminder("dentist", la(2026, 3, 10, 12, 0)),
    ];
    let entries = forward_schedule(&jobs, now, Some("morning-tasks"));
    let text = render_schedule(&entries, now, 90);
    assert_eq!(
        text,
        "Upcoming bg tasks (next 3h):\n\
         - 9:00 AM: Morning task review — \"Morning task review\" (routines/morning-tasks.md) [this task]\n\
         - 9:30 AM: Routine (silent) — \"Check email\" (routines/email-digest.md)\n\
         - 12:00 PM: Reminder — \"Reminder dentist\" (reminders/dentist.md)\n\
         ~2 refills before last task."
    );
}

#[test]
fn refill_line_singular_plural_and_absent() {
    let now = nine();
    let render = |minutes: i64| {
        let jobs = [reminder("x", now + Duration::minutes(minutes))];
        render_schedule(&forward_schedule(&jobs, now, None), now, 90)
    };
    assert!(render(89).ends_with("(reminders/x.md)"));
    assert!(render(90).ends_with("\n~1 refill before last task."));
    assert!(render(179).ends_with("\n~1 refill before last task."));
    assert!(render(180).ends_with("\n~2 refills before last task."));
    // A zero refill rate never divides by zero.
    let jobs = [reminder("x", now + Duration::hours(5))];
    let text = render_schedule(&forward_schedule(&jobs, now, None), now, 0);
    assert!(!text.contains("refill"));
}

#[test]
fn window_hours_round_with_minimum_of_one() {
    let now = nine();
    let header = |minutes: i64| {
        let jobs = [reminder("x", now + Duration::minutes(minutes))];
        let text = render_schedule(&forward_schedule(&jobs, now, None), now, 90);
        text.lines().next().unwrap().to_string()
    };
    assert_eq!(header(10), "Upcoming bg tasks (next 1h):");
    assert_eq!(header(100), "Upcoming bg tasks (next 2h):");
    assert_eq!(header(150), "Upcoming bg tasks (next 2h):");
    assert_eq!(header(151), "Upcoming bg tasks (next 3h):");
    assert_eq!(header(11 * 60 + 40), "Upcoming bg tasks (next 12h):");
}

#[test]
fn only_recent_entries_render_recent_header() {
    let now = nine();
    let jobs = [
        routine("self", Some("Self"), Some(now), None),
        reminder("prev", now - Duration::minutes(3)),
    ];
    let text = render_schedule(&forward_schedule(&jobs, now, Some("self")), now, 90);
    assert_eq!(
        text,
        "Upcoming bg tasks (recent):\n\
         - 8:57 AM: Reminder — \"Reminder prev\" (reminders/prev.md) [just fired]\n\
         - 9:00 AM: Self — \"Self\" (routines/self.md) [this task]"
    );
}

#[test]
fn empty_schedule_text() {
    let now = nine();
    assert_eq!(render_schedule(&[], now, 90), "No more bg tasks today.");
    let far = [reminder("far", now + Duration::hours(20))];
    let entries = forward_schedule(&far, now, None);
    assert_eq!(
        render_schedule(&entries, now, 90),
        "No more bg tasks today."
    );
}

#[test]
fn late_evening_routine_and_next_day_in_los_angeles() {
    let now = la(2026, 11, 3, 23, 40);
    let jobs = [
        routine(
            "wind-down",
            Some("Wind down"),
            None,
            Some(la(2026, 11, 3, 23, 50)),
        ),
        reminder("meds", la(2026, 11, 4, 0, 5)),
        routine("early", None, None, Some(la(2026, 11, 4, 9, 5))),
    ];
    let entries = forward_schedule(&jobs, now, None);
    let text = render_schedule(&entries, now, 90);
    assert_eq!(
        text,
        "Upcoming bg tasks (next 9h):\n\
         - 11:50 PM: Wind down — \"Wind down\" (routines/wind-down.md)\n\
         - 12:05 AM: Reminder — \"Reminder meds\" (reminders/meds.md)\n\
         - 9:05 AM: Routine — \"Body of early\" (routines/early.md)\n\
         ~6 refills before last task."
    );
}

#[test]
fn times_render_in_the_zone_of_now() {
    let now = nine();
    let utc_time = chrono_tz::UTC
        .with_ymd_and_hms(2026, 3, 10, 17, 5, 0)
        .unwrap();
    assert_eq!(clock_time(utc_time, now.timezone()), "10:05 AM");
    assert_eq!(clock_time(la(2026, 3, 10, 0, 0), Los_Angeles), "12:00 AM");
}
