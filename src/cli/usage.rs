//! `ollim-bot usage [--since 7d] [--by kind|job|model|day] [--json]` (USE-4): what the
//! agent's work cost, from the usage ledger under `state/usage/`. Needs only the data dir and
//! the timezone; never `DISCORD_TOKEN`, and works whether the bot runs or not.

use std::fmt::Write as _;

use chrono::{DateTime, Utc};
use clap::{Args, ValueEnum};

use crate::{
    config::Config,
    state::paths::DataDir,
    transcripts::parse_window,
    usage::{
        Summary, Totals, UsageLedger,
        chart::{chart_start, recent_chart},
        summary::GroupBy,
    },
};

/// `ollim-bot usage` options.
#[derive(Debug, Args)]
pub struct UsageArgs {
    /// How far back to look: minutes, hours or days (30m, 24h, 7d).
    #[arg(long, default_value = "7d")]
    pub since: String,
    /// How to split the total.
    #[arg(long, value_enum, default_value_t = By::Kind)]
    pub by: By,
    /// Print JSON (the window, the total, the split, unreadable lines skipped).
    #[arg(long)]
    pub json: bool,
    /// Also draw the daily spend by kind over the window (whole days, at most a year) into
    /// this PNG file.
    #[arg(long, value_name = "FILE")]
    pub chart: Option<std::path::PathBuf>,
}

/// How `usage` splits the total.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum By {
    /// Main, fork, routine, reminder, webhook, screening, subagent.
    Kind,
    /// Each routine, reminder and webhook (`routine:<id>`), other work by its kind.
    Job,
    /// Each model.
    Model,
    /// Each day, in the owner's timezone.
    Day,
}

impl From<By> for GroupBy {
    fn from(by: By) -> Self {
        match by {
            By::Kind => Self::Kind,
            By::Job => Self::Job,
            By::Model => Self::Model,
            By::Day => Self::Day,
        }
    }
}

/// Runs `ollim-bot usage` with the process environment; returns the exit code. Errors are one
/// line on stderr and exit code 1.
pub fn run(args: &UsageArgs, now: DateTime<Utc>) -> i32 {
    match execute(args, now) {
        Ok(text) => {
            print!("{text}");
            0
        }
        Err(message) => {
            eprintln!("error: {message}");
            1
        }
    }
}

fn execute(args: &UsageArgs, now: DateTime<Utc>) -> Result<String, String> {
    let window = parse_window(&args.since)?;
    let config = Config::for_reading().map_err(|e| e.to_string())?;
    let since = now
        .checked_sub_signed(window)
        .unwrap_or(DateTime::<Utc>::MIN_UTC);
    // The chart's whole days may start before the window: one read covers both.
    let chart_days = args.chart.as_ref().map(|_| chart_days(window));
    let read_from = chart_days.map_or(since, |days| {
        since.min(chart_start(now, config.timezone, days))
    });
    let ledger = UsageLedger::new(DataDir::new(&config.data_dir).usage_dir());
    let read = ledger.read_since(read_from).map_err(|e| e.to_string())?;
    let summary = Summary::of(&read.records, since, args.by.into(), config.timezone);
    if let (Some(path), Some(days)) = (&args.chart, chart_days) {
        write_chart(path, &read.records, (now, config.timezone), days)?;
        // On stderr, so `--json` output stays one document.
        eprintln!(
            "chart of the last {days} days written to {}",
            path.display()
        );
    }
    if args.json {
        let json = serde_json::json!({
            "since": summary.since,
            "total": summary.total,
            "groups": summary
                .groups
                .iter()
                .map(|(name, totals)| serde_json::json!({"name": name, "totals": totals}))
                .collect::<Vec<_>>(),
            "skipped_lines": read.skipped,
        });
        return serde_json::to_string_pretty(&json)
            .map(|text| text + "\n")
            .map_err(|e| e.to_string());
    }
    Ok(render(&summary, args.since.trim(), read.skipped))
}

/// The whole days a chart of `window` shows, at most a year (what a chart shows legibly).
fn chart_days(window: chrono::Duration) -> u32 {
    const MOST_DAYS: i64 = 366;
    let days = (window.num_hours() + 23) / 24;
    u32::try_from(days.clamp(1, MOST_DAYS)).unwrap_or(1)
}

/// Draws the last `days` days' spend from `records` into `path` (USE-5); refuses an empty
/// chart.
fn write_chart(
    path: &std::path::Path,
    records: &[crate::usage::UsageRecord],
    (now, tz): (DateTime<Utc>, chrono_tz::Tz),
    days: u32,
) -> Result<(), String> {
    let png = recent_chart(records, now, tz, days)
        .map_err(|e| e.to_string())?
        .ok_or_else(|| "nothing was spent in that window; no chart written".to_owned())?;
    std::fs::write(path, png).map_err(|e| format!("could not write {}: {e}", path.display()))
}

/// The table: the total, then one line per group.
fn render(summary: &Summary, window: &str, skipped: usize) -> String {
    if summary.total.runs == 0 {
        return format!("no usage recorded in the last {window}\n");
    }
    let mut text = format!("usage in the last {window}: {}\n", line(&summary.total));
    for (name, totals) in &summary.groups {
        let _ = writeln!(text, "  {name:<24} {}", line(totals));
    }
    match skipped {
        0 => {}
        1 => text.push_str("(1 unreadable line skipped)\n"),
        n => {
            let _ = writeln!(text, "({n} unreadable lines skipped)");
        }
    }
    text
}

fn line(totals: &Totals) -> String {
    let cache = totals.cache_hit_share().map_or_else(String::new, |share| {
        format!(", cache {:.0}% of input", share * 100.0)
    });
    format!(
        "${:.4} for {} run{} ({} in, {} out{cache})",
        totals.cost_usd,
        totals.runs,
        if totals.runs == 1 { "" } else { "s" },
        totals.input_tokens + totals.cache_read_tokens + totals.cache_write_tokens,
        totals.output_tokens,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::usage::{UsageKind, UsageRecord};

    fn record(kind: UsageKind, job: Option<&str>, cost: f64) -> UsageRecord {
        let at = "2026-11-27T10:00:00Z".parse().unwrap();
        let mut record = UsageRecord::example(at, kind, job, cost);
        record.output_tokens = 50;
        record
    }

    #[test]
    fn the_table_has_the_total_then_the_split_most_expensive_first() {
        let since = "2026-11-20T00:00:00Z".parse().unwrap();
        let records = [
            record(UsageKind::Main, None, 0.0123),
            record(UsageKind::Routine, Some("routine:daily"), 0.5),
        ];
        let summary = Summary::of(&records, since, GroupBy::Job, chrono_tz::UTC);
        assert_eq!(
            render(&summary, "7d", 1),
            "usage in the last 7d: $0.5123 for 2 runs (800 in, 100 out, cache 75% of input)\n\
             \x20 routine:daily            $0.5000 for 1 run (400 in, 50 out, cache 75% of input)\n\
             \x20 main                     $0.0123 for 1 run (400 in, 50 out, cache 75% of input)\n\
             (1 unreadable line skipped)\n"
        );
        let nothing = Summary::of(&[], since, GroupBy::Kind, chrono_tz::UTC);
        assert_eq!(
            render(&nothing, "7d", 0),
            "no usage recorded in the last 7d\n"
        );
    }
}
