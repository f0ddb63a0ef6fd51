//! The Google Calendar requests (GOO-6) that the `cal` command and the agent's
//! `google_calendar` tool share: which calendars a request uses, the merged agenda of a window,
//! and one typed request answered with the text both show.

use std::fmt::Write;

use chrono::{DateTime, Days, NaiveDate, TimeZone};
use chrono_tz::Tz;

use super::{CalendarEntry, Event, EventChanges, EventTime};
use crate::google::{GoogleClient, GoogleError, RequestError, lines_or, missing};

/// How many days `upcoming` covers unless told.
pub const DEFAULT_UPCOMING_DAYS: u32 = 7;
/// The longest window `upcoming` accepts, in days.
pub const MAX_UPCOMING_DAYS: u32 = 366;

/// Which calendars a request uses (GOO-6): reads merge every configured calendar, writes go to
/// the first; a calendar named for the request replaces both.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CalendarChoice {
    configured: Vec<String>,
    only: Option<String>,
}

impl CalendarChoice {
    /// The configured calendars (`google_calendars`; none means `primary`) and the one named
    /// for this request, if any.
    pub fn new(mut configured: Vec<String>, only: Option<String>) -> Self {
        if configured.is_empty() {
            configured.push("primary".to_owned());
        }
        Self { configured, only }
    }

    /// The calendars a read queries.
    pub fn reads(&self) -> Vec<String> {
        match &self.only {
            Some(calendar) => vec![calendar.clone()],
            None => self.configured.clone(),
        }
    }

    /// The calendar a write (and `show`) goes to.
    pub fn write(&self) -> &str {
        self.only
            .as_deref()
            .or(self.configured.first().map(String::as_str))
            .unwrap_or("primary")
    }
}

/// One Calendar request (GOO-6).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CalendarRequest {
    /// The events from today's local midnight for `days` days (`today` is one day).
    Window {
        /// How many days.
        days: u32,
    },
    /// One event in detail.
    Show {
        /// Event id.
        id: String,
    },
    /// A new timed event.
    Add {
        /// Title.
        summary: String,
        /// Start, in the configured zone.
        start: DateTime<Tz>,
        /// End.
        end: DateTime<Tz>,
        /// Description.
        description: Option<String>,
    },
    /// Change an event's fields.
    Update {
        /// Event id.
        id: String,
        /// What changes.
        changes: EventChanges,
    },
    /// Delete an event.
    Delete {
        /// Event id.
        id: String,
    },
    /// Every calendar the account can see.
    Calendars,
}

/// The events of a window across calendars, in start order, each with its calendar.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Agenda {
    /// `(calendar id, event)`.
    pub events: Vec<(String, Event)>,
    /// Calendars that answered 404: skipped (GOO-6).
    pub skipped: Vec<String>,
    /// Several calendars were queried, so each line names its calendar.
    pub tagged: bool,
}

impl Agenda {
    /// `(calendar '<id>' not found — skipped)` per skipped calendar.
    pub fn skip_notes(&self) -> Vec<String> {
        self.skipped
            .iter()
            .map(|calendar| format!("(calendar '{calendar}' not found — skipped)"))
            .collect()
    }

    /// The notes, then one line per event or `no events` (GOO-6); no trailing newline.
    pub fn text(&self, tz: Tz) -> String {
        let mut lines = self.skip_notes();
        if self.events.is_empty() {
            lines.push("no events".to_owned());
        }
        lines.extend(self.events.iter().map(|(calendar, event)| {
            let tag = if self.tagged {
                format!("  [{calendar}]")
            } else {
                String::new()
            };
            format!("  {}  {}{tag}", event.id, event_when(event, tz))
        }));
        lines.join("\n")
    }
}

impl GoogleClient {
    /// The events of `calendars` from today's local midnight in `tz` for `days` days, merged
    /// in start order; a calendar that 404s is skipped and noted (GOO-6).
    pub async fn agenda(
        &self,
        calendars: &[String],
        tz: Tz,
        days: u32,
    ) -> Result<Agenda, RequestError> {
        let today = self.clock().now().with_timezone(&tz).date_naive();
        let midnight = |date: NaiveDate| {
            date.and_hms_opt(0, 0, 0)
                .and_then(|naive| tz.from_local_datetime(&naive).earliest())
        };
        let (Some(from), Some(to)) = (
            midnight(today),
            today
                .checked_add_days(Days::new(u64::from(days)))
                .and_then(midnight),
        ) else {
            return Err(RequestError::Input(
                "no local midnight in the configured zone".to_owned(),
            ));
        };
        let mut agenda = Agenda {
            events: Vec::new(),
            skipped: Vec::new(),
            tagged: calendars.len() > 1,
        };
        for calendar in calendars {
            match self.list_events(calendar, from, to).await {
                Ok(found) => agenda
                    .events
                    .extend(found.into_iter().map(|e| (calendar.clone(), e))),
                Err(GoogleError::NotFound) => agenda.skipped.push(calendar.clone()),
                Err(error) => return Err(error.into()),
            }
        }
        agenda
            .events
            .sort_by_key(|(_, event)| event.start.sort_key(tz));
        Ok(agenda)
    }

    /// Runs `request` on the calendars `choice` picks, times in `tz`; the answer's text has no
    /// trailing newline.
    pub async fn run_calendar(
        &self,
        choice: &CalendarChoice,
        tz: Tz,
        request: CalendarRequest,
    ) -> Result<String, RequestError> {
        let calendar = choice.write();
        let event = |id: &str| missing(format!("event {id}"));
        Ok(match request {
            CalendarRequest::Window { days } => {
                self.agenda(&choice.reads(), tz, days).await?.text(tz)
            }
            CalendarRequest::Show { id } => event_details(
                &self.get_event(calendar, &id).await.map_err(event(&id))?,
                tz,
            ),
            CalendarRequest::Add {
                summary,
                start,
                end,
                description,
            } => {
                let added = self
                    .add_event(calendar, &summary, &start, &end, description.as_deref())
                    .await
                    .map_err(missing(format!("calendar '{calendar}'")))?;
                format!("created {}: {summary}", added.id)
            }
            CalendarRequest::Update { id, changes } => {
                self.update_event(calendar, &id, &changes)
                    .await
                    .map_err(event(&id))?;
                format!("updated {id}")
            }
            CalendarRequest::Delete { id } => {
                self.delete_event(calendar, &id).await.map_err(event(&id))?;
                format!("deleted {id}")
            }
            CalendarRequest::Calendars => calendar_lines(&self.list_calendars().await?),
        })
    }
}

/// `  <id padded>  <name>` per calendar, or `no calendars` (GOO-6).
pub fn calendar_lines(calendars: &[CalendarEntry]) -> String {
    lines_or(calendars, "no calendars", |calendar| {
        format!("  {:<43}  {}", calendar.id, calendar.summary)
    })
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

/// The `show` block (GOO-6): `title:`, `when:`, the optional `location:`, `description:`,
/// `link:`, `attendees:`, then `status:` and `id:`; no trailing newline.
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
        "status:      {}\nid:          {}",
        event.status.as_deref().unwrap_or("unknown"),
        event.id
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_merge_the_configured_calendars_and_writes_use_the_first() {
        let configured = vec!["primary".to_owned(), "work".to_owned()];
        let choice = CalendarChoice::new(configured.clone(), None);
        assert_eq!(choice.reads(), configured);
        assert_eq!(choice.write(), "primary");
        let named = CalendarChoice::new(configured, Some("family".to_owned()));
        assert_eq!(
            (named.reads(), named.write()),
            (vec!["family".to_owned()], "family")
        );
        assert_eq!(CalendarChoice::new(Vec::new(), None).write(), "primary");
    }

    #[test]
    fn an_agenda_notes_skipped_calendars_first_and_tags_when_several() {
        let event: Event = serde_json::from_value(serde_json::json!({
            "id": "e1", "summary": "Dentist",
            "start": {"dateTime": "2026-03-01T09:00:00Z"}, "end": {"dateTime": "2026-03-01T10:00:00Z"}
        }))
        .unwrap();
        let agenda = Agenda {
            events: vec![("work".to_owned(), event)],
            skipped: vec!["gone".to_owned()],
            tagged: true,
        };
        assert_eq!(
            agenda.text(Tz::UTC),
            "(calendar 'gone' not found — skipped)\n  e1  2026-03-01  09:00-10:00  Dentist  [work]"
        );
        let empty = Agenda {
            events: Vec::new(),
            skipped: Vec::new(),
            tagged: false,
        };
        assert_eq!(empty.text(Tz::UTC), "no events");
    }
}
