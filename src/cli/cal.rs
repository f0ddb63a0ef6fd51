//! `ollim-bot cal today|upcoming|show|add|update|delete|calendars` (GOO-6), for the owner's
//! terminal (the agent uses the `google_calendar` tool, which runs the same requests). Reads
//! query every calendar of `google_calendars`, writes use the first; `--calendar <id>`
//! overrides both. Times are shown and read in `OLLIM_TIMEZONE`; `--json` on the listings
//! prints JSON.

use chrono_tz::Tz;
use clap::{Args, Subcommand};
use serde_json::json;

use super::google::{GoogleContext, ensure_connected, pretty, print_outcome, report};
use crate::google::{
    RequestError,
    calendar::{
        CalendarChoice, CalendarRequest, DEFAULT_UPCOMING_DAYS, EventChanges, MAX_UPCOMING_DAYS,
        parse_local_time,
    },
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
        #[arg(
            long,
            default_value_t = DEFAULT_UPCOMING_DAYS,
            value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_UPCOMING_DAYS))
        )]
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
    // Refuse bad times before asking anyone to sign in.
    let request = match request(args.action, context.tz) {
        Ok(request) => request,
        Err(failure) => return report(context, &failure),
    };
    if let Err(error) = ensure_connected(context).await {
        return report(context, &error.into());
    }
    let choice = context.calendar_choice(args.calendar);
    let outcome = match request {
        Listing::Text(request) => {
            context
                .client
                .run_calendar(&choice, context.tz, request)
                .await
        }
        Listing::Json(days) => agenda_json(context, &choice, days).await,
        Listing::CalendarsJson => context
            .client
            .list_calendars()
            .await
            .map(|calendars| pretty(&calendars))
            .map_err(Into::into),
    };
    print_outcome(context, outcome)
}

/// What a `cal` command asks for: a shared request, or one of the JSON listings.
enum Listing {
    Text(CalendarRequest),
    /// `today --json` (1 day) or `upcoming --json`.
    Json(u32),
    CalendarsJson,
}

fn request(command: CalCommand, tz: Tz) -> Result<Listing, RequestError> {
    let local =
        |raw: &str| parse_local_time(raw, tz).map_err(|e| RequestError::Input(e.to_string()));
    let request = match command {
        CalCommand::Today { json: true } => return Ok(Listing::Json(1)),
        CalCommand::Upcoming { days, json: true } => return Ok(Listing::Json(days)),
        CalCommand::Calendars { json: true } => return Ok(Listing::CalendarsJson),
        CalCommand::Today { json: false } => CalendarRequest::Window { days: 1 },
        CalCommand::Upcoming { days, json: false } => CalendarRequest::Window { days },
        CalCommand::Calendars { json: false } => CalendarRequest::Calendars,
        CalCommand::Show { id } => CalendarRequest::Show { id },
        CalCommand::Add {
            summary,
            start,
            end,
            description,
        } => CalendarRequest::Add {
            summary,
            start: local(&start)?,
            end: local(&end)?,
            description,
        },
        CalCommand::Update {
            id,
            summary,
            start,
            end,
            description,
        } => CalendarRequest::Update {
            id,
            changes: EventChanges {
                summary,
                start: start.as_deref().map(local).transpose()?,
                end: end.as_deref().map(local).transpose()?,
                description,
            },
        },
        CalCommand::Delete { id } => CalendarRequest::Delete { id },
    };
    Ok(Listing::Text(request))
}

/// `today --json` / `upcoming --json`: the agenda as JSON; skipped calendars are noted on
/// stderr so stdout stays parseable (GOO-6).
async fn agenda_json(
    context: &GoogleContext,
    choice: &CalendarChoice,
    days: u32,
) -> Result<String, RequestError> {
    let agenda = context
        .client
        .agenda(&choice.reads(), context.tz, days)
        .await?;
    for note in agenda.skip_notes() {
        eprintln!("{note}");
    }
    let items: Vec<_> = agenda
        .events
        .iter()
        .map(|(calendar, event)| json!({ "calendar": calendar, "event": event }))
        .collect();
    Ok(pretty(&items))
}
