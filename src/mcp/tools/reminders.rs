//! Reminder tools: `add_reminder`, `list_reminders`, `cancel_reminder`, `follow_up_chain`
//! (MCP-10…13). Reminders are files; the scheduler picks them up within its sync interval.
//! In a background run they act within the run's lineage (issue 39 §4): it sets a few
//! reminders, no deeper than the bound, and cancels only its own job's (REM-15, REM-16,
//! REM-17, REM-18).

use rmcp::{handler::server::wrapper::Parameters, tool, tool_router};

use super::{
    DiscordTools,
    args::{AddReminderArgs, CancelReminderArgs, FollowUpArgs},
};
use crate::{
    domain::{
        job_options::RunMode,
        nag::{NAG_CEILING, parse_gap},
    },
    mcp::run_state::BgRunState,
    scheduling::forward::clock_time,
    scheduling::{
        chain::NO_CHAIN,
        files::{
            Commit, Reminder, UntilDone, load_reminders, parse_run_at, reminder_setters,
            remove_reminder, write_reminder,
        },
    },
    services::Services,
};

/// A background run (or its session resumed by the owner) asked for a foreground reminder:
/// its prompt would run in the main session, with the main session's tools (issue 23 §4).
pub(super) const BACKGROUND_FOREGROUND: &str = "Error: a background run can't set a foreground \
    reminder (its text would run in the main session). Set a background reminder, or tell the \
    main session with report_updates.";

#[tool_router(router = reminders_router, vis = "pub(super)")]
impl DiscordTools {
    #[tool(
        description = "Set a one-off reminder: at the given time your future self gets `prompt` \
                       (write it self-contained). Give delay_minutes OR run_at (ISO datetime; \
                       without an offset it is the owner's local time). Runs in the background \
                       unless foreground is true; max_chain > 0 allows that many follow-ups. \
                       until_done: true keeps it open until the owner answers (Done, Snooze, \
                       Not today): it nags again after nag_every (e.g. \"15m\", default 10m), \
                       at widening gaps, at most max_nags times (1-12)."
    )]
    async fn add_reminder(&self, Parameters(args): Parameters<AddReminderArgs>) -> String {
        let Some(services) = self.context.services() else {
            return "Error: reminders are not available in this session.".to_owned();
        };
        let carries_run = self.context.scope().is_background()
            || self
                .context
                .own_fork()
                .is_some_and(|(control, fork)| control.in_resumed_run(fork));
        if args.foreground == Some(true) && carries_run {
            return BACKGROUND_FOREGROUND.to_owned();
        }
        let tz = services.config.timezone;
        let now = services.clock.now().with_timezone(&tz);
        // A run_at is kept as given (to the second) rather than turned into whole minutes,
        // which could set "3 PM" for 2:59.
        let (delay, exact) = match (args.delay_minutes, args.run_at.as_deref()) {
            (Some(_), Some(_)) => {
                return "Error: provide delay_minutes OR run_at, not both.".to_owned();
            }
            (None, None) => return "Error: provide either delay_minutes or run_at.".to_owned(),
            (Some(minutes), None) if minutes < 1 => {
                return "Error: delay_minutes must be at least 1.".to_owned();
            }
            (Some(minutes), None) => (minutes, None),
            (None, Some(raw)) => match parse_run_at(raw, tz).map(|at| at.with_timezone(&tz)) {
                None => return format!("Error: invalid ISO datetime: {raw}"),
                Some(at) if at <= now => return "Error: run_at is in the past.".to_owned(),
                Some(at) => (((at - now).num_seconds() / 60).max(1), Some(at)),
            },
        };
        let prompt = args.prompt.trim();
        if prompt.is_empty() {
            return "Error: the reminder needs a prompt.".to_owned();
        }
        let until_done = match until_done_of(&args) {
            Ok(until_done) => until_done,
            Err(error) => return error,
        };
        let mut reminder = Reminder::new_in(delay, prompt, now);
        if let Some(at) = exact {
            reminder.run_at = at.fixed_offset();
        }
        args.description
            .unwrap_or_default()
            .trim()
            .clone_into(&mut reminder.description);
        if args.foreground.unwrap_or(false) {
            reminder.run = RunMode::Foreground;
        }
        reminder.max_chain = args.max_chain.unwrap_or(0);
        if reminder.max_chain > 0 {
            reminder.chain_parent = Some(reminder.id.clone());
        }
        reminder.until_done = until_done;
        let run = self.context.bg_run();
        if let Some(run) = run {
            // REM-16, REM-17: a few reminders per run, in a line of runs of bounded depth.
            let claimed = run
                .lineage()
                .child(reminder.max_chain)
                .and_then(|set_by| run.claim_reminder().map(|()| set_by));
            match claimed {
                Ok(set_by) => reminder.set_by = set_by,
                Err(refusal) => return refused(run, "add_reminder", refusal),
            }
        }
        match write_reminder(&services.data_dir, &reminder, Commit::Queued(&services.git)) {
            Ok(_) => format!(
                "Reminder {} set for {}.",
                reminder.id,
                clock_time(reminder.run_at.with_timezone(&tz), tz)
            ),
            Err(error) => {
                if let Some(run) = run {
                    run.reminder_not_set();
                }
                format!("Error: could not save the reminder: {error}")
            }
        }
    }

    #[tool(description = "List the pending reminders, earliest first.")]
    async fn list_reminders(&self) -> String {
        let Some(services) = self.context.services() else {
            return "Error: reminders are not available in this session.".to_owned();
        };
        reminder_lines(services)
    }

    #[tool(
        description = "Cancel a pending reminder by its id; outside background runs this also \
                       drops one open until answered (it stops nagging). A background run \
                       cancels only the reminders its own job set."
    )]
    async fn cancel_reminder(&self, Parameters(args): Parameters<CancelReminderArgs>) -> String {
        let Some(services) = self.context.services() else {
            return "Error: reminders are not available in this session.".to_owned();
        };
        let id = args.reminder_id.trim();
        if let Some(run) = self.context.bg_run() {
            // REM-15: the owner's reminders, and other jobs', aren't a background run's.
            let setters = match reminder_setters(&services.data_dir, id) {
                Ok(setters) => setters,
                Err(error) => return format!("Error: could not cancel reminder {id}: {error}"),
            };
            if let Err(refusal) = run.lineage().may_cancel(id, &setters) {
                return refused(run, "cancel_reminder", refusal);
            }
        }
        match remove_reminder(&services.data_dir, id, Commit::Queued(&services.git)) {
            Ok(true) => format!("Reminder {id} cancelled."),
            // An open reminder is the owner's to answer; a background run can't drop it.
            Ok(false) if !self.context.scope().is_background() => match services.nags.close(id) {
                Ok(Some(nag)) => format!(
                    "Open reminder {id} ({}) dropped; it won't nag again.",
                    nag.label
                ),
                Ok(None) => format!("Error: no reminder found with ID {id}."),
                Err(error) => format!("Error: could not drop open reminder {id}: {error}"),
            },
            Ok(false) if services.nags.get(id).is_some() => format!(
                "Error: reminder {id} is open until the owner answers it; only they can drop it."
            ),
            Ok(false) => format!("Error: no reminder found with ID {id}."),
            Err(error) => format!("Error: could not cancel reminder {id}: {error}"),
        }
    }

    #[tool(
        description = "Only while a chain reminder runs: schedule the next check of this chain \
                       in minutes_from_now. Not calling it ends the chain."
    )]
    async fn follow_up_chain(&self, Parameters(args): Parameters<FollowUpArgs>) -> String {
        let (Some(services), Some(slot)) = (self.context.services(), self.context.chain()) else {
            return NO_CHAIN.to_owned();
        };
        let tz = services.config.timezone;
        // REM-18: one next check per fire; REM-17: a run's chain ends at the bound.
        let next = match slot.claim_follow_up(
            args.minutes_from_now,
            services.clock.now().with_timezone(&tz),
        ) {
            Ok(next) => next,
            Err(message) => {
                return match self.context.bg_run() {
                    Some(run) => refused(run, "follow_up_chain", message),
                    None => message,
                };
            }
        };
        match write_reminder(&services.data_dir, &next, Commit::Queued(&services.git)) {
            Ok(_) => format!("Follow-up scheduled in {} minutes", args.minutes_from_now),
            Err(error) => {
                slot.release_follow_up();
                format!("Error scheduling follow-up: {error}")
            }
        }
    }
}

/// A background run's reminder call refused (issue 39 §4): logged with the run's job, and
/// returned as the answer the run reads, so it can tell the owner why.
fn refused(run: &BgRunState, tool: &str, refusal: String) -> String {
    let lineage = run.lineage();
    tracing::warn!(
        tool,
        job = lineage.job(),
        generation = lineage.generation(),
        %refusal,
        "a background run's reminder call was refused"
    );
    refusal
}

/// The `list_reminders` text (MCP-11): the pending reminders, then those open until answered
/// (NAG-9).
fn reminder_lines(services: &Services) -> String {
    let tz = services.config.timezone;
    let now = services.clock.now();
    let open: Vec<String> = services
        .nags
        .all()
        .iter()
        .map(|nag| format!("- {} {}", nag.id, nag.status(now, tz)))
        .collect();
    let open = if open.is_empty() {
        String::new()
    } else {
        format!("\n\nOpen until the owner answers:\n{}", open.join("\n"))
    };
    pending_lines(services, tz) + &open
}

fn pending_lines(services: &Services, tz: chrono_tz::Tz) -> String {
    let (mut reminders, _) = load_reminders(&services.data_dir, tz);
    if reminders.is_empty() {
        return "No pending reminders.".to_owned();
    }
    reminders.sort_by_key(|file| file.item.run_at);
    reminders
        .iter()
        .map(|file| {
            let reminder = &file.item;
            let at = reminder.run_at.with_timezone(&tz);
            let description = if reminder.description.is_empty() {
                "(no description)"
            } else {
                reminder.description.as_str()
            };
            format!(
                "- {} [{}] {} — {description}  ({})",
                reminder.id,
                if reminder.run.is_background() {
                    "bg"
                } else {
                    "fg"
                },
                at.format("%Y-%m-%d %I:%M %p"),
                file.path.display()
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The `until_done`, `nag_every` and `max_nags` arguments as the reminder's settings, or the
/// `Error: …` answer for a bad value (NAG-3): as in a file, the last two need `until_done`.
fn until_done_of(args: &AddReminderArgs) -> Result<Option<UntilDone>, String> {
    let nag_every = args
        .nag_every
        .as_deref()
        .map(|text| parse_gap(text).map_err(|error| format!("Error: nag_every: {error}.")))
        .transpose()?;
    let max_nags = args
        .max_nags
        .map(|max| {
            u32::try_from(max)
                .ok()
                .and_then(|max| UntilDone::check_max_nags(max).ok())
                .ok_or_else(|| format!("Error: max_nags must be 1 to {NAG_CEILING}."))
        })
        .transpose()?;
    if args.until_done != Some(true) {
        if nag_every.is_some() || max_nags.is_some() {
            return Err("Error: nag_every and max_nags need until_done: true.".to_owned());
        }
        return Ok(None);
    }
    Ok(Some(UntilDone {
        nag_every,
        max_nags,
    }))
}

#[cfg(test)]
#[path = "reminders_tests.rs"]
mod tests;
