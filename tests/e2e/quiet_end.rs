//! `/quiet end` and `/quiet 2h` inside the daily quiet hours (QUI-1, QUI-6),
//! through the real binary with its clock moved by the test: the owner's words acknowledged
//! with what holds and until when, the night ended until the next one starts, and the held
//! ping delivered in the digest as soon as it ends.

use std::time::Duration;

use chrono::{Timelike, Utc};

use crate::quiet_hours::{plants_in_the_digest, plants_reminder_held, quiet, script_runs};
use crate::support::{bot::BotHarness, cli::CliSandbox, wait};

/// QUI-1, QUI-6: inside quiet hours, `/quiet 1h` says the quiet hours already hold longer and
/// until when; `/quiet end` ends them now (the held ping comes in the digest) and says when
/// they start again; they do, at their next start.
#[tokio::test]
async fn quiet_end_ends_the_quiet_hours_under_way_until_the_next_night() {
    let mut h = BotHarness::greeted_fast_sync(CliSandbox::new()).await;
    h.converse("hi", "Hi!").await;
    // A window from the last hour to two hours ahead (the bot's zone is UTC): quiet now.
    let hour = (Utc::now() + h.sandbox.clock_ahead()).hour();
    let (start, end) = ((hour + 23) % 24, (hour + 2) % 24);
    let said = quiet(&h, &format!("{start:02}:00-{end:02}:00")).await;
    assert!(
        said.contains(&format!("Quiet now until {end:02}:00")),
        "{said}"
    );

    let said = quiet(&h, "1h").await;
    assert!(
        said.contains(&format!(
            "Quiet time already holds until {end:02}:00, longer than the 1h you asked for"
        )),
        "{said}"
    );

    script_runs(&h);
    plants_reminder_held(&h, "the quiet hours").await;

    let said = quiet(&h, "end").await;
    assert!(
        said.contains(&format!(
            "Quiet time ended; pings come through again until quiet hours start at \
             {start:02}:00"
        )),
        "{said}"
    );
    assert!(said.contains("Not quiet now"), "{said}");
    plants_in_the_digest(&h, Duration::from_secs(30)).await;

    let said = quiet(&h, "").await;
    assert!(said.contains("ended for now; back at"), "{said}");
    assert!(said.contains("Not quiet now"), "{said}");

    // The next night holds again.
    let now = Utc::now() + h.sandbox.clock_ahead();
    let start_today = now.date_naive().and_hms_opt(start, 0, 0).unwrap().and_utc();
    let next = if start_today > now {
        start_today
    } else {
        start_today + chrono::Duration::days(1)
    };
    h.sandbox
        .advance_clock((next - now).to_std().unwrap() + Duration::from_secs(60));
    // The bot follows its clock file within moments: asked again until it has.
    let holding = format!("Quiet now until {end:02}:00");
    let (bot, holding) = (&h, &holding);
    let said = wait::until_async(Duration::from_secs(10), move || async move {
        let said = quiet(bot, "").await;
        said.contains(holding).then_some(said)
    })
    .await
    .expect("the next night's quiet hours hold");
    assert!(!said.contains("ended for now"), "{said}");
    h.terminate().await;
}
