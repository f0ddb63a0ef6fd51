//! Busy calendar events as quiet time (issue 28 §2, QUI-5): with `quiet_when_busy` on and
//! Google connected, the owner's calendars (`google_calendars`) are looked at every few sync
//! intervals; a timed event under way that isn't cancelled or marked free makes the owner
//! quiet until it ends (`state/quiet.json`), so background pings wait for the digest as in
//! quiet hours. When Google can't be reached the last answer stands: it ends with its event.

use std::{sync::Arc, time::Duration};

use chrono::{DateTime, TimeDelta, Utc};
use tokio_util::sync::CancellationToken;

use crate::{
    google::{GoogleError, GoogleFiles},
    services::Services,
};

/// How far back an event under way may have started: a longer one is a marker, not a meeting.
const LONGEST_EVENT: TimeDelta = TimeDelta::hours(24);

/// Keeps the busy calendar event under way in the quiet store until `stop`, looking every
/// `every`.
pub async fn watch_busy_calendar(
    services: Arc<Services>,
    every: Duration,
    stop: CancellationToken,
) {
    let mut failing = false;
    loop {
        let wanted = services.runtime.current().quiet_when_busy
            && GoogleFiles::new(&services.data_dir).is_connected();
        // When Google can't be read, the last answer stands (it ends with its event).
        let busy = if wanted {
            busy_until(&services, services.clock.now()).await
        } else {
            Ok(None)
        };
        match busy {
            Ok(busy) => {
                failing = false;
                if let Err(error) = services.quiet.set_busy_until(busy) {
                    tracing::warn!(%error, "could not note the busy calendar event");
                }
            }
            Err(error) if !failing => {
                failing = true;
                tracing::warn!(%error, "the calendar can't be read; busy events aren't checked until it can");
            }
            Err(_) => {}
        }
        tokio::select! {
            () = stop.cancelled() => return,
            () = services.clock.sleep(every) => {}
        }
    }
}

/// The end of the latest-ending busy event under way at `now` in the owner's calendars.
async fn busy_until(
    services: &Services,
    now: DateTime<Utc>,
) -> Result<Option<DateTime<Utc>>, GoogleError> {
    let tz = services.config.timezone;
    let (from, to) = (
        (now - LONGEST_EVENT).with_timezone(&tz),
        (now + TimeDelta::minutes(1)).with_timezone(&tz),
    );
    let mut until = None;
    for calendar in &services.runtime.current().google_calendars {
        let events = services.google.list_events(calendar, from, to).await?;
        until = until.max(
            events
                .iter()
                .filter_map(|event| event.busy_until(now))
                .max(),
        );
    }
    Ok(until)
}
