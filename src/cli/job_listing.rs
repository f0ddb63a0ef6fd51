//! `routine list --json` and `reminder list --json`: one JSON array on stdout, for scripts.
//! Times are RFC 3339 in the owner's zone; the `schedule` field is the text the plain listing
//! shows.

use chrono::DateTime;
use chrono_tz::Tz;
use serde_json::{Value, json};

use crate::{
    domain::job_options::{BgSession, RunMode, RunOptions},
    scheduling::{
        cron::CronSchedule,
        files::{JobFile, Reminder, Routine},
    },
};

/// How a job runs, as one word: `foreground`, `background`, `isolated` or `persistent`.
fn mode_name(run: RunMode) -> &'static str {
    match run {
        RunMode::Foreground => "foreground",
        RunMode::Background(BgSession::Forked) => "background",
        RunMode::Background(BgSession::Isolated) => "isolated",
        RunMode::Background(BgSession::Persistent) => "persistent",
    }
}

fn options_fields(options: &RunOptions) -> Value {
    json!({
        "model": options.model,
        "thinking": options.thinking,
        "allow_ping": options.allow_ping,
    })
}

/// One routine: id, file, cron, next fire, mode, texts, options.
pub(super) fn routine_row(file: &JobFile<Routine>, schedule: &str, now: DateTime<Tz>) -> Value {
    let routine = &file.item;
    let next_fire = CronSchedule::parse(&routine.cron)
        .ok()
        .and_then(|cron| cron.next_after(now))
        .map(|at| at.to_rfc3339());
    let mut row = json!({
        "id": routine.id,
        "file": file.path,
        "cron": routine.cron,
        "next_fire": next_fire,
        "mode": mode_name(routine.run),
        "schedule": schedule,
        "description": routine.description,
        "message": routine.message,
    });
    merge(&mut row, options_fields(&routine.options));
    row
}

/// One reminder: id, file, due time, mode, chain, texts, options.
pub(super) fn reminder_row(file: &JobFile<Reminder>, schedule: &str, tz: Tz) -> Value {
    let reminder = &file.item;
    let mut row = json!({
        "id": reminder.id,
        "file": file.path,
        "run_at": reminder.run_at.with_timezone(&tz).to_rfc3339(),
        "mode": mode_name(reminder.run),
        "schedule": schedule,
        "chain_depth": reminder.chain_depth,
        "max_chain": reminder.max_chain,
        "description": reminder.description,
        "message": reminder.message,
    });
    merge(&mut row, options_fields(&reminder.options));
    row
}

fn merge(row: &mut Value, extra: Value) {
    if let (Value::Object(row), Value::Object(extra)) = (row, extra) {
        row.extend(extra);
    }
}

/// The line under a plain listing: what the marks mean and which zone the times are in.
pub(super) fn legend(tz: Tz) -> String {
    format!(
        "[bg]: runs on its own and reaches you only by a ping, embed or summary; the others run \
         in your conversation. Times are in {}.",
        tz.name()
    )
}

/// Prints `rows` as one pretty JSON array.
pub(super) fn print(rows: Vec<Value>) {
    let text = serde_json::to_string_pretty(&Value::Array(rows)).unwrap_or_else(|_| "[]".into());
    println!("{text}");
}
