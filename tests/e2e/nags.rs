//! Reminders that stay open until answered, through the real parts (issue 28 §1; NAG-4…NAG-9):
//! the real CLI runs the reminder and words each nudge in a session with nothing to act with,
//! the fake Discord shows the cards and takes the clicks. The waits pass as the test moves the
//! bot's clock (issue 40 §2): a 5-minute gap is the clock moved 5 minutes.

use std::time::Duration;

use serde_json::{Value, json};

use crate::quiet_hours::quiet;
use crate::support::{
    bot::BotHarness,
    cli::CliSandbox,
    fake_discord::{FakeConfig, FakeDiscord, FakeMessage},
    mock_api::{MockApi, Reply},
    wait,
};

const FAST: [(&str, &str); 1] = [("OLLIM_SCHEDULER_SYNC_SECS", "1")];

async fn start(sandbox: CliSandbox) -> BotHarness {
    let h = BotHarness::start_parts(
        FakeDiscord::start(FakeConfig::default()).await,
        MockApi::start().await,
        sandbox,
        &FAST,
    )
    .await;
    h.greeted().await;
    h
}

/// Reminder runs finish without a ping; each nudge session answers with its own words,
/// numbered by how many it has been asked for.
fn script(h: &BotHarness) {
    h.mock.add_rule(|request| {
        let prompt = request.user_prompts().last()?.to_string();
        prompt
            .contains("[reminder-bg:")
            .then(|| Reply::text("Reminded."))
    });
    let asked = std::sync::atomic::AtomicUsize::new(0);
    h.mock.add_rule(move |request| {
        if !request.system_text().contains("follow-up nudges") {
            return None;
        }
        let n = asked.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
        Some(Reply::text(format!(
            "Psst {n}: the plants are still thirsty."
        )))
    });
}

/// The bot's cards (embeds) whose JSON contains `text`.
fn cards(h: &BotHarness, text: &str) -> Vec<FakeMessage> {
    h.bot_messages()
        .into_iter()
        .filter(|m| serde_json::to_string(&m.embeds).unwrap().contains(text))
        .collect()
}

/// Waits for a card containing `text`.
async fn card(h: &BotHarness, text: &str, within: Duration) -> FakeMessage {
    h.wait_for_bot_message_within(text, within, |m| {
        serde_json::to_string(&m.embeds).unwrap().contains(text)
    })
    .await
}

/// When the open reminder's next nudge is due, as `state/nags.json` says.
fn due_at(h: &BotHarness) -> Option<chrono::DateTime<chrono::Utc>> {
    let entries = open(&h.sandbox.data_dir);
    let at = entries.first()?["wait"]["at"].as_str()?.to_owned();
    Some(chrono::DateTime::parse_from_rfc3339(&at).ok()?.to_utc())
}

/// The next nudge's time once it is no longer `before` (the keeper records a nudge just
/// after its card goes out).
async fn due_after(
    h: &BotHarness,
    before: chrono::DateTime<chrono::Utc>,
) -> chrono::DateTime<chrono::Utc> {
    wait::eventually(
        "the next nudge's time",
        Duration::from_secs(30),
        || due_at(h).filter(|at| *at != before),
        || h.log(),
    )
    .await
}

/// Moves the bot's clock `by` and waits until its nag keeper looked at the open reminders
/// after the move: whatever falls due by then was seen.
async fn pass(h: &BotHarness, by: Duration) {
    let before = h.log().matches("looked at the open reminders").count();
    h.sandbox.advance_clock(by);
    h.wait_for_log_count(
        "looked at the open reminders",
        before + 1,
        Duration::from_secs(30),
    )
    .await;
}

fn button(message: &FakeMessage, prefix: &str) -> String {
    message
        .custom_ids()
        .into_iter()
        .find(|id| id.starts_with(prefix))
        .unwrap_or_else(|| panic!("no {prefix} button on {:?}", message.components))
}

/// The open reminders in `state/nags.json`.
fn open(sandbox_data: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(sandbox_data.join("state/nags.json"))
        .ok()
        .and_then(|text| serde_json::from_str::<Value>(&text).ok())
        .and_then(|stored| stored["open"].as_array().cloned())
        .unwrap_or_default()
}

/// NAG-4, NAG-5, NAG-7: the reminder's card comes with Done / Snooze / Not today; unanswered,
/// it nudges again at widening gaps, each time in the words the model gave (in a session that
/// was offered no tools); **Done** ends it, no nudge follows, and the main conversation hears
/// it without judgement.
#[tokio::test]
async fn an_open_reminder_nudges_at_widening_gaps_until_done() {
    let mut h = start(CliSandbox::new()).await;
    h.converse("hi", "Hi!").await;
    script(&h);
    h.add_reminder_now_with(
        "water the plants",
        &[
            "--until-done",
            "--nag-every",
            "5m",
            "-d",
            "water the plants",
        ],
    )
    .await;
    let opening = card(&h, "Open until you answer", Duration::from_secs(60)).await;
    for action in ["act:nag_done:", "act:nag_snooze:", "act:nag_skip:"] {
        button(&opening, action);
    }
    let opened: chrono::DateTime<chrono::Utc> = open(&h.sandbox.data_dir)[0]["opened"]
        .as_str()
        .and_then(|at| chrono::DateTime::parse_from_rfc3339(at).ok())
        .expect("opened")
        .to_utc();
    let first_due = due_at(&h).expect("a nudge due");
    assert_eq!(first_due - opened, chrono::Duration::minutes(5));
    // A minute short of it, nothing; at it, the first nudge.
    pass(&h, Duration::from_secs(4 * 60)).await;
    assert!(cards(&h, "Psst").is_empty(), "a nudge came early");
    pass(&h, Duration::from_secs(60)).await;
    card(&h, "Psst 1", Duration::from_secs(30)).await;
    let second_due = due_after(&h, first_due).await;
    let (gap_one, gap_two) = (first_due - opened, second_due - first_due);
    assert!(
        gap_two > gap_one,
        "the gaps widen: {gap_one:?} then {gap_two:?}"
    );
    pass(&h, gap_two.to_std().unwrap()).await;
    let second_card = card(&h, "Psst 2", Duration::from_secs(30)).await;
    // The words came from a session with nothing to act with.
    let nudges: Vec<_> = h
        .mock
        .requests()
        .into_iter()
        .filter(|r| r.system_text().contains("follow-up nudges"))
        .collect();
    assert!(!nudges.is_empty());
    for request in &nudges {
        assert!(
            request.tool_names().is_empty(),
            "{:?}",
            request.tool_names()
        );
        assert!(
            request.all_text().contains("<reminder>"),
            "{}",
            request.all_text()
        );
    }

    let done = button(&second_card, "act:nag_done:");
    let click = h
        .discord
        .click_button(h.owner(), h.dm(), second_card.id, &done)
        .await;
    let answer = h.discord.wait_for_callback(click).await;
    assert_eq!(answer["type"], 7, "{answer}");
    let shown = answer["data"]["content"].as_str().unwrap_or_default();
    assert!(shown.contains("done"), "{shown}");
    assert!(open(&h.sandbox.data_dir).is_empty());
    // No nudge after Done, however long the clock runs on.
    pass(&h, Duration::from_secs(3 * 3600)).await;
    assert!(cards(&h, "Psst 3").is_empty(), "a nudge came after Done");

    h.converse("what's new?", "Noted.").await;
    let told = h
        .mock
        .main_requests()
        .iter()
        .any(|r| r.all_text().contains("water the plants: done at"));
    assert!(told, "the main conversation never heard it was done");
    h.terminate().await;
}

/// NAG-6, NAG-7, NAG-9: with the ping budget empty a due nudge waits instead of vanishing;
/// the open reminder survives a restart and nudges once the budget has a ping; **Snooze**
/// brings it back later; **Not today** ends it, and its card says no more nudges come today;
/// the next turn's catching-up note (CTX-6) goes once it is over. `reminder list` shows it
/// while open.
#[tokio::test]
async fn an_open_reminder_waits_for_the_budget_survives_a_restart_and_snoozes() {
    let sandbox = CliSandbox::new();
    let budget = |available: f64| {
        let now = chrono::Utc::now();
        json!({"capacity": 5, "available": available, "refill_rate_minutes": 600,
               "last_refill": now.to_rfc3339(), "critical_used": 0,
               "critical_reset_date": now.date_naive(), "daily_used": 5,
               "daily_used_reset": now.date_naive()})
        .to_string()
    };
    std::fs::create_dir_all(sandbox.data_dir.join("state")).unwrap();
    std::fs::write(sandbox.data_dir.join("state/ping_budget.json"), budget(0.0)).unwrap();
    let mut h = start(sandbox).await;
    script(&h);
    h.add_reminder_now_with("water the plants", &["--until-done", "--nag-every", "1m"])
        .await;
    card(&h, "Open until you answer", Duration::from_secs(60)).await;
    // Due a minute later, but the budget is empty: it waits, still open.
    pass(&h, Duration::from_secs(60)).await;
    h.wait_for_log("the ping budget is empty", Duration::from_secs(30))
        .await;
    assert!(
        cards(&h, "Psst").is_empty(),
        "a nudge went out with no budget"
    );
    let entries = open(&h.sandbox.data_dir);
    assert_eq!(entries.len(), 1, "{entries:?}");
    assert_eq!(entries[0]["nudges"], 0);
    let listed = h.ollim(&["reminder", "list"]).await;
    assert!(listed.contains("open until answered"), "{listed}");
    assert!(listed.contains("next nudge due now"), "{listed}");

    h.terminate().await;
    let data = h.sandbox.data_dir.clone();
    h.sandbox
        .replace_file(&data.join("state/ping_budget.json"), &budget(2.0));
    let h = h.restart(&FAST).await;
    script(&h);
    let nudge = card(&h, "Psst 1", Duration::from_secs(60)).await;

    let snooze = button(&nudge, "act:nag_snooze:");
    let click = h
        .discord
        .click_button(h.owner(), h.dm(), nudge.id, &snooze)
        .await;
    h.discord.wait_for_callback(click).await;
    let choices = h
        .wait_for_bot_message("the snooze choices", |m| m.content.starts_with("Snooze **"))
        .await;
    let ten = button(&choices, "act:nag_until:10m/");
    let click = h
        .discord
        .click_button(h.owner(), h.dm(), choices.id, &ten)
        .await;
    let answer = h.discord.wait_for_callback(click).await;
    let shown = answer["data"]["content"].as_str().unwrap_or_default();
    assert!(shown.contains("snoozed until"), "{shown}");
    assert_eq!(open(&h.sandbox.data_dir)[0]["wait"]["kind"], "snoozed");
    // Ten minutes pass; it comes back in new words.
    pass(&h, Duration::from_secs(10 * 60)).await;
    let back = card(&h, "Psst 2", Duration::from_secs(40)).await;

    let skip = button(&back, "act:nag_skip:");
    let click = h
        .discord
        .click_button(h.owner(), h.dm(), back.id, &skip)
        .await;
    let answer = h.discord.wait_for_callback(click).await;
    let shown = answer["data"]["content"].as_str().unwrap_or_default();
    assert!(shown.contains("not today"), "{shown}");
    // The card keeps its words and no longer names a next nudge.
    let answered = h
        .bot_messages()
        .into_iter()
        .find(|m| m.id == back.id)
        .expect("the answered card");
    let card_text = serde_json::to_string(&answered.embeds).unwrap();
    assert!(card_text.contains("Psst 2"), "{card_text}");
    assert!(
        card_text.contains("Not today: no more nudges today"),
        "{card_text}"
    );
    assert!(!card_text.contains("Next nudge at"), "{card_text}");
    wait::until_true(
        "the reminder closed",
        Duration::from_secs(10),
        || open(&h.sandbox.data_dir).is_empty(),
        || h.log(),
    )
    .await;
    // The next turn reads the outcome; its catching-up note goes once the turn is over (CTX-6).
    h.converse("ok, what's next?", "Nothing pressing.").await;
    let note = |m: &FakeMessage| m.content.contains("catching up on background activity");
    let history = h.discord.channel_history(h.dm());
    assert!(history.iter().any(note), "no catching-up note was shown");
    wait::until_true(
        "the catching-up note taken away",
        Duration::from_secs(10),
        || !h.discord.channel_messages(h.dm()).iter().any(note),
        || h.log(),
    )
    .await;
    let mut h = h;
    h.terminate().await;
}

/// NAG-4, NAG-6 with quiet time (QUI-2): while the owner is quiet the reminder's card waits for
/// the digest (its buttons working, naming no nudge time already past) and a due nudge waits too; when the quiet's hour has passed on
/// the clock, the digest and then the nudge follow.
#[tokio::test]
async fn an_open_reminder_pauses_in_quiet_time() {
    let mut h = start(CliSandbox::new()).await;
    script(&h);
    quiet(&h, "1h").await;
    h.add_reminder_now_with("water the plants", &["--until-done", "--nag-every", "1m"])
        .await;
    h.wait_for_log("background run finished", Duration::from_secs(60))
        .await;
    wait::until_true(
        "the card held for the digest",
        Duration::from_secs(30),
        || {
            std::fs::read_to_string(h.sandbox.data_dir.join("state/quiet.json"))
                .is_ok_and(|text| text.contains("Open until you answer"))
        },
        || h.log(),
    )
    .await;
    pass(&h, Duration::from_secs(60)).await;
    h.wait_for_log("the nag waits for the quiet's end", Duration::from_secs(30))
        .await;
    assert!(
        cards(&h, "Open until you answer").is_empty(),
        "the card came in quiet time"
    );
    assert!(cards(&h, "Psst").is_empty(), "a nudge came in quiet time");

    pass(&h, Duration::from_secs(3600)).await;
    let digest = h
        .wait_for_bot_message_within("the digest", Duration::from_secs(30), |m| {
            m.content.starts_with("While you were in quiet time")
        })
        .await;
    assert!(
        digest
            .custom_ids()
            .iter()
            .any(|id| id.starts_with("act:nag_done:")),
        "{:?}",
        digest.components
    );
    // Its first nudge was due in the quiet: the card names no time, only that it follows.
    let held_card = serde_json::to_string(&digest.embeds).unwrap();
    assert!(
        held_card.contains("I'll nudge you once your quiet time is over"),
        "{held_card}"
    );
    assert!(!held_card.contains("nudge you at"), "{held_card}");
    card(&h, "Psst 1", Duration::from_secs(30)).await;
    h.terminate().await;
}
