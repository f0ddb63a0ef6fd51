//! Context injection (CTX): the timestamp header, the pending-updates block and the prompt
//! tags that open scheduled and system prompts.
//!
//! Everything here is pure: callers pass the clock reading and the updates they popped
//! (main session) or peeked (forks) from the pending-updates store.

use chrono::{DateTime, Duration};
use chrono_tz::Tz;

use crate::state::pending::PendingUpdate;

pub use crate::state::pending::{CONSUME_HEADER, PEEK_HEADER};

/// Renders the timestamp header `[2026-02-24 Tue 02:30 PM PST]` (CTX-1).
///
/// Date, English weekday abbreviation, zero-padded 12-hour clock with AM/PM, and the
/// zone's own abbreviation for that instant (PST/PDT, CET/CEST, JST, UTC, ...; F-12).
/// Zones without a letter abbreviation show their numeric form as chrono-tz reports it
/// (e.g. `+04`).
pub fn timestamp_header(now: DateTime<Tz>) -> String {
    now.format("[%Y-%m-%d %a %I:%M %p %Z]").to_string()
}

/// Describes how long ago something happened (CTX-4, F-10).
///
/// Under one minute (including negative ages from clock skew) → `just now`; otherwise the
/// largest whole unit among minutes, hours and days, rounded down, singular for 1:
/// `1 minute ago`, `15 minutes ago`, `1 hour ago`, `3 hours ago`, `2 days ago`.
pub fn relative_age(age: Duration) -> String {
    let seconds = age.num_seconds();
    if seconds < 60 {
        return "just now".to_owned();
    }
    let (count, unit) = if seconds < 3_600 {
        (seconds / 60, "minute")
    } else if seconds < 86_400 {
        (seconds / 3_600, "hour")
    } else {
        (seconds / 86_400, "day")
    };
    let plural = if count == 1 { "" } else { "s" };
    format!("{count} {unit}{plural} ago")
}

/// How the pending updates handed to [`compose_prompt`] were obtained, which selects the
/// header wording.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UpdatesView {
    /// The main session popped the updates; the agent is asked to mention key findings.
    Consume,
    /// A fork (interactive or forked background run) peeked; the updates are read-only.
    Peek,
}

impl UpdatesView {
    /// The header line used for this view.
    pub fn header(self) -> &'static str {
        match self {
            UpdatesView::Consume => CONSUME_HEADER,
            UpdatesView::Peek => PEEK_HEADER,
        }
    }
}

/// Builds the prompt actually sent to a session (CTX-2, CTX-3, CTX-5).
///
/// Without updates: `<ts> <text>`, or just `<ts>` when `text` is empty.
/// With updates:
///
/// ```text
/// <ts> RECENT BACKGROUND UPDATES (mention key findings in your response):
/// - (15 minutes ago) Morning email triage: 2 items need attention
/// - (3 hours ago) CI webhook: build passed
///
/// <text>
/// ```
///
/// The header wording follows `view`. Each update's age is `now - update.ts`. When `text`
/// is empty the block ends after the last update line (no trailing blank line).
pub fn compose_prompt(
    text: &str,
    now: DateTime<Tz>,
    updates: &[PendingUpdate],
    view: UpdatesView,
) -> String {
    if updates.is_empty() {
        return compose_timestamp_only(text, now);
    }
    let mut out = format!("{} {}", timestamp_header(now), view.header());
    for update in updates {
        let age = now.fixed_offset() - update.ts;
        out.push_str("\n- (");
        out.push_str(&relative_age(age));
        out.push_str(") ");
        out.push_str(&update.message);
    }
    if !text.is_empty() {
        out.push_str("\n\n");
        out.push_str(text);
    }
    out
}

/// Builds a prompt that carries only the timestamp: `<ts> <text>` (or `<ts>` alone for an
/// empty text). Used for isolated background runs, which never see pending updates (CTX-7),
/// and by [`compose_prompt`] when there are no updates.
pub fn compose_timestamp_only(text: &str, now: DateTime<Tz>) -> String {
    let ts = timestamp_header(now);
    if text.is_empty() {
        ts
    } else {
        format!("{ts} {text}")
    }
}

/// A job's prompt led by its slash command (CTX-11): the command (the job's whole body), a
/// blank line, then the prompt composed as usual. The CLI runs the command with the rest as
/// its arguments; recall reads it back the same way (`recall::sources::sessions`).
pub fn command_first(command: &str, composed: &str) -> String {
    format!("{}\n\n{composed}", command.trim())
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn at(tz: Tz, y: i32, mo: u32, d: u32, h: u32, mi: u32) -> DateTime<Tz> {
        tz.with_ymd_and_hms(y, mo, d, h, mi, 0)
            .single()
            .expect("unambiguous test time")
    }

    fn update(now: DateTime<Tz>, minutes_ago: i64, message: &str) -> PendingUpdate {
        PendingUpdate {
            ts: (now - Duration::minutes(minutes_ago)).fixed_offset(),
            message: message.to_owned(),
        }
    }

    #[test]
    fn timestamp_uses_zone_abbreviation() {
        let la = chrono_tz::America::Los_Angeles;
        assert_eq!(
            timestamp_header(at(la, 2026, 2, 24, 14, 30)),
            "[2026-02-24 Tue 02:30 PM PST]"
        );
        assert_eq!(
            timestamp_header(at(la, 2026, 7, 4, 9, 5)),
            "[2026-07-04 Sat 09:05 AM PDT]"
        );
        assert_eq!(
            timestamp_header(at(chrono_tz::Europe::Berlin, 2026, 1, 5, 0, 15)),
            "[2026-01-05 Mon 12:15 AM CET]"
        );
        assert_eq!(
            timestamp_header(at(chrono_tz::Europe::Berlin, 2026, 8, 5, 12, 0)),
            "[2026-08-05 Wed 12:00 PM CEST]"
        );
        assert_eq!(
            timestamp_header(at(chrono_tz::UTC, 2026, 3, 1, 23, 59)),
            "[2026-03-01 Sun 11:59 PM UTC]"
        );
        assert_eq!(
            timestamp_header(at(chrono_tz::Asia::Tokyo, 2026, 3, 1, 8, 0)),
            "[2026-03-01 Sun 08:00 AM JST]"
        );
    }

    #[test]
    fn relative_age_wording() {
        let cases = [
            (Duration::seconds(-30), "just now"),
            (Duration::seconds(0), "just now"),
            (Duration::seconds(59), "just now"),
            (Duration::seconds(60), "1 minute ago"),
            (Duration::seconds(119), "1 minute ago"),
            (Duration::minutes(15), "15 minutes ago"),
            (Duration::minutes(59), "59 minutes ago"),
            (Duration::minutes(60), "1 hour ago"),
            (Duration::minutes(90), "1 hour ago"),
            (Duration::hours(3), "3 hours ago"),
            (Duration::hours(23), "23 hours ago"),
            (Duration::hours(24), "1 day ago"),
            (Duration::days(2), "2 days ago"),
        ];
        for (age, expected) in cases {
            assert_eq!(relative_age(age), expected, "{age:?}");
        }
    }

    #[test]
    fn prompt_without_updates() {
        let now = at(chrono_tz::America::Los_Angeles, 2026, 2, 24, 14, 30);
        assert_eq!(
            compose_prompt("hi", now, &[], UpdatesView::Consume),
            "[2026-02-24 Tue 02:30 PM PST] hi"
        );
        assert_eq!(
            compose_prompt("", now, &[], UpdatesView::Peek),
            "[2026-02-24 Tue 02:30 PM PST]"
        );
        assert_eq!(
            compose_timestamp_only("[routine-bg:x] body", now),
            "[2026-02-24 Tue 02:30 PM PST] [routine-bg:x] body"
        );
    }

    #[test]
    fn prompt_with_consumed_updates() {
        let now = at(chrono_tz::America::Los_Angeles, 2026, 2, 24, 14, 30);
        let updates = [
            update(now, 15, "Morning email triage: 2 items need attention"),
            update(now, 180, "CI webhook: build passed, no action needed"),
        ];
        let prompt = compose_prompt("How's it going?", now, &updates, UpdatesView::Consume);
        assert_eq!(
            prompt,
            "[2026-02-24 Tue 02:30 PM PST] RECENT BACKGROUND UPDATES (mention key findings in \
             your response):\n\
             - (15 minutes ago) Morning email triage: 2 items need attention\n\
             - (3 hours ago) CI webhook: build passed, no action needed\n\
             \n\
             How's it going?"
        );
    }

    #[test]
    fn prompt_with_peeked_updates_and_empty_text() {
        let now = at(chrono_tz::UTC, 2026, 2, 24, 9, 0);
        let updates = [update(now, 0, "done")];
        assert_eq!(
            compose_prompt("", now, &updates, UpdatesView::Peek),
            "[2026-02-24 Tue 09:00 AM UTC] RECENT BACKGROUND UPDATES (read-only — main session \
             will also see these):\n- (just now) done"
        );
    }

    #[test]
    fn update_age_ignores_stored_offset() {
        // Stored in another offset than the configured zone: age is still an instant difference.
        let now = at(chrono_tz::Europe::Berlin, 2026, 2, 24, 15, 0);
        let ts = at(chrono_tz::America::Los_Angeles, 2026, 2, 24, 4, 0).fixed_offset();
        let updates = [PendingUpdate {
            ts,
            message: "m".into(),
        }];
        let prompt = compose_prompt("x", now, &updates, UpdatesView::Consume);
        assert!(prompt.contains("- (2 hours ago) m"), "{prompt}");
    }
}
