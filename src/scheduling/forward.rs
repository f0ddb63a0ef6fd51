//! Forward schedule of background jobs shown in the bg preamble (BGF-15, BGF-16).
//!
//! Everything here is a pure function of its inputs: the scheduler supplies the jobs with
//! their fire times and the clock reading, so the window logic is tested with fixed clocks.

use chrono::{DateTime, Duration};
use chrono_tz::Tz;

/// How far back a fire still counts as "recent" (grace window).
pub const GRACE: Duration = Duration::minutes(15);
/// The base look-ahead window for forward entries.
pub const BASE_WINDOW: Duration = Duration::hours(3);
/// The window is widened (up to [`MAX_WINDOW`]) until this many forward entries are shown.
pub const MIN_FORWARD: usize = 3;
/// Hard upper limit on the look-ahead.
pub const MAX_WINDOW: Duration = Duration::hours(12);
/// Length (in characters) after which a body-derived description is cut and `...` appended.
pub const DESCRIPTION_CHARS: usize = 60;

/// A background job known to the scheduler, as the schedule needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScheduledJob {
    /// The job's id (routine or reminder id), compared with the firing job's id.
    pub id: String,
    /// Routine or reminder, with the fire times that matter.
    pub kind: ScheduledKind,
    /// The job's `allow-ping` flag; `false` renders the entry as `(silent)`.
    pub allow_ping: bool,
    /// The YAML `description`, if any.
    pub description: Option<String>,
    /// The markdown body (the prompt), used when there is no description.
    pub body: String,
    /// Path of the job file relative to the data dir, e.g. `routines/daily-review.md` (F-20).
    pub file_path: String,
}

/// The kind of a scheduled job and its fire times.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScheduledKind {
    /// A cron routine.
    Routine {
        /// The most recent fire at or before now, if the scheduler knows one.
        previous_fire: Option<DateTime<Tz>>,
        /// The next fire at or after now, if any.
        next_fire: Option<DateTime<Tz>>,
    },
    /// A one-shot reminder, possibly a link of a follow-up chain.
    Reminder {
        /// When the reminder is due (`run-at`).
        run_at: DateTime<Tz>,
        /// Chain position when the reminder belongs to a follow-up chain.
        chain: Option<ChainPosition>,
    },
}

/// Position of a reminder in a follow-up chain (`chain-depth` of `max-chain`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChainPosition {
    /// Zero-based depth of this link.
    pub depth: u32,
    /// Number of follow-ups the chain allows (`max-chain`); 0 means no chain.
    pub max: u32,
}

/// Marker appended to a schedule line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryTag {
    /// The entry belongs to the job that is firing now.
    ThisTask,
    /// Another job whose fire time has already passed (within the grace window).
    JustFired,
}

impl EntryTag {
    /// The literal text rendered between brackets.
    pub fn as_str(self) -> &'static str {
        match self {
            EntryTag::ThisTask => "this task",
            EntryTag::JustFired => "just fired",
        }
    }
}

/// One line of the forward schedule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScheduleEntry {
    /// When the job fires (or fired).
    pub fire_time: DateTime<Tz>,
    /// Display label: routine description, `Routine`, `Chain reminder (k/t)` or `Reminder`.
    pub label: String,
    /// YAML description, else the body flattened and cut to [`DESCRIPTION_CHARS`].
    pub description: String,
    /// Relative path of the job file.
    pub file_path: String,
    /// `true` when the job may not ping (`allow-ping: false`).
    pub silent: bool,
    /// `this task`, `just fired` or nothing.
    pub tag: Option<EntryTag>,
}

/// Builds the forward schedule (BGF-15) from the background jobs the caller passes.
///
/// Routines contribute their previous fire when it lies in `[now - GRACE, now]` and their
/// next fire when it lies in `[now - GRACE, now + MAX_WINDOW]` (a next fire equal to the
/// previous one is not listed twice); reminders contribute `run_at` when it lies in
/// `[now - GRACE, now + MAX_WINDOW]`. Recent entries (`<= now`) are always kept; forward
/// entries are trimmed to the 3-hour window unless that would leave fewer than
/// [`MIN_FORWARD`] of them, in which case the first [`MIN_FORWARD`] are kept.
pub fn forward_schedule(
    jobs: &[ScheduledJob],
    now: DateTime<Tz>,
    firing_job_id: Option<&str>,
) -> Vec<ScheduleEntry> {
    let grace_start = now - GRACE;
    let max_cutoff = now + MAX_WINDOW;
    let in_range = |t: DateTime<Tz>| grace_start <= t && t <= max_cutoff;

    let mut candidates: Vec<(DateTime<Tz>, &ScheduledJob)> = Vec::new();
    for job in jobs {
        match &job.kind {
            ScheduledKind::Routine {
                previous_fire,
                next_fire,
            } => {
                let prev = previous_fire.filter(|t| grace_start <= *t && *t <= now);
                if let Some(t) = prev {
                    candidates.push((t, job));
                }
                if let Some(t) = next_fire.filter(|t| in_range(*t) && Some(*t) != prev) {
                    candidates.push((t, job));
                }
            }
            ScheduledKind::Reminder { run_at, .. } => {
                if in_range(*run_at) {
                    candidates.push((*run_at, job));
                }
            }
        }
    }
    candidates.sort_by_key(|(t, _)| *t);

    let (recent, forward): (Vec<_>, Vec<_>) = candidates.into_iter().partition(|(t, _)| *t <= now);
    let kept_forward = if forward.len() < MIN_FORWARD {
        forward
    } else {
        let base_cutoff = now + BASE_WINDOW;
        let in_window = forward.iter().filter(|(t, _)| *t <= base_cutoff).count();
        let keep = if in_window >= MIN_FORWARD {
            in_window
        } else {
            MIN_FORWARD
        };
        forward.into_iter().take(keep).collect()
    };

    recent
        .into_iter()
        .chain(kept_forward)
        .map(|(fire_time, job)| {
            let tag = if firing_job_id == Some(job.id.as_str()) {
                Some(EntryTag::ThisTask)
            } else if fire_time <= now {
                Some(EntryTag::JustFired)
            } else {
                None
            };
            ScheduleEntry {
                fire_time,
                label: entry_label(job),
                description: entry_description(job),
                file_path: job.file_path.clone(),
                silent: !job.allow_ping,
                tag,
            }
        })
        .collect()
}

/// The YAML description when it has visible text.
fn yaml_description(job: &ScheduledJob) -> Option<&str> {
    job.description
        .as_deref()
        .map(str::trim)
        .filter(|d| !d.is_empty())
}

/// Label per BGF-15: routine description or `Routine`; chain or plain reminder.
fn entry_label(job: &ScheduledJob) -> String {
    match &job.kind {
        ScheduledKind::Routine { .. } => yaml_description(job).unwrap_or("Routine").to_string(),
        ScheduledKind::Reminder {
            chain: Some(chain), ..
        } if chain.max > 0 => format!(
            "Chain reminder ({}/{})",
            u64::from(chain.depth) + 1,
            u64::from(chain.max) + 1
        ),
        ScheduledKind::Reminder { .. } => "Reminder".to_string(),
    }
}

/// YAML description, else the body on one line, cut to [`DESCRIPTION_CHARS`] characters.
fn entry_description(job: &ScheduledJob) -> String {
    if let Some(description) = yaml_description(job) {
        return description.to_string();
    }
    let flat = job.body.replace("\r\n", " ").replace('\n', " ");
    let flat = flat.trim();
    match flat.char_indices().nth(DESCRIPTION_CHARS) {
        Some((cut, _)) => format!("{}...", &flat[..cut]),
        None => flat.to_string(),
    }
}

/// Formats a fire time as `h:MM AM/PM` (no leading zero on the hour) in `tz`.
pub fn clock_time(at: DateTime<Tz>, tz: Tz) -> String {
    at.with_timezone(&tz).format("%-I:%M %p").to_string()
}

/// Renders the schedule text of the budget section (BGF-16).
///
/// Header `Upcoming bg tasks (next <H>h):` (or `(recent)` when nothing lies ahead), one line
/// per entry, then `~<n> refill(s) before last task.` when at least one refill of
/// `refill_rate_minutes` fits before the last forward entry. An empty schedule renders as
/// `No more bg tasks today.`. Times are shown in `now`'s time zone.
pub fn render_schedule(
    entries: &[ScheduleEntry],
    now: DateTime<Tz>,
    refill_rate_minutes: u32,
) -> String {
    if entries.is_empty() {
        return "No more bg tasks today.".to_string();
    }
    let tz = now.timezone();
    // Entries are sorted, so the last forward entry (if any) is the last non-`just fired` one.
    let last_forward = entries.iter().rev().find(|e| e.fire_time > now);
    let window = match last_forward {
        Some(last) => {
            let hours = seconds_until(last.fire_time, now) / 3600.0;
            format!("next {}h", hours.round_ties_even().max(1.0))
        }
        None => "recent".to_string(),
    };

    let mut lines = vec![format!("Upcoming bg tasks ({window}):")];
    for entry in entries {
        let silent = if entry.silent { " (silent)" } else { "" };
        let tag = entry
            .tag
            .map(|t| format!(" [{}]", t.as_str()))
            .unwrap_or_default();
        lines.push(format!(
            "- {}: {}{silent} — \"{}\" ({}){tag}",
            clock_time(entry.fire_time, tz),
            entry.label,
            entry.description,
            entry.file_path,
        ));
    }
    if let Some(last) = last_forward
        && refill_rate_minutes > 0
    {
        let minutes = seconds_until(last.fire_time, now) / 60.0;
        let refills = (minutes / f64::from(refill_rate_minutes)).floor();
        if refills >= 1.0 {
            let plural = if refills < 2.0 { "" } else { "s" }; // `refills` is whole and >= 1
            lines.push(format!("~{refills} refill{plural} before last task."));
        }
    }
    lines.join("\n")
}

/// Seconds from `now` until `at` (negative when `at` is in the past).
#[allow(clippy::cast_precision_loss)] // milliseconds are exact in an f64 up to 142,000 years
fn seconds_until(at: DateTime<Tz>, now: DateTime<Tz>) -> f64 {
    (at - now).num_milliseconds() as f64 / 1000.0
}

#[cfg(test)]
#[path = "forward_tests.rs"]
mod tests;
