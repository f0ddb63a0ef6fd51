//! The quiet-time part (issue 41 §2): quiet hours, quiet for a while, focus sessions, and what
//! waits for the owner meanwhile. It answers `/quiet`, `/focus` ([`focus`], with the focus
//! timer and **End focus**) and sends the quiet-time digest ([`digest`]); the quiet state
//! itself is the services' (`state::quiet`), which the background runs read too.
//!
//! `/quiet [when]` (issue 28 §2, QUI-1): quiet hours every day (`22:00-08:00`), quiet for a
//! while now (`2h`), `end` to end the quiet under way now, whatever set it, until the next
//! window starts (QUI-6), `off` for neither; no argument shows what holds.
//! While the owner is quiet, background runs' non-critical pings, embeds and files wait for
//! one digest at its end.

pub mod digest;
pub mod focus;

use std::{sync::Arc, time::Duration};

use chrono::{DateTime, Utc};

use serenity::all::CommandInteraction;

use super::{
    commands::{option, reply_ephemeral},
    reach::Reach,
};
use crate::config::runtime::ConfigKey;

/// The quiet-time part.
pub struct QuietTime {
    reach: Arc<Reach>,
}

impl QuietTime {
    /// The part.
    pub fn new(reach: Arc<Reach>) -> Self {
        Self { reach }
    }
}

/// What the owner asked `/quiet` for.
#[derive(Debug, Clone, PartialEq, Eq)]
enum QuietAsk {
    /// Show the state.
    Show,
    /// The daily window (raw text, checked by the setting).
    Daily(String),
    /// Quiet from now for this long.
    For(Duration),
    /// End the quiet under way now (QUI-6).
    End,
    /// Neither a window nor a quiet-for-a-while.
    Off,
    /// Busy calendar events count as quiet time, or not (QUI-5).
    Busy(bool),
}

impl QuietAsk {
    fn parse(raw: Option<&str>) -> Self {
        let Some(raw) = raw.map(str::trim).filter(|raw| !raw.is_empty()) else {
            return Self::Show;
        };
        match raw.to_ascii_lowercase().as_str() {
            "off" => Self::Off,
            "end" | "stop" | "now off" => Self::End,
            "busy" | "busy on" => Self::Busy(true),
            "busy off" => Self::Busy(false),
            lower => match humantime::parse_duration(lower) {
                Ok(length) => Self::For(length),
                Err(_) => Self::Daily(raw.to_owned()),
            },
        }
    }
}

/// The longest "quiet for …": a day; longer is what daily quiet hours are for.
const LONGEST: Duration = Duration::from_secs(24 * 3600);

impl QuietTime {
    /// `/quiet [when]`.
    pub(crate) async fn command(
        &self,
        command: &CommandInteraction,
    ) -> Result<(), serenity::Error> {
        let text = self.quiet_answer(QuietAsk::parse(option(command, "when")));
        reply_ephemeral(&self.reach.http, command, text).await
    }

    fn quiet_answer(&self, ask: QuietAsk) -> String {
        let services = &self.reach.services;
        let now = services.clock.now();
        let was_quiet = services.quiet_until(now);
        let said = match ask {
            QuietAsk::Show => Ok(String::new()),
            QuietAsk::Daily(raw) => services
                .runtime
                .update(ConfigKey::QuietHours, &raw)
                .map_err(|error| error.to_string())
                .and_then(|_| services.quiet.forget_ended().map_err(|e| e.to_string()))
                .map(|()| String::new()),
            QuietAsk::For(length) if length > LONGEST || length < Duration::from_secs(60) => Err(
                "quiet for between 1m and 24h (for every day, give hours like \
                     22:00-08:00)"
                    .to_owned(),
            ),
            QuietAsk::For(length) => chrono::Duration::from_std(length)
                .map_err(|error| error.to_string())
                .and_then(|chrono_length| {
                    services
                        .quiet
                        .set_until(Some(now + chrono_length))
                        .map_err(|error| error.to_string())
                        .map(|()| self.quiet_for_said(length, now + chrono_length))
                }),
            QuietAsk::End => {
                let window = services.runtime.current().quiet_hours;
                services
                    .quiet
                    .end_quiet(window.as_ref(), services.config.timezone, now)
                    .map_err(|error| error.to_string())
                    .map(|_| self.ended_said(was_quiet.is_some()))
            }
            QuietAsk::Busy(on) => services
                .runtime
                .update(ConfigKey::QuietWhenBusy, if on { "on" } else { "off" })
                .map(|_| String::new())
                .map_err(|error| error.to_string()),
            QuietAsk::Off => services
                .quiet
                .set_until(None)
                .and_then(|()| services.quiet.forget_ended())
                .map_err(|error| error.to_string())
                .and_then(|()| {
                    services
                        .runtime
                        .update(ConfigKey::QuietHours, "off")
                        .map(|_| String::new())
                        .map_err(|error| error.to_string())
                }),
        };
        match said {
            Err(error) => format!("couldn't change the quiet time: {error}"),
            Ok(said) if said.is_empty() => self.quiet_state(),
            Ok(said) => format!("{said}\n{}", self.quiet_state()),
        }
    }

    /// The answer to "quiet for `length`" (until `asked`), set inside quiet that may last
    /// longer (QUI-1): what holds and until when.
    fn quiet_for_said(&self, length: Duration, asked: DateTime<Utc>) -> String {
        let services = &self.reach.services;
        let length = humantime::format_duration(length);
        match services.quiet_until(services.clock.now()) {
            Some(until) if until > asked => format!(
                "Quiet time already holds until {}, longer than the {length} you asked for, \
                 so you stay quiet until then (`/quiet end` ends it).",
                self.when(until)
            ),
            _ => format!("Quiet for {length}, until {}.", self.when(asked)),
        }
    }

    /// The answer to `/quiet end` (QUI-6): what ended, and when quiet hours come back.
    fn ended_said(&self, was_quiet: bool) -> String {
        let services = &self.reach.services;
        let now = services.clock.now();
        if !was_quiet {
            return "Nothing to end: you weren't in quiet time.".to_owned();
        }
        if let Some(focus) = services.quiet.focus() {
            return format!(
                "The focus session on **{}** keeps you quiet until {}; **End focus** on it \
                 ends that.",
                focus.task,
                self.when(focus.until)
            );
        }
        let next = services.runtime.current().quiet_hours.map(|window| {
            let from = services.quiet.ended(now).window_until.unwrap_or(now);
            window.next_start_after(from, services.config.timezone)
        });
        match next {
            Some(next) => format!(
                "Quiet time ended; pings come through again until quiet hours start at {}.",
                self.when(next)
            ),
            None => "Quiet time ended; pings come through again.".to_owned(),
        }
    }

    /// `at` for the owner: `22:00`, `22:00 tomorrow`, or `22:00 on Sat 5 Dec`.
    fn when(&self, at: DateTime<Utc>) -> String {
        let services = &self.reach.services;
        let tz = services.config.timezone;
        let day = crate::domain::wall_clock::local_date(at, tz);
        let today = crate::domain::wall_clock::local_date(services.clock.now(), tz);
        let time = services.hh_mm(at);
        if day == today {
            time
        } else if today.succ_opt() == Some(day) {
            format!("{time} tomorrow")
        } else {
            format!("{time} on {}", day.format("%a %-d %b"))
        }
    }

    /// What holds now: the daily window, whether the owner is quiet and until when.
    fn quiet_state(&self) -> String {
        let services = &self.reach.services;
        let window = services.runtime.current().quiet_hours;
        let now = services.clock.now();
        let mut daily = window.map_or_else(
            || "Quiet hours: off.".to_owned(),
            |window| match services.quiet.ended(now).window_until {
                Some(from) => format!(
                    "Quiet hours: {window} every day (ended for now; back at {}).",
                    self.when(window.next_start_after(from, services.config.timezone))
                ),
                None => format!("Quiet hours: {window} every day."),
            },
        );
        let connected = || crate::google::GoogleFiles::new(&services.data_dir).is_connected();
        if services.runtime.current().quiet_when_busy && !connected() {
            daily.push_str(
                " Busy calendar events would count as quiet, but Google isn't connected \
                 (`/google-auth`).",
            );
        } else if services.runtime.current().quiet_when_busy {
            let under_way = services
                .quiet
                .busy_until(self.reach.services.clock.now())
                .map_or_else(String::new, |until| {
                    format!(" (one is under way until {})", services.hh_mm(until))
                });
            daily = format!("{daily} Busy calendar events count as quiet{under_way}.");
        }
        match services.quiet_until(self.reach.services.clock.now()) {
            Some(until) => format!(
                "{daily} Quiet now until {}: background pings wait and come as one digest \
                 then (critical ones still come through). `/quiet end` ends it now.",
                self.when(until)
            ),
            None => format!("{daily} Not quiet now."),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// QUI-1.
    #[test]
    fn the_owner_s_words_become_a_request() {
        assert_eq!(QuietAsk::parse(None), QuietAsk::Show);
        assert_eq!(QuietAsk::parse(Some("  ")), QuietAsk::Show);
        assert_eq!(QuietAsk::parse(Some("Off")), QuietAsk::Off);
        assert_eq!(QuietAsk::parse(Some("end")), QuietAsk::End);
        assert_eq!(QuietAsk::parse(Some("Busy")), QuietAsk::Busy(true));
        assert_eq!(QuietAsk::parse(Some("busy off")), QuietAsk::Busy(false));
        assert_eq!(
            QuietAsk::parse(Some("2h")),
            QuietAsk::For(Duration::from_secs(7200))
        );
        assert_eq!(
            QuietAsk::parse(Some("90m")),
            QuietAsk::For(Duration::from_secs(5400))
        );
        assert_eq!(
            QuietAsk::parse(Some("22:00-08:00")),
            QuietAsk::Daily("22:00-08:00".into())
        );
    }
}
