//! The approval scope of job files (issue 39 §4): read from the file as the scheduler reads
//! it, so a rewrite of any setting is another version.

use std::time::Duration;

use chrono_tz::Tz;

use super::{Reminder, Routine, UntilDone, parse_reminder, parse_routine};

const TZ: Tz = chrono_tz::Europe::Berlin;

fn routine(front: &str) -> Routine {
    parse_routine(&format!(
        "---\nid: \"r1\"\ncron: \"0 9 * * *\"\nallowed-tools: [\"Bash(git status)\"]\n\
         {front}---\nCheck.\n"
    ))
    .unwrap()
}

fn reminder(front: &str) -> Reminder {
    parse_reminder(
        &format!(
            "---\nid: \"m1\"\nrun-at: \"2026-12-01T09:00:00+01:00\"\n\
             allowed-tools: [\"Bash(git status)\"]\n{front}---\nCheck.\n"
        ),
        TZ,
    )
    .unwrap()
}

#[test]
fn a_rewritten_routine_is_another_version_and_its_label_is_not() {
    let base = routine("background: true\n").approval_scope();
    for front in [
        "",
        "background: true\nisolated: true\n",
        "background: true\nsession: persistent\n",
        "background: true\nallow-ping: false\n",
        "background: true\nupdate-main-session: blocked\n",
        "background: true\nuntil-done: true\n",
        "background: true\nuntil-done: true\nmax-nags: 2\n",
    ] {
        assert_ne!(
            routine(front).approval_scope().version(),
            base.version(),
            "{front:?} kept the version"
        );
    }
    let mut moved = routine("background: true\n");
    moved.cron = "*/5 * * * *".into();
    assert_ne!(moved.approval_scope().version(), base.version());
    let relabelled = routine("background: true\ndescription: \"Morning check\"\n");
    assert_eq!(relabelled.approval_scope().version(), base.version());
}

#[test]
fn a_rewritten_reminder_is_another_version() {
    let base = reminder("").approval_scope();
    for front in [
        "background: false\n",
        "isolated: true\n",
        "max-chain: 2\n",
        "allow-ping: false\n",
        "update-main-session: always\n",
    ] {
        assert_ne!(
            reminder(front).approval_scope().version(),
            base.version(),
            "{front:?} kept the version"
        );
    }
    let mut set_by_a_run = reminder("");
    set_by_a_run.set_by = super::SetBy::Background {
        job: "routine:r1".into(),
        generation: 1,
    };
    let scope = set_by_a_run.approval_scope();
    assert_ne!(scope.version(), base.version());
    assert!(
        scope
            .summary()
            .contains("set-by: a background run of routine:r1, generation 1"),
        "{}",
        scope.summary()
    );
    let mut later = reminder("");
    later.run_at += chrono::Duration::minutes(1);
    assert_ne!(later.approval_scope().version(), base.version());
    // The CLI and the scheduler compute it from the same file: render and read back agree.
    let same = parse_reminder(&super::render_reminder(&reminder("max-chain: 2\n")), TZ).unwrap();
    assert_eq!(
        same.approval_scope(),
        reminder("max-chain: 2\n").approval_scope()
    );
}

#[test]
fn until_done_is_named_with_its_timing() {
    let mut open = reminder("");
    open.until_done = Some(UntilDone {
        nag_every: Some(Duration::from_secs(600)),
        max_nags: Some(3),
    });
    let summary = open.approval_scope().summary();
    assert!(
        summary.ends_with("until-done: true, nag-every 600 s, max-nags 3"),
        "{summary}"
    );
    assert!(
        !reminder("")
            .approval_scope()
            .summary()
            .contains("until-done")
    );
}
