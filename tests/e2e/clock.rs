//! What the clock drives, through the real binary with its clock moved by the test (issue 40
//! §2), the real CLI against the mock model and the fake Discord: the daily quiet window's end
//! sends the digest, a focus session checks in halfway and ends, a routine fires at its next
//! time. Nothing waits for real time to pass, and no command stands in for the clock.

use std::time::Duration;

use chrono::{Timelike, Utc};
use serde_json::{Value, json};

use crate::quiet_hours::script_runs;
use crate::support::{bot::BotHarness, cli::CliSandbox, mock_api::Reply};

/// `/config <key> <value>`; returns the answer's text.
async fn config(h: &BotHarness, key: &str, value: &str) -> String {
    let command = h
        .discord
        .slash(
            h.owner(),
            "config",
            json!([
                {"name": "key", "type": 3, "value": key},
                {"name": "value", "type": 3, "value": value},
            ]),
        )
        .await;
    let answer: Value = h.discord.wait_for_callback(command).await;
    answer["data"]["content"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// How long until the bot's clock (the system's, moved as far as the test moved it) reads
/// `hour:00` UTC next.
fn until_hour(h: &BotHarness, hour: u32) -> Duration {
    let now = Utc::now() + h.sandbox.clock_ahead();
    let today = now.date_naive().and_hms_opt(hour, 0, 0).unwrap().and_utc();
    let next = if today > now {
        today
    } else {
        today + chrono::Duration::days(1)
    };
    (next - now).to_std().unwrap()
}

/// QUI-1, QUI-3, CLK-1: a daily quiet window holds a background ping; when the clock reaches the
/// window's end, the digest goes out with it.
#[tokio::test]
async fn the_daily_quiet_window_ends_on_the_clock() {
    let mut h = BotHarness::greeted_fast_sync(CliSandbox::new()).await;
    h.converse("hi", "Hi!").await;
    script_runs(&h);
    // A window from the last hour to two hours ahead: quiet now.
    let hour = Utc::now().hour();
    let (start, end) = ((hour + 23) % 24, (hour + 2) % 24);
    let said = config(&h, "quiet_hours", &format!("{start:02}:00-{end:02}:00")).await;
    assert!(said.contains("quiet_hours"), "{said}");
    crate::quiet_hours::plants_reminder_held(&h, "the quiet window").await;

    h.sandbox
        .advance_clock(until_hour(&h, end) + Duration::from_secs(60));
    crate::quiet_hours::plants_in_the_digest(&h, Duration::from_secs(30)).await;
    h.terminate().await;
}

/// FOC-3, FOC-4, CLK-1: a 30-minute focus session checks in when the clock reaches its half, and at
/// its end the main conversation asks what got done.
#[tokio::test]
async fn a_focus_session_checks_in_halfway_and_ends_on_the_clock() {
    let mut h = BotHarness::greeted_fast_sync(CliSandbox::new()).await;
    crate::quiet_hours::script_focus(&h);
    crate::quiet_hours::focus(&h, 30).await;
    h.wait_for_bot_message("the first step", |m| m.content.contains("First step"))
        .await;

    h.sandbox.advance_clock(Duration::from_secs(15 * 60));
    h.wait_for_bot_message_within("the check-in", Duration::from_secs(30), |m| {
        m.content
            .starts_with("Halfway through **write the report**")
    })
    .await;
    h.sandbox.advance_clock(Duration::from_secs(15 * 60));
    h.wait_for_bot_message_within("the question", Duration::from_secs(60), |m| {
        m.content.contains("What got done?")
    })
    .await;
    let asked = h
        .mock
        .main_requests()
        .into_iter()
        .filter_map(|r| r.user_prompts().last().map(ToString::to_string))
        .find(|p| p.contains("[focus-end]"))
        .expect("the focus-end prompt");
    assert!(asked.contains("ended after 30 minutes"), "{asked}");
    let check_ins = h
        .bot_messages()
        .iter()
        .filter(|m| m.content.starts_with("Halfway through"))
        .count();
    assert_eq!(check_ins, 1, "checked in once");
    h.terminate().await;
}

/// RTN-3, CLK-1: a routine due at 09:00 every day fires when the clock reaches 09:00, not
/// before.
#[tokio::test]
async fn a_routine_fires_when_the_clock_reaches_its_time() {
    let mut h = BotHarness::greeted_fast_sync(CliSandbox::new()).await;
    std::fs::write(
        h.sandbox.data_dir.join("routines/morning.md"),
        "---\nid: \"morning1\"\ncron: \"0 9 * * *\"\n---\nSay GOOD MORNING to Julia\n",
    )
    .unwrap();
    h.wait_for_log("schedule read routines=1", Duration::from_secs(30))
        .await;
    h.mock.push(Reply::text("Good morning, Julia."));
    let before = h.log().matches("looked at the schedule").count();
    h.sandbox
        .advance_clock(until_hour(&h, 9).saturating_sub(Duration::from_secs(120)));
    h.wait_for_log_count(
        "looked at the schedule",
        before + 1,
        Duration::from_secs(30),
    )
    .await;
    assert!(
        !h.bot_messages()
            .iter()
            .any(|m| m.content == "Good morning, Julia."),
        "fired early"
    );
    h.sandbox.advance_clock(Duration::from_secs(120));
    h.wait_for_bot_message_within("the routine's answer", Duration::from_secs(60), |m| {
        m.content == "Good morning, Julia."
    })
    .await;
    let fired = h
        .mock
        .main_requests()
        .into_iter()
        .filter_map(|r| r.last_user_text().map(str::to_owned))
        .any(|text| text.contains("[routine:morning1]"));
    assert!(fired);
    h.terminate().await;
}

/// The first instant after now at which `tz`'s clocks skip midnight (from 00:00 to 01:00).
fn next_skipped_midnight(tz: chrono_tz::Tz) -> chrono::DateTime<Utc> {
    use chrono::TimeZone;
    let mut day = Utc::now().with_timezone(&tz).date_naive();
    for _ in 0..800 {
        day = day.succ_opt().unwrap();
        let midnight = day.and_hms_opt(0, 0, 0).unwrap();
        if tz.from_local_datetime(&midnight).earliest().is_none() {
            // The last instant of the day before, plus a second: where the day starts.
            let before = tz
                .from_local_datetime(&(midnight - chrono::Duration::seconds(1)))
                .earliest()
                .unwrap();
            return before.to_utc() + chrono::Duration::seconds(1);
        }
    }
    panic!("{tz} skips no midnight in two years");
}

/// USE-3, CLK-2: on a day whose midnight a clock change skips (Santiago, the first Sunday of
/// September), `/cost`'s "today" is that day only: yesterday's late spend is not in it.
#[tokio::test]
async fn today_on_a_day_whose_midnight_is_skipped() {
    let tz = chrono_tz::America::Santiago;
    let day_starts = next_skipped_midnight(tz);
    let sandbox = CliSandbox::new();
    sandbox.record_background_spend_at(day_starts - chrono::Duration::minutes(30), 1.0);
    sandbox.record_background_spend_at(day_starts + chrono::Duration::minutes(60), 0.25);
    let mut h = BotHarness::start_parts(
        crate::support::fake_discord::FakeDiscord::start(
            crate::support::fake_discord::FakeConfig::default(),
        )
        .await,
        crate::support::mock_api::MockApi::start().await,
        sandbox,
        &[("OLLIM_TIMEZONE", "America/Santiago")],
    )
    .await;
    h.greeted().await;
    let two_hours_in = day_starts + chrono::Duration::hours(2);
    h.sandbox
        .advance_clock((two_hours_in - Utc::now()).to_std().unwrap());
    let command = h.discord.slash(h.owner(), "cost", json!([])).await;
    h.discord.wait_for_callback(command).await;
    let answer = h
        .wait_for_bot_message("the /cost answer", |m| m.content.contains("**Spend**"))
        .await;
    assert!(
        answer.content.contains("**Spend**: today $0.25"),
        "{}",
        answer.content
    );
    h.terminate().await;
}

/// The next day on which `tz`'s clocks go back over midnight (from 01:00 to 00:00, so the day's
/// first hour happens twice): its first midnight and its second.
fn next_repeated_midnight(tz: chrono_tz::Tz) -> (chrono::DateTime<Utc>, chrono::DateTime<Utc>) {
    use chrono::TimeZone;
    let mut day = Utc::now().with_timezone(&tz).date_naive();
    for _ in 0..800 {
        day = day.succ_opt().unwrap();
        let midnight = day.and_hms_opt(0, 0, 0).unwrap();
        if let chrono::LocalResult::Ambiguous(first, second) = tz.from_local_datetime(&midnight) {
            return (first.to_utc(), second.to_utc());
        }
    }
    panic!("{tz} repeats no midnight in two years");
}

/// USE-3, USE-6, CLK-2: on a day whose first hour a clock change repeats (Havana, the first
/// Sunday of November), "today" starts at the first midnight: in the second 00:30, `/cost`
/// counts the spend of the first 00:20 and not the evening before, and the background budget
/// reads the same day, so a reminder then waits and the owner hears the day's spend.
#[tokio::test]
async fn today_on_a_day_whose_midnight_repeats() {
    let tz = chrono_tz::America::Havana;
    let (first, second) = next_repeated_midnight(tz);
    let sandbox = CliSandbox::new();
    sandbox.record_background_spend_at(first - chrono::Duration::minutes(30), 0.5);
    sandbox.record_background_spend_at(first + chrono::Duration::minutes(20), 1.0);
    let mut h = BotHarness::start_parts(
        crate::support::fake_discord::FakeDiscord::start(
            crate::support::fake_discord::FakeConfig::default(),
        )
        .await,
        crate::support::mock_api::MockApi::start().await,
        sandbox,
        &[
            ("OLLIM_TIMEZONE", "America/Havana"),
            ("OLLIM_SCHEDULER_SYNC_SECS", "1"),
        ],
    )
    .await;
    h.greeted().await;
    assert!(
        config(&h, "bg_daily_budget", "0.75")
            .await
            .contains("$0.75"),
        "the budget is set"
    );
    let second_half_past = second + chrono::Duration::minutes(30);
    h.sandbox
        .advance_clock((second_half_past - Utc::now()).to_std().unwrap());
    let command = h.discord.slash(h.owner(), "cost", json!([])).await;
    h.discord.wait_for_callback(command).await;
    let answer = h
        .wait_for_bot_message("the /cost answer", |m| m.content.contains("**Spend**"))
        .await;
    assert!(
        answer.content.contains("**Spend**: today $1.00"),
        "{}",
        answer.content
    );
    h.mock.set_default(Reply::text("this run should wait"));
    h.add_reminder_now("Water the plants").await;
    let notice = h
        .wait_for_bot_message("the budget notice", |m| {
            m.content.starts_with("Background work has spent")
        })
        .await;
    assert!(notice.content.contains("$1.00 today"), "{}", notice.content);
    assert!(
        !h.bot_messages()
            .iter()
            .any(|m| m.content == "this run should wait"),
        "the run went ahead over the budget"
    );
    h.terminate().await;
}
