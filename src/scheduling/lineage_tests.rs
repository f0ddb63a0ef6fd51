//! REM-15…REM-17: what a background run may cancel, and how deep runs may schedule runs.

use super::*;

fn by(job: &str, generation: u32) -> SetBy {
    SetBy::Background {
        job: job.to_owned(),
        generation,
    }
}

fn routine_run() -> RunLineage {
    RunLineage::of_tag(&PromptTag::RoutineBg("digest".into()))
}

#[test]
fn rem_15_a_run_acts_for_its_job_and_a_chain_for_its_first_link() {
    assert_eq!(routine_run().job(), "routine:digest");
    assert_eq!(routine_run().generation(), 0);
    let hook = RunLineage::of_tag(&PromptTag::Webhook("github-ci".into()));
    assert_eq!(hook.job(), "webhook:github-ci");
    let tz = chrono_tz::UTC;
    let mut reminder = Reminder::new_in(5, "check", chrono::Utc::now().with_timezone(&tz));
    reminder.set_by = by("routine:digest", 2);
    let run = RunLineage::of_reminder(&reminder);
    assert_eq!(run.job(), format!("reminder:{}", reminder.id));
    assert_eq!(run.generation(), 2);
    reminder.chain_parent = Some("first1".into());
    assert_eq!(RunLineage::of_reminder(&reminder).job(), "reminder:first1");
}

#[test]
fn rem_15_a_run_cancels_only_what_its_own_job_set() {
    let run = routine_run();
    assert_eq!(
        run.may_cancel("a1", &[Some(by("routine:digest", 1))]),
        Ok(())
    );
    assert_eq!(
        run.may_cancel("a1", &[Some(SetBy::Owner)]).unwrap_err(),
        "Error: reminder a1 not cancelled: a background run can cancel only the reminders its \
         own job (routine:digest) set, and a1 was set by the owner."
    );
    assert!(
        run.may_cancel("a1", &[Some(by("routine:other", 1))])
            .unwrap_err()
            .ends_with("a1 was set by a background run of routine:other.")
    );
    // Every file of the id must be the job's; one it can't read is nobody's it can claim.
    assert!(
        run.may_cancel("a1", &[Some(by("routine:digest", 1)), None])
            .unwrap_err()
            .ends_with("a1 was set by someone the bot can't tell.")
    );
}

#[test]
fn rem_17_generations_end_at_the_bound() {
    let mut run = routine_run();
    for generation in 1..=MAX_GENERATIONS {
        assert_eq!(run.child(0), Ok(by("routine:digest", generation)));
        run.generation = generation;
    }
    assert!(
        run.child(0)
            .unwrap_err()
            .starts_with("Error: reminder not set: this run comes at the end of a line of 3 ")
    );
}

#[test]
fn rem_17_a_chain_a_run_sets_fits_the_room_left() {
    let run = routine_run();
    assert!(run.child(MAX_GENERATIONS - 1).is_ok());
    assert!(
        run.child(MAX_GENERATIONS)
            .unwrap_err()
            .ends_with("so ask for max_chain 2 or less.")
    );
    let mut last = routine_run();
    last.generation = MAX_GENERATIONS - 1;
    assert!(last.child(0).is_ok());
    assert!(
        last.child(1)
            .unwrap_err()
            .contains("may chain at most 0 follow-ups")
    );
}

#[test]
fn rem_17_follow_ups_of_a_runs_chain_move_down_and_the_owners_stay() {
    assert_eq!(follow_up_set_by(&SetBy::Owner), Ok(SetBy::Owner));
    assert_eq!(
        follow_up_set_by(&by("routine:digest", 1)),
        Ok(by("routine:digest", 2))
    );
    assert!(
        follow_up_set_by(&by("routine:digest", MAX_GENERATIONS))
            .unwrap_err()
            .starts_with("Error: follow-up not scheduled:")
    );
}
