//! The eval history (CMD-9): one JSON object per scenario run, appended to
//! `state/evals/history.jsonl` in the owner's data dir and never rewritten; a line that can't
//! be read is skipped, with a warning, and kept. `eval compare` reads it for regressions.

use std::{
    collections::BTreeMap,
    io::Write,
    path::{Path, PathBuf},
};

use serde::{Deserialize, Serialize};

use super::verdict::{REGRESSION_DROP, centi_text};
use crate::state::paths::DataDir;

/// One scenario run, as the history keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct EvalRecord {
    /// The `eval run` it belongs to (its start, UTC `YYYYMMDDTHHMMSSZ`).
    pub run_id: String,
    /// When the scenario finished (RFC 3339).
    pub timestamp: String,
    /// The scenario's id.
    pub scenario: String,
    /// `file_created` or `qualitative`.
    pub goal_type: String,
    /// The judge's scores.
    pub scores: BTreeMap<String, u8>,
    /// The judge's reason per criterion.
    pub reasons: BTreeMap<String, String>,
    /// The mean score, two decimals.
    pub overall: f64,
    /// Whether it passed.
    pub passed: bool,
    /// Whether the file was made (`file_created` scenarios only).
    pub goal_met: Option<bool>,
    /// How many messages the simulated owner sent.
    pub turns: u32,
    /// The routine and reminder files the bot made, data-dir relative.
    pub files_created: Vec<String>,
    /// The bot's, the simulated owner's and the judge's models.
    pub models: Models,
    /// The bot's version.
    pub bot_version: String,
    /// The Claude CLI's version.
    pub cli_version: String,
    /// What the scenario cost, in US dollars (bot, owner and judge).
    pub cost_usd: f64,
    /// How long it took, in seconds.
    pub duration_s: f64,
    /// Why it could not be judged, if it couldn't.
    pub error: Option<String>,
    /// The conversation's transcript file.
    pub transcript: String,
}

/// The models of one run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Models {
    /// The bot's (the main session's model setting, or the CLI's default).
    pub bot: String,
    /// The simulated owner's.
    pub proxy: String,
    /// The judge's.
    pub judge: String,
}

impl EvalRecord {
    /// The overall in hundredths.
    pub(super) fn overall_centi(&self) -> i64 {
        // Stored with two decimals: the rounding only undoes the float's representation.
        #[allow(clippy::cast_possible_truncation)]
        let centi = (self.overall * 100.0).round() as i64;
        centi
    }
}

/// The history file of `data_dir`.
pub(super) fn history_path(data_dir: &DataDir) -> PathBuf {
    data_dir.state_dir().join("evals").join("history.jsonl")
}

/// Where a run's transcript goes.
pub(super) fn transcript_path(data_dir: &DataDir, run_id: &str, scenario: &str) -> PathBuf {
    data_dir
        .state_dir()
        .join("evals")
        .join("transcripts")
        .join(format!("{run_id}-{scenario}.md"))
}

/// Appends `record` as one line, synced.
pub(super) fn append(path: &Path, record: &EvalRecord) -> std::io::Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let mut line = serde_json::to_string(record).map_err(std::io::Error::other)?;
    line.push('\n');
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    file.write_all(line.as_bytes())?;
    file.sync_all()
}

/// Every readable record, oldest first, and how many lines could not be read.
pub(super) fn read(path: &Path) -> std::io::Result<(Vec<EvalRecord>, usize)> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(error) => return Err(error),
    };
    let mut records = Vec::new();
    let mut unreadable = 0;
    for line in text.lines().filter(|line| !line.trim().is_empty()) {
        match serde_json::from_str(line) {
            Ok(record) => records.push(record),
            Err(_) => unreadable += 1,
        }
    }
    Ok((records, unreadable))
}

/// One scenario's line of `eval compare`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Comparison {
    /// Only one run on record.
    OnlyOne {
        /// Its overall, hundredths.
        overall: i64,
    },
    /// The last runs' overalls, oldest first, and the last change.
    Runs {
        /// Overalls in hundredths, oldest first.
        overalls: Vec<i64>,
        /// Newest minus the one before.
        delta: i64,
    },
}

impl Comparison {
    /// Whether the newest run fell by more than the allowed drop.
    pub(super) fn regressed(&self) -> bool {
        matches!(self, Self::Runs { delta, .. } if *delta < -REGRESSION_DROP)
    }

    /// The line's text after the scenario's name.
    pub(super) fn text(&self) -> String {
        match self {
            Self::OnlyOne { overall } => format!("{}  only one run", centi_text(*overall)),
            Self::Runs { overalls, delta } => {
                let list: Vec<String> = overalls.iter().map(|o| centi_text(*o)).collect();
                let sign = if *delta >= 0 { "+" } else { "" };
                let mut text = format!("{}  Δ {sign}{}", list.join(" → "), centi_text(*delta));
                if self.regressed() {
                    text.push_str("  REGRESSION");
                }
                text
            }
        }
    }
}

/// Per scenario (in `order`, those with a record), the last `last` runs compared.
pub(super) fn compare(
    records: &[EvalRecord],
    order: &[&str],
    last: usize,
) -> Vec<(String, Comparison)> {
    order
        .iter()
        .filter_map(|scenario| {
            let overalls: Vec<i64> = records
                .iter()
                .filter(|record| record.scenario == *scenario)
                .map(EvalRecord::overall_centi)
                .collect();
            let recent = &overalls[overalls.len().saturating_sub(last)..];
            let comparison = match recent {
                [] => return None,
                [only] => Comparison::OnlyOne { overall: *only },
                [.., before, newest] => Comparison::Runs {
                    overalls: recent.to_vec(),
                    delta: newest - before,
                },
            };
            Some(((*scenario).to_owned(), comparison))
        })
        .collect()
}

#[cfg(test)]
#[path = "history_tests.rs"]
mod tests;
