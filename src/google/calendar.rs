//! Google Calendar v3 (GOO-6, GOO-8): events of a window (all pages), one event, add,
//! update, delete, and the calendars the account can see; and the [`CalendarRequest`]s the
//! command and the agent's tool share.

mod request;

use chrono::{DateTime, NaiveDate, NaiveDateTime, TimeZone, Utc};
use chrono_tz::Tz;
use reqwest::Method;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::{Api, GoogleClient, GoogleError, tasks::segment, tasks::title_or_id};

pub use request::{
    Agenda, CalendarChoice, CalendarRequest, DEFAULT_UPCOMING_DAYS, MAX_UPCOMING_DAYS,
    calendar_lines, event_details, event_when,
};

/// When an event starts or ends: a timed instant or an all-day date.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EventTime {
    /// RFC 3339 instant (timed events).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date_time: Option<String>,
    /// `YYYY-MM-DD` (all-day events).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
}

impl EventTime {
    /// The instant, for timed events.
    pub fn instant(&self) -> Option<DateTime<Utc>> {
        let raw = self.date_time.as_deref()?;
        DateTime::parse_from_rfc3339(raw)
            .ok()
            .map(|at| at.with_timezone(&Utc))
    }

    /// The all-day date.
    pub fn all_day(&self) -> Option<NaiveDate> {
        NaiveDate::parse_from_str(self.date.as_deref()?, "%Y-%m-%d").ok()
    }

    /// A sort key: the instant, or local midnight of the all-day date in `tz`.
    pub fn sort_key(&self, tz: Tz) -> Option<DateTime<Utc>> {
        self.instant().or_else(|| {
            let midnight = self.all_day()?.and_hms_opt(0, 0, 0)?;
            tz.from_local_datetime(&midnight)
                .earliest()
                .map(|at| at.with_timezone(&Utc))
        })
    }
}

/// A person invited.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attendee {
    /// Their address.
    #[serde(default)]
    pub email: String,
}

/// One event (the fields the bot uses).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Event {
    /// The event id.
    pub id: String,
    /// Title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// Start.
    #[serde(default)]
    pub start: EventTime,
    /// End.
    #[serde(default)]
    pub end: EventTime,
    /// Where.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Link to the event in Google Calendar.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub html_link: Option<String>,
    /// Invitees.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attendees: Vec<Attendee>,
    /// `confirmed`, `tentative`, `cancelled`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// `opaque` (busy, the default) or `transparent` (free).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transparency: Option<String>,
}

impl Event {
    /// When the owner stops being busy with this event, if it keeps them busy at `now`: a
    /// timed event under way, not cancelled, not marked free (QUI-5). All-day events don't
    /// count: a day's marker (a trip, a birthday) isn't a meeting.
    pub fn busy_until(&self, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
        let (start, end) = (self.start.instant()?, self.end.instant()?);
        let counts = self.status.as_deref() != Some("cancelled")
            && self.transparency.as_deref() != Some("transparent");
        (counts && start <= now && now < end).then_some(end)
    }

    /// The title, or `(no title)`.
    pub fn title(&self) -> &str {
        self.summary
            .as_deref()
            .filter(|s| !s.is_empty())
            .unwrap_or("(no title)")
    }
}

/// One calendar of the account's list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CalendarEntry {
    /// Calendar id.
    pub id: String,
    /// Display name.
    #[serde(default)]
    pub summary: String,
    /// Whether it is the account's primary calendar.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub primary: Option<bool>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Page<T> {
    #[serde(default = "Vec::new")]
    items: Vec<T>,
    next_page_token: Option<String>,
}

/// The changes of `cal update` (GOO-6); `None` leaves a field alone.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EventChanges {
    /// New title.
    pub summary: Option<String>,
    /// New start (already resolved to the configured zone).
    pub start: Option<DateTime<Tz>>,
    /// New end.
    pub end: Option<DateTime<Tz>>,
    /// New description.
    pub description: Option<String>,
}

impl EventChanges {
    /// Whether nothing would change.
    pub fn is_empty(&self) -> bool {
        self.summary.is_none()
            && self.start.is_none()
            && self.end.is_none()
            && self.description.is_none()
    }

    fn body(&self) -> Value {
        let mut body = Map::new();
        if let Some(summary) = &self.summary {
            body.insert("summary".into(), json!(summary));
        }
        if let Some(start) = &self.start {
            body.insert("start".into(), timed(start));
        }
        if let Some(end) = &self.end {
            body.insert("end".into(), timed(end));
        }
        if let Some(description) = &self.description {
            body.insert("description".into(), json!(description));
        }
        Value::Object(body)
    }
}

/// A timed `start`/`end` object: the instant with its offset and the zone's name.
fn timed(at: &DateTime<Tz>) -> Value {
    json!({
        "dateTime": at.to_rfc3339_opts(chrono::SecondsFormat::Secs, false),
        "timeZone": at.timezone().name(),
    })
}

/// Why a `--start`/`--end` value was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TimeInputError {
    /// Not `YYYY-MM-DDTHH:MM`.
    #[error("invalid time {0:?}: expected YYYY-MM-DDTHH:MM")]
    Format(String),
    /// Falls in a daylight-saving gap.
    #[error("{0} does not exist in {1} (the clocks skip it)")]
    Nonexistent(String, String),
}

/// Reads `YYYY-MM-DDTHH:MM` (seconds and an explicit offset are accepted too) in `tz`.
pub fn parse_local_time(raw: &str, tz: Tz) -> Result<DateTime<Tz>, TimeInputError> {
    let raw = raw.trim();
    if let Ok(at) = DateTime::parse_from_rfc3339(raw) {
        return Ok(at.with_timezone(&tz));
    }
    let naive = ["%Y-%m-%dT%H:%M", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M"]
        .iter()
        .find_map(|format| NaiveDateTime::parse_from_str(raw, format).ok())
        .ok_or_else(|| TimeInputError::Format(raw.to_owned()))?;
    tz.from_local_datetime(&naive)
        .earliest()
        .ok_or_else(|| TimeInputError::Nonexistent(raw.to_owned(), tz.name().to_owned()))
}

impl GoogleClient {
    fn event_url(&self, calendar: &str, event: Option<&str>) -> String {
        let base = format!("calendars/{}/events", segment(calendar));
        match event {
            Some(event) => self.url(Api::Calendar, &format!("{base}/{}", segment(event))),
            None => self.url(Api::Calendar, &base),
        }
    }

    /// Single-instance events of `calendar` starting in `[from, to)`, in start order, all
    /// pages (GOO-6).
    pub async fn list_events(
        &self,
        calendar: &str,
        from: DateTime<Tz>,
        to: DateTime<Tz>,
    ) -> Result<Vec<Event>, GoogleError> {
        let url = self.event_url(calendar, None);
        let base = vec![
            ("timeMin", from.to_rfc3339()),
            ("timeMax", to.to_rfc3339()),
            ("singleEvents", "true".to_owned()),
            ("orderBy", "startTime".to_owned()),
            ("timeZone", from.timezone().name().to_owned()),
            ("maxResults", "250".to_owned()),
        ];
        self.all_pages(&url, base).await
    }

    async fn all_pages<T: serde::de::DeserializeOwned>(
        &self,
        url: &str,
        base: Vec<(&str, String)>,
    ) -> Result<Vec<T>, GoogleError> {
        let mut items = Vec::new();
        let mut page_token: Option<String> = None;
        loop {
            let mut query = base.clone();
            if let Some(token) = &page_token {
                query.push(("pageToken", token.clone()));
            }
            let page: Page<T> = self
                .call(Api::Calendar, Method::GET, url, &query, None)
                .await?;
            items.extend(page.items);
            match page.next_page_token.filter(|t| !t.is_empty()) {
                Some(token) => page_token = Some(token),
                None => return Ok(items),
            }
        }
    }

    /// One event.
    pub async fn get_event(&self, calendar: &str, id: &str) -> Result<Event, GoogleError> {
        let url = self.event_url(calendar, Some(id));
        self.call(Api::Calendar, Method::GET, &url, &[], None).await
    }

    /// Creates a timed event.
    pub async fn add_event(
        &self,
        calendar: &str,
        summary: &str,
        start: &DateTime<Tz>,
        end: &DateTime<Tz>,
        description: Option<&str>,
    ) -> Result<Event, GoogleError> {
        let mut body = json!({ "summary": summary, "start": timed(start), "end": timed(end) });
        if let Some(description) = description {
            body["description"] = json!(description);
        }
        let url = self.event_url(calendar, None);
        self.call(Api::Calendar, Method::POST, &url, &[], Some(&body))
            .await
    }

    /// Changes an event's fields.
    pub async fn update_event(
        &self,
        calendar: &str,
        id: &str,
        changes: &EventChanges,
    ) -> Result<Event, GoogleError> {
        let url = self.event_url(calendar, Some(id));
        self.call(
            Api::Calendar,
            Method::PATCH,
            &url,
            &[],
            Some(&changes.body()),
        )
        .await
    }

    /// Deletes an event; returns the summary it had, or the id (GOO-8).
    pub async fn delete_event(&self, calendar: &str, id: &str) -> Result<String, GoogleError> {
        let event = self.get_event(calendar, id).await?;
        let url = self.event_url(calendar, Some(id));
        self.call_empty(Api::Calendar, Method::DELETE, &url).await?;
        Ok(title_or_id(event.summary.unwrap_or_default(), id))
    }

    /// Every calendar the account can see (all pages).
    pub async fn list_calendars(&self) -> Result<Vec<CalendarEntry>, GoogleError> {
        let url = self.url(Api::Calendar, "users/me/calendarList");
        self.all_pages(&url, vec![("maxResults", "250".to_owned())])
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(start: &str, end: &str, extra: Value) -> Event {
        let mut value = json!({"id": "e", "start": {"dateTime": start}, "end": {"dateTime": end}});
        if let (Some(object), Value::Object(more)) = (value.as_object_mut(), extra) {
            object.extend(more);
        }
        serde_json::from_value(value).unwrap()
    }

    /// QUI-5: a timed event under way keeps the owner busy until it ends, unless it is
    /// cancelled or marked free; all-day events, and those not under way, don't.
    #[test]
    fn only_a_timed_event_under_way_marked_busy_keeps_the_owner_busy() {
        let now: DateTime<Utc> = "2026-11-28T10:00:00Z".parse().unwrap();
        let end: DateTime<Utc> = "2026-11-28T10:30:00Z".parse().unwrap();
        let meeting = event("2026-11-28T09:30:00Z", "2026-11-28T10:30:00Z", json!({}));
        assert_eq!(meeting.busy_until(now), Some(end));
        let free = event(
            "2026-11-28T09:30:00Z",
            "2026-11-28T10:30:00Z",
            json!({"transparency": "transparent"}),
        );
        assert_eq!(free.busy_until(now), None);
        let cancelled = event(
            "2026-11-28T09:30:00Z",
            "2026-11-28T10:30:00Z",
            json!({"status": "cancelled"}),
        );
        assert_eq!(cancelled.busy_until(now), None);
        let later = event("2026-11-28T11:00:00Z", "2026-11-28T12:00:00Z", json!({}));
        assert_eq!(later.busy_until(now), None);
        assert_eq!(meeting.busy_until(end), None);
        let all_day: Event = serde_json::from_value(
            json!({"id": "d", "start": {"date": "2026-11-28"}, "end": {"date": "2026-11-29"}}),
        )
        .unwrap();
        assert_eq!(all_day.busy_until(now), None);
    }
}
