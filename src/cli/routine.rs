//! `ollim-bot routine add|list|cancel` (CMD-2, CMD-3): routine files from the terminal. Needs
//! only the data dir and the timezone, never `DISCORD_TOKEN`.

use std::fmt::Write as _;

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use clap::{Args, Subcommand};

use super::job_listing;

use crate::{
    domain::job_options::{BgSession, RunMode, RunOptions, UpdateMode},
    scheduling::{
        cron::CronSchedule,
        files::{Commit, Routine, load_routines, remove_routine, write_routine},
    },
    state::paths::DataDir,
};

/// `ollim-bot routine …`
#[derive(Debug, Subcommand)]
pub enum RoutineCommand {
    /// Add a routine.
    Add(RoutineAdd),
    /// List the routines.
    List {
        /// Print one JSON array (id, file, cron, next fire, mode, texts) instead.
        #[arg(long)]
        json: bool,
    },
    /// Cancel (delete) a routine by id.
    Cancel {
        /// The routine's id.
        id: String,
    },
}

/// `ollim-bot routine add` options.
#[derive(Debug, Args)]
pub struct RoutineAdd {
    /// What the agent should do each time (the prompt).
    #[arg(short, long)]
    pub message: String,
    /// Five-field cron, e.g. "0 9 * * 1-5".
    #[arg(long)]
    pub cron: String,
    /// A short description for lists.
    #[arg(short, long)]
    pub description: Option<String>,
    /// Run in the background instead of the main conversation.
    #[arg(long)]
    pub background: bool,
    /// How background runs behave.
    #[command(flatten)]
    pub run: RunFlags,
}

/// How a background run behaves; shared by `routine add` and `reminder add`.
#[derive(Debug, Args)]
pub struct RunFlags {
    /// Model for the run (opus, sonnet, haiku, fable, opusplan or a full model id).
    #[arg(long, value_parser = parse_model_flag)]
    pub model: Option<String>,
    /// Turn extended thinking off.
    #[arg(long)]
    pub no_thinking: bool,
    /// Start the run fresh instead of from the main conversation.
    #[arg(long)]
    pub isolated: bool,
    /// How the run reports: always, `on_ping`, freely or blocked.
    #[arg(long, value_parser = parse_update_mode)]
    pub update_main_session: Option<UpdateMode>,
    /// The run may not ping.
    #[arg(long)]
    pub no_ping: bool,
}

impl RunFlags {
    /// The run mode of a job that runs in the background or not; `--isolated` counts only in
    /// the background, as every background-only option (E.1).
    pub fn run_mode(&self, background: bool) -> RunMode {
        match (background, self.isolated) {
            (false, _) => RunMode::Foreground,
            (true, true) => RunMode::Background(BgSession::Isolated),
            (true, false) => RunMode::Background(BgSession::Forked),
        }
    }

    /// The run options the flags set, the others at their defaults.
    pub fn options(self) -> RunOptions {
        RunOptions {
            model: self.model,
            thinking: !self.no_thinking,
            update_mode: self.update_main_session.unwrap_or_default(),
            allow_ping: !self.no_ping,
            ..RunOptions::default()
        }
    }
}

/// A model name, checked where it enters (issue 24 §3).
pub(crate) fn parse_model_flag(raw: &str) -> Result<String, String> {
    crate::domain::model_name::check_model(raw).map_err(|error| error.to_string())
}

fn parse_update_mode(raw: &str) -> Result<UpdateMode, String> {
    UpdateMode::parse(raw)
        .ok_or_else(|| "must be one of always, on_ping, freely, blocked".to_owned())
}

/// Runs a routine command; returns the exit code.
pub fn run(data_dir: &DataDir, tz: Tz, now: DateTime<Utc>, command: RoutineCommand) -> i32 {
    match command {
        RoutineCommand::Add(add) => add_routine(data_dir, add),
        RoutineCommand::List { json } => {
            let (routines, problems) = load_routines(data_dir);
            for problem in problems {
                eprintln!(
                    "warning: skipped {}: {}",
                    problem.path.display(),
                    problem.reason
                );
            }
            if json {
                let rows = routines
                    .iter()
                    .map(|file| {
                        job_listing::routine_row(
                            file,
                            &schedule(&file.item),
                            now.with_timezone(&tz),
                        )
                    })
                    .collect();
                job_listing::print(rows);
                return 0;
            }
            if routines.is_empty() {
                println!("no routines");
            }
            let listed = !routines.is_empty();
            for file in routines {
                let routine = &file.item;
                println!(
                    "  {}  {:<24}  {}",
                    routine.id,
                    schedule(routine),
                    summary(routine)
                );
            }
            if listed {
                println!("{}", job_listing::legend(tz));
            }
            0
        }
        RoutineCommand::Cancel { id } => match remove_routine(data_dir, &id, Commit::Now) {
            Ok(true) => {
                println!("cancelled {id}");
                0
            }
            Ok(false) => {
                eprintln!("routine {id} not found");
                1
            }
            Err(error) => {
                eprintln!("error: could not cancel routine {id}: {error}");
                1
            }
        },
    }
}

fn add_routine(data_dir: &DataDir, add: RoutineAdd) -> i32 {
    if add.cron.split_whitespace().count() != 5 {
        eprintln!("error: cron must be 5 fields (minute hour day month weekday)");
        return 1;
    }
    if let Err(error) = CronSchedule::parse(&add.cron) {
        eprintln!("error: {error}");
        return 1;
    }
    let message = add.message.trim();
    if message.is_empty() {
        eprintln!("error: the message is empty");
        return 1;
    }
    let mut routine = Routine::new(add.cron.trim(), message);
    add.description
        .unwrap_or_default()
        .trim()
        .clone_into(&mut routine.description);
    routine.run = add.run.run_mode(add.background);
    routine.options = add.run.options();
    match write_routine(data_dir, &routine, Commit::Now) {
        Ok(_) => {
            println!(
                "scheduled {}: {} -- {}",
                routine.id,
                schedule(&routine),
                summary(&routine)
            );
            0
        }
        Err(error) => {
            eprintln!("error: could not write the routine: {error}");
            if error.is_permission_denied() {
                eprintln!("{}", crate::scheduling::files::BACKGROUND_JOB_WRITE);
            }
            1
        }
    }
}

/// `cron '<cron>'` with the `[bg] ` / `[bg,isolated] ` prefix and model / thinking suffixes.
fn schedule(routine: &Routine) -> String {
    let prefix = match routine.run {
        RunMode::Background(BgSession::Isolated) => "[bg,isolated] ",
        RunMode::Background(BgSession::Forked | BgSession::Persistent) => "[bg] ",
        RunMode::Foreground => "",
    };
    let mut text = format!("{prefix}cron '{}'", routine.cron);
    if let Some(model) = &routine.options.model {
        let _ = write!(text, "  (model: {model})");
    }
    if !routine.options.thinking {
        text.push_str("  (no-thinking)");
    }
    text
}

fn summary(routine: &Routine) -> &str {
    if routine.description.is_empty() {
        &routine.message
    } else {
        &routine.description
    }
}

#[cfg(test)]
#[path = "routine_tests.rs"]
mod tests;
