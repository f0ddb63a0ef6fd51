//! `ollim-bot cal today|upcoming|show|add|update|delete|calendars` (GOO-6). Reads query every
//! calendar of `google_calendars`, writes use the first; `--calendar <id>` overrides both.
//! Times are shown and read in `OLLIM_TIMEZONE`; `--json` on the listings prints JSON.

use std::fmt::Write;

use chrono::{DateTime, Days, TimeZone, Utc};
use chrono_tz::Tz;
use clap::{Args, Subcommand};
use serde_json::json;

use super::google::{Failure, GoogleContext, ensure_connected, missing, report};
use crate::google::{
    GoogleError,
    calendar::{Event, EventChanges, EventTime, parse_local_time},
};

/// `ollim-bot cal …`
#[derive(Debug, Args)]
pub struct CalArgs {
    /// Calendar id (default: every `google_calendars` entry for reads, the first for writes).
    #[arg(long, global = true, value_name = "ID")]
    pub calendar: Option<String>,
    /// What to do.
    #[command(subcommand)]
    pub action: CalCommand,
}

/// The `cal` subcommands.
#[derive(Debug, Subcommand)]
pub enum CalCommand {
    /// Today's events.
    Today {
        /// Print JSON instead of lines.
        #[arg(long)]
        json: bool,
    },
    /// Events of the next days, from today's midnight.
    Upcoming {
        /// How many days.
        #[arg(long, default_value_t = 7, value_parser = clap::value_parser!(u32).range(1..=366))]
        days: u32,
        /// Print JSON instead of lines.
        #[arg(long)]
        json: bool,
    },
    /// Show one event.
    Show {
        /// Event id.
        id: String,
    },
    /// Create an event.
    Add {
        /// Event title.
        summary: String,
        /// Start, YYYY-MM-DDTHH:MM in the configured timezone.
        #[arg(long)]
        start: String,
        /// End, YYYY-MM-DDTHH:MM.
        #[arg(long)]
        end: String,
        /// Description.
        #[arg(long)]
        description: Option<String>,
    },
    /// Change an event.
    Update {
        /// Event id.
        id: String,
        /// New title.
        #[arg(long)]
        summary: Option<String>,
        /// New start, YYYY-MM-DDTHH:MM.
        #[arg(long)]
        start: Option<String>,
        /// New end, YYYY-MM-DDTHH:MM.
        #[arg(long)]
        end: Option<String>,
        /// New description.
        #[arg(long)]
        description: Option<String>,
    },
    /// Delete an event.
    Delete {
        /// Event id.
        id: String,
    },
    /// Every calendar the account can see, with its id.
    Calendars {
        /// Print JSON instead of lines.
        #[arg(long)]
        json: bool,
    },
}

/// Runs a `cal` command; returns the exit code.
pub async fn run(context: &GoogleContext, args: CalArgs) -> i32 {
    if let CalCommand::Update {
        summary: None,
        start: None,
        end: None,
        description: None,
        ..
    } = &args.action
    {
        eprintln!("error: provide at least one of --summary, --start, --end, --description");
        return 1;
    }
    match execute(context, args).await {
        Ok(()) => 0,
        Err(failure) => report(context, &failure),
    }
}

fn local(raw: &str, tz: Tz) -> Result<DateTime<Tz>, Failure> {
    parse_local_time(raw, tz).map_err(|e| Failure::Input(e.to_string()))
}

async fn execute(context: &GoogleContext, args: CalArgs) -> Result<(), Failure> {
    let tz = context.tz;
    // Refuse bad times before asking anyone to sign in.
    let (start, end) = match &args.action {
        CalCommand::Add { start, end, .. } => (Some(local(start, tz)?), Some(local(end, tz)?)),
        CalCommand::Update { start, end, .. } => (
            start.as_deref().map(|s| local(s, tz)).transpose()?,
            end.as_deref().map(|s| local(s, tz)).transpose()?,
        ),
        _ => (None, None),
    };
    ensure_connected(context).await?;
    let client = &context.client;
    let write_calendar = args
        .calendar
        .clone()
        .unwrap_or_else(|| context.first_calendar().to_owned());
    match args.action {
        CalCommand::Today { json } => list_window(context, args.calendar, 1, json).await?,
        CalCommand::Upcoming { days, json } => {
            list_window(context, args.calendar, days, json).await?;
        }
        CalCommand::Show { id } => {
            let event = client
                .get_event(&write_calendar, &id)
                .await
                .map_err(missing(format!("event {id}")))?;
            print!("{}", event_details(&event, tz));
        }
        CalCommand::Add {
            summary,
            description,
            ..
        } => {
            let (Some(start), Some(end)) = (start, end) else {
                return Ok(());
            };
            let event = client
                .add_event(
                    &write_calendar,
                    &summary,
                    &start,
                    &end,
                    description.as_deref(),
                )
                .await
                .map_err(missing(format!("calendar '{write_calendar}'")))?;
            println!("created {}: {summary}", event.id);
        }
        CalCommand::Update {
            id,
            summary,
            description,
            ..
        } => {
            let changes = EventChanges {
                summary,
                start,
                end,
                description,
            };
            client
                .update_event(&write_calendar, &id, &changes)
                .await
                .map_err(missing(format!("event {id}")))?;
            println!("updated {id}");
        }
        CalCommand::Delete { id } => {
            client
                .delete_event(&write_calendar, &id)
                .await
                .map_err(missing(format!("event {id}")))?;
            println!("deleted {id}");
        }
        CalCommand::Calendars { json } => {
            let calendars = client.list_calendars().await?;
            if json {
                println!("{}", pretty(&calendars));
            } else {
                for calendar in calendars {
                    println!("  {:<43}  {}", calendar.id, calendar.summary);
                }
            }
        }
    }
    Ok(())
}

fn pretty(value: &impl serde::Serialize) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

/// `today` / `upcoming`: every calendar's events from local midnight for `days` days,
/// merged in start order; a calendar that 404s is skipped with a note (GOO-6).
async fn list_window(
    context: &GoogleContext,
    only: Option<String>,
    days: u32,
    json: bool,
) -> Result<(), Failure> {
    let tz = context.tz;
    let today = Utc::now().with_timezone(&tz).date_naive();
    let midnight = |date: chrono::NaiveDate| {
        date.and_hms_opt(0, 0, 0)
            .and_then(|naive| tz.from_local_datetime(&naive).earliest())
    };
    let (Some(from), Some(to)) = (
        midnight(today),
        today
            .checked_add_days(Days::new(u64::from(days)))
            .and_then(midnight),
    ) else {
        return Err(Failure::Input(
            "no local midnight in the configured zone".to_owned(),
        ));
    };
    let calendars = match only {
        Some(calendar) => vec![calendar],
        None => context.calendars.clone(),
    };
    let mut events: Vec<(String, Event)> = Vec::new();
    for calendar in &calendars {
        match context.client.list_events(calendar, from, to).await {
            Ok(found) => events.extend(found.into_iter().map(|e| (calendar.clone(), e))),
            Err(GoogleError::NotFound) => {
                let note = format!("(calendar '{calendar}' not found — skipped)");
                // With --json the note goes to stderr so stdout stays parseable.
                if json {
                    eprintln!("{note}");
                } else {
                    println!("{note}");
                }
            }
            Err(error) => return Err(error.into()),
        }
    }
    events.sort_by_key(|(_, event)| event.start.sort_key(tz));
    if json {
        let items: Vec<_> = events
            .iter()
            .map(|(calendar, event)| json!({ "calendar": calendar, "event": event }))
            .collect();
        println!("{}", pretty(&items));
        return Ok(());
    }
    if events.is_empty() {
        println!("no events");
    }
    let tag = calendars.len() > 1;
    for (calendar, event) in &events {
        let suffix = if tag {
            format!("  [{calendar}]")
        } else {
            String::new()
        };
        println!("  {}  {}{suffix}", event.id, event_when(event, tz));
    }
    Ok(())
}

fn hm(time: &EventTime, tz: Tz) -> Option<(String, String)> {
    let at = time.instant()?.with_timezone(&tz);
    Some((
        at.format("%Y-%m-%d").to_string(),
        at.format("%H:%M").to_string(),
    ))
}

/// `<YYYY-MM-DD>  <HH:MM>-<HH:MM>  <title>` or `<date>  (all-day)     <title>` (GOO-6).
pub fn event_when(event: &Event, tz: Tz) -> String {
    if let Some((date, start)) = hm(&event.start, tz) {
        let end = hm(&event.end, tz).map_or_else(|| start.clone(), |(_, end)| end);
        return format!("{date}  {start}-{end}  {}", event.title());
    }
    let date = event.start.date.as_deref().unwrap_or("????-??-??");
    format!("{date}  (all-day)     {}", event.title())
}

/// The `cal show` block (GOO-6), newline-terminated.
pub fn event_details(event: &Event, tz: Tz) -> String {
    let mut out = format!(
        "title:       {}\nwhen:        {}\n",
        event.title(),
        event_when(event, tz)
    );
    let optional = [
        ("location:    ", event.location.as_deref()),
        ("description: ", event.description.as_deref()),
        ("link:        ", event.html_link.as_deref()),
    ];
    for (label, value) in optional {
        if let Some(value) = value.filter(|v| !v.is_empty()) {
            let _ = writeln!(out, "{label}{value}");
        }
    }
    if !event.attendees.is_empty() {
        let emails: Vec<&str> = event.attendees.iter().map(|a| a.email.as_str()).collect();
        let _ = writeln!(out, "attendees:   {}", emails.join(", "));
    }
    let _ = write!(
        out,
        "status:      {}\nid:          {}\n",
        event.status.as_deref().unwrap_or("unknown"),
        event.id
    );
    out
}
