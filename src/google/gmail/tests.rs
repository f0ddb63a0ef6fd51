use super::*;

#[test]
fn sender_names_come_from_the_display_part() {
    assert_eq!(sender_name("\"Alice Smith\" <alice@x.org>"), "Alice Smith");
    assert_eq!(sender_name("Bob <bob@x.org>"), "Bob");
    assert_eq!(sender_name("<noreply@x.org>"), "noreply@x.org");
    assert_eq!(sender_name("carol@x.org"), "carol@x.org");
}

#[test]
fn received_dates_are_shown_in_the_configured_zone() {
    let message = Message {
        id: "m".into(),
        internal_date: Some("1772010900000".into()),
        ..Message::default()
    };
    assert_eq!(message.received_local(chrono_tz::UTC), "2026-02-25 09:15");
    assert_eq!(
        message.received_local(chrono_tz::America::Los_Angeles),
        "2026-02-25 01:15"
    );
    assert_eq!(
        Message::default().received_local(chrono_tz::UTC),
        "(no date)"
    );
}
