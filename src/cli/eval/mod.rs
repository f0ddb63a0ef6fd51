//! `ollim-bot eval` (CMD-9): simulated-owner evaluations of the bot's agent. Each scenario
//! (`scenario`) has a simulated owner with ADHD talk to the bot's real main session in a
//! throw-away data dir (`conversation`), a judge model score the conversation against the
//! scenario's criteria (`judge`, `verdict`), and the result go into the history
//! (`history`), which `results` lists and `compare` checks for regressions. Evals make real
//! model calls on the owner's Claude login; nothing of them touches the owner's conversation,
//! jobs or ledger.

mod conversation;
mod front_end;
mod history;
mod judge;
mod run;
pub mod scenario;
mod verdict;

use std::fmt::Write;

use clap::Subcommand;

pub use run::run_scenarios;

use crate::state::paths::DataDir;
use history::{EvalRecord, compare, history_path, read};
use scenario::Scenario;
use verdict::centi_text;

/// `eval` subcommands.
#[derive(Debug, Subcommand)]
pub enum EvalCommand {
    /// Run every scenario, or the one named, and record the results.
    Run {
        /// The scenario (see `eval list`); all when left out.
        scenario: Option<String>,
        /// Print the conversation as it happens.
        #[arg(short, long)]
        verbose: bool,
    },
    /// The scenarios.
    List,
    /// Past results, newest first.
    Results {
        /// Only this scenario's.
        scenario: Option<String>,
    },
    /// Each scenario's last runs side by side; a fall of more than 0.3 is a regression.
    Compare {
        /// How many runs per scenario (at least 2).
        #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(2..))]
        last: u32,
    },
}

/// The scenarios `name` selects (all for `None`), or the error line for an unknown one.
pub fn select(name: Option<&str>) -> Result<Vec<Scenario>, String> {
    let all = Scenario::all().map_err(|error| format!("error: {error}"))?;
    let Some(name) = name else { return Ok(all) };
    let chosen: Vec<Scenario> = all.into_iter().filter(|s| s.id == name).collect();
    if chosen.is_empty() {
        return Err(format!(
            "error: unknown scenario '{name}'; known: {}",
            Scenario::ids().join(", ")
        ));
    }
    Ok(chosen)
}

/// `eval list`, `eval results` and `eval compare`: the ones that read only. Returns the exit
/// code.
pub fn run_offline(command: &EvalCommand, data_dir: &DataDir) -> i32 {
    match command {
        EvalCommand::List => list(),
        EvalCommand::Results { scenario } => results(data_dir, scenario.as_deref()),
        EvalCommand::Compare { last } => compare_runs(data_dir, *last),
        EvalCommand::Run { .. } => 2,
    }
}

fn list() -> i32 {
    match Scenario::all() {
        Ok(all) => {
            for s in all {
                println!(
                    "{:<28} ({}, {} turns)  {}",
                    s.id,
                    s.goal_type.name(),
                    s.max_turns,
                    s.goal.trim()
                );
            }
            0
        }
        Err(error) => {
            eprintln!("error: {error}");
            1
        }
    }
}

/// The history's records, saying on stderr how many lines were unreadable.
fn history(data_dir: &DataDir) -> Option<Vec<EvalRecord>> {
    let path = history_path(data_dir);
    match read(&path) {
        Ok((records, unreadable)) => {
            if unreadable > 0 {
                eprintln!(
                    "[warn] {unreadable} line(s) of {} could not be read and were skipped",
                    path.display()
                );
            }
            Some(records)
        }
        Err(error) => {
            eprintln!("error: cannot read {}: {error}", path.display());
            None
        }
    }
}

fn results(data_dir: &DataDir, scenario: Option<&str>) -> i32 {
    if let Err(error) = select(scenario) {
        eprintln!("{error}");
        return 2;
    }
    let Some(records) = history(data_dir) else {
        return 1;
    };
    let shown: Vec<&EvalRecord> = records
        .iter()
        .rev()
        .filter(|r| scenario.is_none_or(|s| r.scenario == s))
        .collect();
    if shown.is_empty() {
        println!("no eval results yet");
        return 0;
    }
    for r in shown {
        let verdict = if r.passed { "PASS" } else { "FAIL" };
        let mut line = format!(
            "{}  {:<28} {}  {verdict}  {} turns  ${:.4}",
            r.timestamp,
            r.scenario,
            centi_text(r.overall_centi()),
            r.turns,
            r.cost_usd
        );
        if let Some(error) = &r.error {
            let _ = write!(line, "  error: {error}");
        }
        println!("{line}");
    }
    0
}

fn compare_runs(data_dir: &DataDir, last: u32) -> i32 {
    let Some(records) = history(data_dir) else {
        return 1;
    };
    let compared = compare(
        &records,
        &Scenario::ids(),
        usize::try_from(last).unwrap_or(usize::MAX),
    );
    if compared.is_empty() {
        println!("no eval results yet");
        return 0;
    }
    let mut regressed = false;
    for (scenario, comparison) in &compared {
        regressed |= comparison.regressed();
        println!("{scenario:<28} {}", comparison.text());
    }
    i32::from(regressed)
}
