//! `google_calendar`'s arguments (GOO-6): an action and the fields it needs, checked into a
//! [`CalendarRequest`] (times read in the owner's zone) before anything reaches Google.

use chrono::DateTime;
use chrono_tz::Tz;
use rmcp::schemars;
use serde::Deserialize;

use super::required;
use crate::google::calendar::{
    CalendarRequest, DEFAULT_UPCOMING_DAYS, EventChanges, MAX_UPCOMING_DAYS, parse_local_time,
};

// What `google_calendar` does; inlined into the schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(inline)]
pub(super) enum CalendarAction {
    Today,
    Upcoming,
    Show,
    Add,
    Update,
    Delete,
    Calendars,
}

/// Arguments of `google_calendar`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub(super) struct CalendarArgs {
    /// What to do.
    action: CalendarAction,
    /// Event id: show, update, delete.
    id: Option<String>,
    /// Title: add (required), update.
    summary: Option<String>,
    /// Start, YYYY-MM-DDTHH:MM: add (required), update.
    start: Option<String>,
    /// End, YYYY-MM-DDTHH:MM: add (required), update.
    end: Option<String>,
    /// Description: add, update.
    description: Option<String>,
    /// upcoming: days from today (default 7).
    days: Option<u32>,
    /// Calendar id for this call only.
    calendar: Option<String>,
}

impl CalendarArgs {
    /// The calendar named (if any) and the request, times in `tz`, or why the arguments
    /// can't be used.
    pub(super) fn into_request(self, tz: Tz) -> Result<(Option<String>, CalendarRequest), String> {
        let time = |raw: &Option<String>| -> Result<Option<DateTime<Tz>>, String> {
            raw.as_deref()
                .map(|raw| parse_local_time(raw, tz).map_err(|e| e.to_string()))
                .transpose()
        };
        let (start, end) = (time(&self.start)?, time(&self.end)?);
        let id = |action| required(self.id.clone(), "an id", action);
        let request = match self.action {
            CalendarAction::Today => CalendarRequest::Window { days: 1 },
            CalendarAction::Upcoming => {
                let days = self.days.unwrap_or(DEFAULT_UPCOMING_DAYS);
                if !(1..=MAX_UPCOMING_DAYS).contains(&days) {
                    return Err(format!("days must be 1 to {MAX_UPCOMING_DAYS}"));
                }
                CalendarRequest::Window { days }
            }
            CalendarAction::Show => CalendarRequest::Show { id: id("show")? },
            CalendarAction::Add => {
                let (Some(start), Some(end)) = (start, end) else {
                    return Err("add needs start and end (YYYY-MM-DDTHH:MM)".to_owned());
                };
                if end < start {
                    return Err("the event would end before it starts".to_owned());
                }
                CalendarRequest::Add {
                    summary: required(self.summary.clone(), "a summary", "add")?,
                    start,
                    end,
                    description: self.description.clone(),
                }
            }
            CalendarAction::Update => {
                let changes = EventChanges {
                    summary: self.summary.clone(),
                    start,
                    end,
                    description: self.description.clone(),
                };
                if changes.is_empty() {
                    return Err(
                        "update needs at least one of summary, start, end, description".to_owned(),
                    );
                }
                CalendarRequest::Update {
                    id: id("update")?,
                    changes,
                }
            }
            CalendarAction::Delete => CalendarRequest::Delete { id: id("delete")? },
            CalendarAction::Calendars => CalendarRequest::Calendars,
        };
        let calendar = self
            .calendar
            .map(|c| c.trim().to_owned())
            .filter(|c| !c.is_empty());
        Ok((calendar, request))
    }
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;
    use serde_json::json;

    use super::*;

    const TZ: Tz = chrono_tz::Europe::Berlin;

    fn args(json: serde_json::Value) -> Result<(Option<String>, CalendarRequest), String> {
        serde_json::from_value::<CalendarArgs>(json)
            .unwrap()
            .into_request(TZ)
    }

    #[test]
    fn windows_and_times_come_out_in_the_owners_zone() {
        assert_eq!(
            args(json!({"action": "today"})),
            Ok((None, CalendarRequest::Window { days: 1 }))
        );
        assert_eq!(
            args(json!({"action": "upcoming", "calendar": "work"})),
            Ok((Some("work".into()), CalendarRequest::Window { days: 7 }))
        );
        let added = args(json!({"action": "add", "summary": "Dentist",
            "start": "2026-03-02T09:00", "end": "2026-03-02T10:00"}))
        .unwrap()
        .1;
        let nine = TZ.with_ymd_and_hms(2026, 3, 2, 9, 0, 0).unwrap();
        assert!(matches!(added, CalendarRequest::Add { start, .. } if start == nine));
    }

    #[test]
    fn missing_or_bad_fields_are_refused_before_google() {
        assert_eq!(
            args(json!({"action": "upcoming", "days": 0})).unwrap_err(),
            "days must be 1 to 366"
        );
        assert!(
            args(json!({"action": "add", "summary": "x", "start": "2026-03-02T09:00"}))
                .unwrap_err()
                .starts_with("add needs start and end")
        );
        assert_eq!(
            args(
                json!({"action": "add", "summary": "x", "start": "2026-03-02T10:00",
                "end": "2026-03-02T09:00"})
            )
            .unwrap_err(),
            "the event would end before it starts"
        );
        assert!(
            args(
                json!({"action": "add", "summary": "x", "start": "tomorrow 9am",
                "end": "2026-03-02T09:00"})
            )
            .unwrap_err()
            .contains("YYYY-MM-DDTHH:MM")
        );
        assert!(
            args(json!({"action": "add", "start": "2026-03-02T09:00", "end": "2026-03-02T10:00"}))
                .unwrap_err()
                .contains("a summary")
        );
        // 02:30 on the last Sunday of March doesn't exist in Berlin.
        assert!(
            args(json!({"action": "update", "id": "e1", "start": "2026-03-29T02:30"}))
                .unwrap_err()
                .contains("does not exist")
        );
        assert_eq!(
            args(json!({"action": "update", "id": "e1"})).unwrap_err(),
            "update needs at least one of summary, start, end, description"
        );
        assert_eq!(
            args(json!({"action": "delete"})).unwrap_err(),
            "delete needs an id"
        );
    }
}
