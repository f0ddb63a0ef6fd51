//! `ollim-bot cal …` and `ollim-bot gmail …` through the real binary against the fake Google
//! (GOO-6, GOO-7): every subcommand's exact lines, the configured calendars merged and tagged,
//! a missing calendar skipped, paging, times in `OLLIM_TIMEZONE`, Gmail bodies and fallbacks.

use crate::support;

use base64::Engine;
use chrono::{Duration, Utc};
use serde_json::{Value, json};
use support::fake_google::FakeGoogle;
use support::google_cli::{command, connected, fails, ok};

fn timed(id: &str, summary: &str, start: &str, end: &str) -> Value {
    json!({"id": id, "summary": summary, "status": "confirmed",
        "start": {"dateTime": start}, "end": {"dateTime": end}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[allow(clippy::too_many_lines)] // every subcommand in turn, on one fake account
async fn cal_subcommands_print_their_exact_lines() {
    let fake = FakeGoogle::start().await;
    let (_home, dir) = connected();
    fake.connect(&dir, false);
    let today = Utc::now().date_naive();
    let tomorrow = today + Duration::days(1);
    let far = today + Duration::days(9);
    fake.with(|d| {
        d.events("primary").extend([
            timed(
                "e1",
                "Dentist",
                &format!("{today}T09:00:00Z"),
                &format!("{today}T10:00:00Z"),
            ),
            json!({"id": "allday", "summary": "Deadline", "start": {"date": today.to_string()},
                "end": {"date": tomorrow.to_string()}}),
            json!({"id": "e2", "start": {"dateTime": format!("{tomorrow}T16:30:00+00:00")},
                "end": {"dateTime": format!("{tomorrow}T17:00:00+00:00")}}),
            timed(
                "e3",
                "Far away",
                &format!("{far}T09:00:00Z"),
                &format!("{far}T10:00:00Z"),
            ),
        ]);
        d.events("work@example.com").push(timed(
            "w1",
            "Standup",
            &format!("{today}T08:00:00Z"),
            &format!("{today}T08:30:00Z"),
        ));
        d.calendar_list = vec![
            json!({"id": "primary", "summary": "My Calendar", "primary": true}),
            json!({"id": "work@example.com", "summary": "Work"}),
            json!({"id": "family12345@group.calendar.google.com", "summary": "Family"}),
        ];
    });

    assert_eq!(
        ok(&dir, &fake, &["cal", "today"]).await,
        format!("  allday  {today}  (all-day)     Deadline\n  e1  {today}  09:00-10:00  Dentist\n")
    );
    let window = &fake.requests_to("/calendar/v3/calendars/primary/events")[0];
    assert_eq!(window.param("singleEvents"), Some("true"));
    assert_eq!(
        window.param("timeMin"),
        Some(format!("{today}T00:00:00+00:00").as_str())
    );
    assert_eq!(
        ok(&dir, &fake, &["cal", "upcoming"]).await,
        format!(
            "  allday  {today}  (all-day)     Deadline\n  e1  {today}  09:00-10:00  Dentist\n  \
             e2  {tomorrow}  16:30-17:00  (no title)\n"
        )
    );
    let far_too = ok(&dir, &fake, &["cal", "upcoming", "--days", "10"]).await;
    assert!(
        far_too.ends_with(&format!("  e3  {far}  09:00-10:00  Far away\n")),
        "{far_too}"
    );

    // Several calendars: merged in start order, tagged; a missing one is skipped.
    std::fs::write(
        dir.join("state/config.json"),
        r#"{"google_calendars": "primary,work@example.com,gone"}"#,
    )
    .unwrap();
    assert_eq!(
        ok(&dir, &fake, &["cal", "today"]).await,
        format!(
            "(calendar 'gone' not found — skipped)\n  allday  {today}  (all-day)     Deadline  \
             [primary]\n  w1  {today}  08:00-08:30  Standup  [work@example.com]\n  e1  {today}  \
             09:00-10:00  Dentist  [primary]\n"
        )
    );
    assert_eq!(
        ok(
            &dir,
            &fake,
            &["cal", "today", "--calendar", "work@example.com"]
        )
        .await,
        format!("  w1  {today}  08:00-08:30  Standup\n")
    );
    let listed: Value =
        serde_json::from_str(&ok(&dir, &fake, &["cal", "today", "--json"]).await).unwrap();
    assert_eq!(listed[1]["calendar"], "work@example.com");
    assert_eq!(listed[1]["event"]["summary"], "Standup");
    std::fs::write(dir.join("state/config.json"), "{}").unwrap();

    // Show, in the configured zone.
    fake.with(|d| {
        let mut event = timed(
            "s1",
            "Review",
            "2026-02-25T14:00:00Z",
            "2026-02-25T15:30:00Z",
        );
        event["location"] = json!("Room 4");
        event["description"] = json!("Quarterly");
        event["htmlLink"] = json!("https://calendar.google.com/event?eid=s1");
        event["attendees"] = json!([{"email": "a@x.org"}, {"email": "b@x.org"}]);
        d.events("primary").push(event);
    });
    let shown = command(&dir, &fake, &["cal", "show", "s1"])
        .env("OLLIM_TIMEZONE", "America/New_York")
        .output()
        .await
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&shown.stdout),
        "title:       Review\nwhen:        2026-02-25  09:00-10:30  Review\nlocation:    Room \
         4\ndescription: Quarterly\nlink:        https://calendar.google.com/event?eid=s1\n\
         attendees:   a@x.org, b@x.org\nstatus:      confirmed\nid:          s1\n"
    );

    // Add: naive times in the configured zone, sent with that zone.
    let created = command(
        &dir,
        &fake,
        &[
            "cal",
            "add",
            "Lunch",
            "--start",
            "2026-02-25T12:00",
            "--end",
            "2026-02-25T13:00",
            "--description",
            "Italian",
        ],
    )
    .env("OLLIM_TIMEZONE", "America/New_York")
    .output()
    .await
    .unwrap();
    let created = String::from_utf8_lossy(&created.stdout).into_owned();
    let id = created
        .strip_prefix("created ")
        .and_then(|r| r.split(':').next())
        .unwrap()
        .to_owned();
    assert_eq!(created, format!("created {id}: Lunch\n"));
    let stored = fake.with(|d| d.events("primary").last().cloned().unwrap());
    assert_eq!(stored["start"]["dateTime"], "2026-02-25T12:00:00-05:00");
    assert_eq!(stored["start"]["timeZone"], "America/New_York");
    assert_eq!(stored["description"], "Italian");
    assert_eq!(
        ok(
            &dir,
            &fake,
            &[
                "cal",
                "update",
                &id,
                "--summary",
                "Long lunch",
                "--end",
                "2026-02-25T14:30"
            ]
        )
        .await,
        format!("updated {id}\n")
    );
    let stored = fake.with(|d| d.events("primary").last().cloned().unwrap());
    assert_eq!(stored["summary"], "Long lunch");
    assert_eq!(stored["end"]["dateTime"], "2026-02-25T14:30:00+00:00");
    assert_eq!(
        fails(&dir, &fake, &["cal", "update", &id]).await,
        "error: provide at least one of --summary, --start, --end, --description"
    );
    assert_eq!(
        fails(
            &dir,
            &fake,
            &["cal", "add", "X", "--start", "tomorrow", "--end", "later"]
        )
        .await,
        "error: invalid time \"tomorrow\": expected YYYY-MM-DDTHH:MM"
    );
    assert_eq!(
        ok(&dir, &fake, &["cal", "delete", &id]).await,
        format!("deleted {id}\n")
    );
    assert_eq!(
        fails(&dir, &fake, &["cal", "delete", &id]).await,
        format!("error: event {id} not found")
    );
    assert_eq!(
        ok(
            &dir,
            &fake,
            &["cal", "delete", "w1", "--calendar", "work@example.com"]
        )
        .await,
        "deleted w1\n"
    );

    // Calendars, over two pages, names in the column the docs show (47).
    let calendars = ok(&dir, &fake, &["cal", "calendars"]).await;
    let rows: Vec<(&str, &str)> = calendars
        .lines()
        .map(|line| (line[..47].trim(), &line[47..]))
        .collect();
    assert_eq!(
        rows,
        [
            ("primary", "My Calendar"),
            ("work@example.com", "Work"),
            ("family12345@group.calendar.google.com", "Family")
        ]
    );
    fake.with(|d| d.events("primary").clear());
    assert_eq!(ok(&dir, &fake, &["cal", "today"]).await, "no events\n");
}

fn b64(text: &str) -> String {
    base64::engine::general_purpose::URL_SAFE.encode(text)
}

fn message(
    id: &str,
    unread: bool,
    headers: &[(&str, &str)],
    date: Option<&str>,
    part: Value,
) -> Value {
    let headers: Vec<Value> = headers
        .iter()
        .map(|(name, value)| json!({"name": name, "value": value}))
        .collect();
    let mut payload = part;
    payload["headers"] = json!(headers);
    let mut message = json!({"id": id, "labelIds": if unread { json!(["UNREAD", "INBOX"]) } else { json!(["INBOX"]) },
        "payload": payload});
    if let Some(date) = date {
        message["internalDate"] = json!(date);
    }
    message
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[allow(clippy::too_many_lines)] // every subcommand in turn, on one fake mailbox
async fn gmail_subcommands_print_their_exact_lines() {
    let fake = FakeGoogle::start().await;
    let (_home, dir) = connected();
    fake.connect(&dir, false);
    let plain = json!({"mimeType": "multipart/alternative", "parts": [
        {"mimeType": "text/html", "body": {"data": b64("<p>html</p>")}},
        {"mimeType": "text/plain", "body": {"data": b64("Can we move it to Friday?\n")}},
    ]});
    let html = json!({"mimeType": "text/html",
        "body": {"data": b64("<style>p{x}</style><p>Your   order</p><br>shipped")}});
    let long = json!({"mimeType": "text/plain", "body": {"data": b64(&"a".repeat(3100))}});
    fake.with(|d| {
        d.messages = vec![
            message(
                "m1",
                true,
                &[
                    ("From", "\"Alice Smith\" <alice@x.org>"),
                    ("To", "me@x.org"),
                    ("Subject", "Meeting follow-up"),
                ],
                Some("1772010900000"),
                plain,
            ),
            message(
                "m2",
                true,
                &[
                    ("From", "Bob Jones <bob@x.org>"),
                    ("Subject", "Invoice #1234"),
                ],
                Some("1771921800000"),
                long,
            ),
            message(
                "m3",
                false,
                &[("From", "shop@x.org"), ("Subject", "Shipped")],
                Some("1771921800000"),
                html,
            ),
            message("m4", true, &[], None, json!({"mimeType": "image/png"})),
        ];
        d.labels = vec![
            json!({"id": "INBOX", "name": "INBOX"}),
            json!({"id": "Label_1", "name": "Receipts"}),
        ];
    });

    assert_eq!(
        ok(&dir, &fake, &["gmail", "unread"]).await,
        "  m1  2026-02-25 09:15  Alice Smith  Meeting follow-up\n  m2  2026-02-24 08:30  Bob \
         Jones    Invoice #1234\n  m4  (no date)         (unknown)    (no subject)\n"
    );
    let searches = fake.requests_to("/gmail/v1/users/me/messages");
    let list = searches
        .iter()
        .find(|r| r.path.ends_with("/messages"))
        .unwrap();
    assert_eq!(list.param("q"), Some("is:unread"));
    assert_eq!(
        ok(&dir, &fake, &["gmail", "unread", "--max", "2"])
            .await
            .lines()
            .count(),
        2
    );
    assert_eq!(
        ok(&dir, &fake, &["gmail", "search", "invoice"]).await,
        "  m2  2026-02-24 08:30  Bob Jones  Invoice #1234\n"
    );
    let listed: Value =
        serde_json::from_str(&ok(&dir, &fake, &["gmail", "search", "alice", "--json"]).await)
            .unwrap();
    assert_eq!(listed[0]["sender"], "Alice Smith");
    assert_eq!(listed[0]["date"], "2026-02-25T09:15:00+00:00");

    assert_eq!(
        ok(&dir, &fake, &["gmail", "read", "m1"]).await,
        "from:    \"Alice Smith\" <alice@x.org>\nto:      me@x.org\ndate:    2026-02-25 09:15\n\
         subject: Meeting follow-up\n\nCan we move it to Friday?\n"
    );
    assert!(
        ok(&dir, &fake, &["gmail", "read", "m3"])
            .await
            .ends_with("\n\nYour order shipped\n")
    );
    let cut = ok(&dir, &fake, &["gmail", "read", "m2"]).await;
    assert!(
        cut.ends_with(&format!("{}\n... (truncated)\n", "a".repeat(10))),
        "{cut}"
    );
    assert!(
        ok(&dir, &fake, &["gmail", "read", "m4"])
            .await
            .ends_with("\n\n(no text body)\n")
    );
    assert_eq!(
        fails(&dir, &fake, &["gmail", "read", "nope"]).await,
        "error: message nope not found"
    );
    assert_eq!(
        ok(&dir, &fake, &["gmail", "labels"]).await,
        "  INBOX  INBOX\n  Label_1  Receipts\n"
    );
    fake.with(|d| d.messages.clear());
    assert_eq!(ok(&dir, &fake, &["gmail", "unread"]).await, "no messages\n");
    // Read-only: nothing but GETs ever reached Gmail.
    assert!(
        fake.requests_to("/gmail/")
            .iter()
            .all(|r| r.method == "GET")
    );
}
