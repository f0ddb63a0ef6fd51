//! `ollim-bot reminder add|list|cancel` (CMD-4, CMD-5, REM-2, REM-3, REM-6): reminder files
//! from the terminal. Needs only the data dir and the timezone, never `DISCORD_TOKEN`.

use std::fmt::Write as _;
use std::time::Duration;

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use clap::{Args, Subcommand};

use super::{
    job_listing,
    routine::RunFlags,
    tool_approval::{Invoker, record_declared, refused_patterns},
};
use crate::{
    domain::job_options::{BgSession, RunMode, ToolRestriction},
    domain::nag::{NAG_CEILING, parse_gap},
    scheduling::due_time::{DueInput, DueTimeError, resolve},
    scheduling::files::{
        BACKGROUND_JOB_WRITE, Commit, Reminder, UntilDone, load_reminders, remove_reminder,
        write_reminder,
    },
    state::{nags::NagStore, paths::DataDir},
    tool_policy::Source,
};

/// `ollim-bot reminder …`
#[derive(Debug, Subcommand)]
pub enum ReminderCommand {
    /// Add a reminder.
    Add(Box<ReminderAdd>),
    /// List the pending reminders.
    List {
        /// Print one JSON array (id, file, due time, mode, texts) instead.
        #[arg(long)]
        json: bool,
    },
    /// Cancel a reminder by id.
    Cancel {
        /// The reminder's id.
        id: String,
    },
}

/// `ollim-bot reminder add` options: exactly one of `--delay`, `--in`, `--at`.
#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("when").required(true).multiple(false))]
pub struct ReminderAdd {
    /// What the agent should do when it fires (self-contained).
    #[arg(short, long)]
    pub message: String,
    /// Minutes from now.
    #[arg(long, group = "when", allow_negative_numbers = true)]
    pub delay: Option<i64>,
    /// How long from now: `45m`, `2h30m`, `"1d 2h"`.
    #[arg(long = "in", value_name = "DURATION", group = "when")]
    pub in_: Option<String>,
    /// When, in `OLLIM_TIMEZONE`: `15:30` (the next one) or `"2026-12-01 09:00"`.
    #[arg(long, value_name = "TIME", group = "when")]
    pub at: Option<String>,
    /// A short description for lists.
    #[arg(short, long)]
    pub description: Option<String>,
    /// Run in the main conversation instead of the background.
    #[arg(long, conflicts_with = "background")]
    pub foreground: bool,
    /// Deprecated: reminders run in the background by default.
    #[arg(long)]
    pub background: bool,
    /// How many follow-up checks the agent may chain.
    #[arg(long, default_value_t = 0)]
    pub max_chain: u32,
    // NAG-2: the three flags write `until-done`, `nag-every` and `max-nags`.
    /// Stay open until answered: it nags again at widening gaps until Done, Snooze or Not
    /// today.
    #[arg(long)]
    pub until_done: bool,
    /// With --until-done: the wait before the first nag, like 15m or 1h30m (default 10m).
    #[arg(long, value_name = "GAP", requires = "until_done", value_parser = parse_gap)]
    pub nag_every: Option<Duration>,
    /// With --until-done: how many nags at most, 1 to 12 (default: until answered).
    #[arg(
        long,
        value_name = "N",
        requires = "until_done",
        value_parser = clap::value_parser!(u32).range(1..=i64::from(NAG_CEILING))
    )]
    pub max_nags: Option<u32>,
    /// How the run behaves.
    #[command(flatten)]
    pub run: RunFlags,
    /// Extra tools the run may use.
    #[arg(long, num_args = 1.., conflicts_with = "disallowed_tools")]
    pub allowed_tools: Vec<String>,
    /// Tools the run may not use.
    #[arg(long, num_args = 1..)]
    pub disallowed_tools: Vec<String>,
    /// Skills to invoke first.
    #[arg(long, num_args = 1..)]
    pub skills: Vec<String>,
    /// Position in a chain (set by follow-ups).
    #[arg(long, default_value_t = 0, hide = true)]
    pub chain_depth: u32,
    /// The chain's root id (set by follow-ups).
    #[arg(long, hide = true)]
    pub chain_parent: Option<String>,
}

/// Runs a reminder command; returns the exit code.
/// `now` is the process's clock read once (issue 40 §2).
pub fn run(data_dir: &DataDir, tz: Tz, now: DateTime<Utc>, command: ReminderCommand) -> i32 {
    match command {
        ReminderCommand::Add(add) => add_reminder(data_dir, tz, now, *add),
        ReminderCommand::List { json } => {
            let (mut reminders, problems) = load_reminders(data_dir, tz);
            for problem in problems {
                eprintln!(
                    "warning: skipped {}: {}",
                    problem.path.display(),
                    problem.reason
                );
            }
            reminders.sort_by_key(|file| file.item.run_at);
            if json {
                let rows = reminders
                    .iter()
                    .map(|file| job_listing::reminder_row(file, &schedule(&file.item, tz), tz))
                    .collect();
                job_listing::print(rows);
                return 0;
            }
            if reminders.is_empty() {
                println!("no pending reminders");
            }
            let listed = !reminders.is_empty();
            for file in reminders {
                let reminder = &file.item;
                let line = schedule(reminder, tz);
                println!("  {}  {line:<28}  {}", reminder.id, summary(reminder));
            }
            if listed {
                println!("{}", job_listing::legend(tz));
            }
            print_open(data_dir, tz, now);
            0
        }
        ReminderCommand::Cancel { id } => match remove_reminder(data_dir, &id, Commit::Now) {
            Ok(true) => {
                println!("cancelled {id}");
                0
            }
            Ok(false) => drop_open(data_dir, &id),
            Err(error) => {
                eprintln!("error: could not cancel reminder {id}: {error}");
                1
            }
        },
    }
}

/// The reminders open until answered (NAG-9), after the pending ones.
fn print_open(data_dir: &DataDir, tz: chrono_tz::Tz, now: DateTime<Utc>) {
    let open = NagStore::new(data_dir.nags_file()).all();
    if open.is_empty() {
        return;
    }
    println!("open until answered:");
    for nag in open {
        println!("  {}  {}", nag.id, nag.status(now, tz));
    }
}

/// `reminder cancel` for an id that has no file: drops the reminder open under it (NAG-9).
fn drop_open(data_dir: &DataDir, id: &str) -> i32 {
    match NagStore::new(data_dir.nags_file()).close(id) {
        Ok(Some(nag)) => {
            println!(
                "dropped open reminder {id} ({}); it won't nag again",
                nag.label
            );
            0
        }
        Ok(None) => {
            eprintln!("reminder {id} not found");
            1
        }
        Err(error) => {
            eprintln!("error: could not drop open reminder {id}: {error}");
            1
        }
    }
}

impl ReminderAdd {
    /// The one due-time flag given (clap requires exactly one).
    fn due_input(&self) -> Option<DueInput> {
        self.delay
            .map(DueInput::DelayMinutes)
            .or_else(|| self.in_.clone().map(DueInput::In))
            .or_else(|| self.at.clone().map(DueInput::At))
    }

    /// What `--until-done`, `--nag-every` and `--max-nags` ask for (NAG-2); clap has checked
    /// the values, and that the last two come only with `--until-done`.
    fn until_done(&self) -> Option<UntilDone> {
        self.until_done.then_some(UntilDone {
            nag_every: self.nag_every,
            max_nags: self.max_nags,
        })
    }
}

fn add_reminder(data_dir: &DataDir, tz: Tz, now: DateTime<Utc>, add: ReminderAdd) -> i32 {
    if add.background {
        eprintln!(
            "warning: --background is deprecated; reminders run in the background by default"
        );
    }
    let due = match add.due_input() {
        Some(input) => resolve(&input, now.with_timezone(&tz)),
        None => Err(DueTimeError::NegativeDelay),
    };
    let run_at = match due {
        Ok(run_at) => run_at,
        Err(error) => {
            eprintln!("error: {error}");
            return 1;
        }
    };
    if add.chain_depth > add.max_chain {
        eprintln!(
            "error: chain-depth ({}) is greater than max-chain ({})",
            add.chain_depth, add.max_chain
        );
        return 1;
    }
    let message = add.message.trim();
    if message.is_empty() {
        eprintln!("error: the message is empty");
        return 1;
    }
    if let Some(refused) = refused_patterns(&add.allowed_tools) {
        eprintln!("{refused}");
        return 1;
    }
    let until_done = add.until_done();
    let mut reminder = Reminder::new_at(run_at, message);
    add.description
        .unwrap_or_default()
        .trim()
        .clone_into(&mut reminder.description);
    reminder.max_chain = add.max_chain;
    reminder.chain_depth = add.chain_depth;
    reminder.chain_parent = add
        .chain_parent
        .or_else(|| (add.max_chain > 0).then(|| reminder.id.clone()));
    reminder.run = add.run.run_mode(!add.foreground);
    reminder.options = add.run.options();
    // clap keeps the two lists exclusive.
    reminder.options.tools = if !add.allowed_tools.is_empty() {
        ToolRestriction::Allowed(add.allowed_tools)
    } else if !add.disallowed_tools.is_empty() {
        ToolRestriction::Disallowed(add.disallowed_tools)
    } else {
        ToolRestriction::None
    };
    reminder.options.skills = add.skills;
    reminder.until_done = until_done;
    // The owner's approval is recorded before the file is written: the daemon reads the file
    // as soon as it lands and would otherwise ask about tools already approved here.
    let approval_line = reminder.options.tools.allowed().and_then(|tools| {
        let source = Source::Reminder(reminder.id.clone());
        // The version of the reminder as the scheduler will read it back.
        let read_back = crate::scheduling::files::parse_reminder(
            &crate::scheduling::files::render_reminder(&reminder),
            tz,
        )
        .unwrap_or_else(|_| reminder.clone());
        let scope = read_back.approval_scope();
        let declared = (&source, Some(scope.version()));
        record_declared(data_dir, declared, tools, Invoker::from_env())
    });
    match write_reminder(data_dir, &reminder, Commit::Now) {
        Ok(_) => {
            println!(
                "scheduled {}: {} -- {}",
                reminder.id,
                schedule(&reminder, tz),
                summary(&reminder)
            );
            if let Some(line) = approval_line {
                println!("{line}");
            }
            0
        }
        Err(error) => {
            eprintln!("error: could not write the reminder: {error}");
            if error.is_permission_denied() {
                eprintln!("{BACKGROUND_JOB_WRITE}");
            }
            1
        }
    }
}

/// `[fg]`/`[bg]`/`[bg,isolated]` `at <YYYY-MM-DD HH:MM ZONE>` with model, thinking and chain
/// suffixes (CMD-4, F-40).
fn schedule(reminder: &Reminder, tz: Tz) -> String {
    let mode = match reminder.run {
        RunMode::Foreground => "[fg]",
        RunMode::Background(BgSession::Isolated) => "[bg,isolated]",
        RunMode::Background(BgSession::Forked | BgSession::Persistent) => "[bg]",
    };
    let at = reminder
        .run_at
        .with_timezone(&tz)
        .format("%Y-%m-%d %H:%M %Z");
    let mut text = format!("{mode} at {at}");
    if let Some(model) = &reminder.options.model {
        let _ = write!(text, " (model: {model})");
    }
    if !reminder.options.thinking {
        text.push_str(" (no-thinking)");
    }
    if reminder.max_chain > 0 {
        let _ = write!(
            text,
            " (chain {}/{})",
            reminder.chain_depth, reminder.max_chain
        );
    }
    if reminder.until_done.is_some() {
        text.push_str(" (until done)");
    }
    text
}

fn summary(reminder: &Reminder) -> &str {
    if reminder.description.is_empty() {
        &reminder.message
    } else {
        &reminder.description
    }
}

#[cfg(test)]
#[path = "reminder_tests.rs"]
mod tests;
