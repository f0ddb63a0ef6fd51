//! What a fire sends: the foreground prompt for the main session (RTN-3, REM-5) or the
//! background job for the runner (RTN-4, REM-5), with tags, the late marker (REM-4), skills and
//! chain context.

use chrono::DateTime;
use chrono_tz::Tz;

use super::files::{Reminder, Routine};
use super::{bg_job::BgJob, forward::clock_time, job_sink::JobPrompt, lineage::RunLineage};
use crate::domain::{
    job_options::{BgSession, ChainContext, RunMode, chain_context, skills_block},
    prompt_tag::PromptTag,
};

/// `[late: was scheduled for <h:MM AM/PM>, running now]` (REM-4).
pub fn late_marker(scheduled: DateTime<Tz>) -> String {
    format!(
        "[late: was scheduled for {}, running now]",
        clock_time(scheduled, scheduled.timezone())
    )
}

/// The foreground prompt of a routine: `[routine:<id>] ` + skills + body (RTN-3); with
/// `command_first`, the body leads and the rest follows the time (CTX-11).
pub fn routine_prompt(routine: &Routine, command_first: bool) -> JobPrompt {
    let mut prompt = format!("{} ", PromptTag::Routine(routine.id.clone()));
    if let Some(skills) = skills_block(&routine.options.skills) {
        prompt.push_str(&skills);
        prompt.push_str("\n\n");
    }
    if command_first {
        return JobPrompt {
            lead: Some(routine.message.trim().to_owned()),
            text: prompt.trim_end().to_owned(),
        };
    }
    prompt.push_str(&routine.message);
    JobPrompt {
        lead: None,
        text: prompt,
    }
}

/// The foreground prompt of a reminder: tag, late marker, skills, chain context and body, one
/// part per line (REM-5); with `command_first`, the body leads (CTX-11).
pub fn reminder_prompt(
    reminder: &Reminder,
    late: Option<DateTime<Tz>>,
    command_first: bool,
) -> JobPrompt {
    let mut parts = vec![PromptTag::Reminder(reminder.id.clone()).to_string()];
    parts.extend(late.map(late_marker));
    parts.extend(skills_block(&reminder.options.skills));
    parts.extend(chain_context(&chain_of(reminder)));
    if command_first {
        return JobPrompt {
            lead: Some(reminder.message.trim().to_owned()),
            text: parts.join("\n"),
        };
    }
    parts.push(reminder.message.clone());
    JobPrompt {
        lead: None,
        text: parts.join("\n"),
    }
}

fn chain_of(reminder: &Reminder) -> ChainContext {
    ChainContext {
        depth: reminder.chain_depth,
        max: reminder.max_chain,
    }
}

/// The session kind of a background job; a foreground job that reaches a builder runs
/// forked, the default.
fn session_of(run: RunMode) -> BgSession {
    run.background().unwrap_or(BgSession::Forked)
}

/// The background job of a routine (RTN-4, BGF-3, PRS-1): a persistent routine's session is
/// filed under the id its tag carries.
pub fn routine_job(routine: &Routine, schedule_text: Option<String>) -> BgJob {
    let mut job = BgJob::new(
        PromptTag::RoutineBg(routine.id.clone()),
        routine.message.clone(),
    );
    job.session = session_of(routine.run);
    job.description = Some(routine.description.clone());
    job.options = routine.options.clone();
    job.approval = Some(routine.approval_scope());
    job.schedule_text = schedule_text;
    job
}

/// The background job of a reminder, with its chain context and late marker (REM-5, REM-8),
/// acting for its chain a generation below whoever set it (REM-17).
pub fn reminder_job(
    reminder: &Reminder,
    late: Option<DateTime<Tz>>,
    schedule_text: Option<String>,
) -> BgJob {
    let mut job = BgJob::new(
        PromptTag::ReminderBg(reminder.id.clone()),
        reminder.message.clone(),
    );
    job.session = session_of(reminder.run);
    job.description = Some(reminder.description.clone());
    job.options = reminder.options.clone();
    job.approval = Some(reminder.approval_scope());
    job.marker = late.map(late_marker);
    job.schedule_text = schedule_text;
    job.lineage = RunLineage::of_reminder(reminder);
    if reminder.max_chain > 0 {
        job.chain = Some(chain_of(reminder));
        job.chain_origin = Some(reminder.clone());
    }
    job
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    const TZ: Tz = chrono_tz::America::Los_Angeles;

    #[test]
    fn foreground_prompts_carry_tag_marker_chain_and_body() {
        let mut reminder = Reminder::new_in(
            5,
            "Did the laundry get moved?",
            chrono::Utc::now().with_timezone(&TZ),
        );
        reminder.max_chain = 2;
        let late = TZ.with_ymd_and_hms(2026, 11, 21, 9, 5, 0).unwrap();
        let prompt = reminder_prompt(&reminder, Some(late), false).text;
        let lines: Vec<&str> = prompt.lines().collect();
        assert_eq!(lines[0], format!("[reminder:{}]", reminder.id));
        assert_eq!(lines[1], "[late: was scheduled for 9:05 AM, running now]");
        assert!(prompt.contains("check 1 of 3"), "{prompt}");
        assert!(prompt.ends_with("Did the laundry get moved?"));
        let routine = Routine::new("0 9 * * *", "Plan the day");
        assert_eq!(
            routine_prompt(&routine, false).text,
            format!("[routine:{}] Plan the day", routine.id)
        );
        // CTX-11: a body led by its slash command goes first, whole; the tag stays behind.
        let led = Routine::new("0 9 * * *", "/weekly-review focus on work\n");
        assert_eq!(
            routine_prompt(&led, true),
            JobPrompt {
                lead: Some("/weekly-review focus on work".to_owned()),
                text: format!("[routine:{}]", led.id),
            }
        );
        let led = reminder_prompt(&reminder, Some(late), true);
        assert_eq!(led.lead.as_deref(), Some("Did the laundry get moved?"));
        assert!(
            led.text
                .starts_with(&format!("[reminder:{}]\n[late: ", reminder.id))
        );
        assert!(!led.text.contains("laundry"), "{}", led.text);
    }

    #[test]
    fn background_jobs_follow_the_file() {
        let mut routine = Routine::new("0 9 * * *", "Digest");
        routine.run = RunMode::Background(BgSession::Persistent);
        routine.options.thinking = false;
        routine.options.allow_ping = false;
        let job = routine_job(&routine, None);
        assert_eq!(job.session, BgSession::Persistent);
        assert_eq!(job.persistent_routine(), Some(routine.id.as_str()));
        assert_eq!(job.options, routine.options);
        let mut reminder = Reminder::new_in(5, "Check", chrono::Utc::now().with_timezone(&TZ));
        reminder.run = RunMode::Background(BgSession::Isolated);
        reminder.max_chain = 1;
        let job = reminder_job(&reminder, None, Some("No more bg tasks today.".into()));
        assert_eq!(job.session, BgSession::Isolated);
        assert_eq!(job.persistent_routine(), None);
        assert_eq!(job.chain.as_ref().map(|c| c.max), Some(1));
        assert!(job.chain_origin.is_some());
        assert_eq!(
            job.tag.to_string(),
            format!("[reminder-bg:{}]", reminder.id)
        );
    }
}
