//! The README's pictures (issue 44), made by the real bot: the real binary, serenity and CLI
//! against the fake Discord and the mock model, drawn by the fake's `picture`
//! (`test-support/src/fake_discord/picture.rs`). The owner asks for a reminder and the model
//! sets it with the real `add_reminder` tool; twenty minutes on (the bot's clock moved), the
//! reminder fires with its card and nags once; a fork opened in the home channel talks in its
//! thread. `OLLIM_WRITE_README_PICTURES=1` writes `docs/img/*.svg`; otherwise each committed
//! picture must be what the bot shows now, clock times aside.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Duration;

use serde_json::json;

use crate::home_channel::{converse_in, make_home, server};
use crate::home_channel_forks::{entry_embed, fork_in};
use crate::support::{
    bot::BotHarness,
    cli::CliSandbox,
    fake_discord::{FakeConfig, FakeDiscord, FakeMessage},
    mock_api::{MockApi, RecordedRequest, Reply},
};

const FAST: [(&str, &str); 1] = [("OLLIM_SCHEDULER_SYNC_SECS", "1")];
const ASK: &str = "remind me in 20 minutes to stretch";
const SET: &str = "Set: in 20 minutes I'll ask you to stretch, and I'll keep asking until you \
                   tap **Done** (or **Not today**, no guilt).";
const PING: &str = "Stretch break! Stand up, reach for the ceiling, roll your shoulders. Thirty \
                    seconds is plenty.";
const NUDGE: &str = "Still sitting? The stretch takes half a minute, and your back will thank \
                     you.";
const FORK_TOPIC: &str = "weekend trip";
const FORK_FIRST: &str = "Let's plan the weekend trip here; the main conversation waits in the \
                          channel.";
const FORK_ASK: &str = "train or car to the coast?";
const FORK_ANSWER: &str = "The train: 2 h 10 min, and you can read on the way.";

#[tokio::test]
async fn the_readme_pictures_are_what_the_bot_shows() {
    let config = FakeConfig {
        owner_name: "julia".to_owned(),
        ..FakeConfig::default()
    };
    let h = BotHarness::start_parts(
        FakeDiscord::start(config).await,
        MockApi::start().await,
        CliSandbox::new(),
        &FAST,
    )
    .await;
    h.greeted().await;
    let dm = h.dm();
    let exchange = ask_for_a_reminder(&h).await;
    let nag = the_reminder_nags(&h).await;
    let (thread, fork) = a_fork_in_its_thread(&h).await;
    let pictures = [
        ("exchange", h.discord.picture(dm, &exchange)),
        ("nag-card", h.discord.picture(dm, &nag)),
        ("fork-thread", h.discord.picture(thread, &fork)),
    ];
    for (name, svg) in &pictures {
        check_or_write(name, svg);
    }
}

/// The owner's DM and the reply; the model called the real `add_reminder`.
async fn ask_for_a_reminder(h: &BotHarness) -> Vec<FakeMessage> {
    let dm = h.dm();
    let before = h.discord.channel_messages(dm).len();
    h.mock.push(Reply::tool_use(
        "mcp__discord__add_reminder",
        json!({"prompt": "Tell Julia it is time to stretch: stand up, reach up, roll the shoulders.",
               "delay_minutes": 20, "description": "stretch", "until_done": true}),
    ));
    h.mock.push(Reply::text(SET));
    let sent = h.discord.dm_from(h.owner(), ASK).await;
    h.wait_for_bot_message("with the reply", |m| m.content.trim().ends_with(SET))
        .await;
    h.wait_turn_over(sent).await;
    let results: Vec<String> = h
        .mock
        .main_requests()
        .iter()
        .flat_map(RecordedRequest::tool_results)
        .map(|r| r.content)
        .collect();
    assert!(
        results
            .iter()
            .any(|r| r.starts_with("Reminder ") && r.contains(" set for ")),
        "{results:?}"
    );
    since(h, dm, before)
}

/// Twenty minutes on the reminder fires: its ping and its card; ten more and it nudges.
async fn the_reminder_nags(h: &BotHarness) -> Vec<FakeMessage> {
    let dm = h.dm();
    let before = h.discord.channel_messages(dm).len();
    h.mock.answer_reminder_runs(
        "mcp__discord__ping_user",
        json!({"message": PING}),
        "Reminded.",
    );
    h.mock.add_rule(|request| {
        let nudge = request.system_text().contains("follow-up nudges");
        nudge.then(|| Reply::text(NUDGE))
    });
    // The conversation's CLI falls asleep after 10 idle minutes first, as after any quiet
    // stretch; then the reminder comes due.
    h.sandbox.advance_clock(Duration::from_secs(15 * 60));
    h.wait_for_log("asleep until it is needed", Duration::from_secs(30))
        .await;
    h.sandbox.advance_clock(Duration::from_secs(5 * 60));
    let card = |text: &'static str| {
        move |m: &FakeMessage| serde_json::to_string(&m.embeds).unwrap().contains(text)
    };
    h.wait_for_bot_message_within("with the card", Duration::from_secs(60), card("Open until"))
        .await;
    h.wait_for_bot_message_within("with the ping", Duration::from_secs(30), |m| {
        m.content.contains("Stretch break!")
    })
    .await;
    h.sandbox.advance_clock(Duration::from_secs(10 * 60));
    h.wait_for_bot_message_within(
        "with the nudge",
        Duration::from_secs(60),
        card("Still sitting"),
    )
    .await;
    since(h, dm, before)
}

/// `/home` in a server channel, `/fork weekend trip` there, one exchange in its thread.
async fn a_fork_in_its_thread(h: &BotHarness) -> (u64, Vec<FakeMessage>) {
    let home = server(h, 0).private;
    make_home(h, home).await;
    let thread = fork_in(h, home, FORK_TOPIC, FORK_FIRST).await;
    entry_embed(h, thread.id).await;
    converse_in(h, thread.id, FORK_ASK, FORK_ANSWER).await;
    (thread.id, h.discord.channel_messages(thread.id))
}

/// The messages of `channel` from the `from`th on, their clock times moved so the first one
/// reads 9:41 (see [`steady`]).
fn since(h: &BotHarness, channel: u64, from: usize) -> Vec<FakeMessage> {
    let mut messages = h.discord.channel_messages(channel).split_off(from);
    let mut first = None;
    for message in &mut messages {
        message.content = steady(&message.content, &mut first);
        for embed in &mut message.embeds {
            let text = steady(&embed.to_string(), &mut first);
            *embed = serde_json::from_str(&text).expect("an embed");
        }
    }
    messages
}

/// `text` with every clock time (`9:41`, `14:05`) moved so that the first one met (`first`, in
/// minutes of the day) reads 9:41, each gap from it rounded to 5 minutes: the gaps the bot
/// means (a nudge in 10 minutes, the next 20 after it) stay, the seconds a test step takes
/// don't show.
fn steady(text: &str, first: &mut Option<u32>) -> String {
    const SHOWN: u32 = 9 * 60 + 41;
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let number = |from: usize| -> (usize, u32) {
            let digits: String = chars[from.min(chars.len())..]
                .iter()
                .take_while(|c| c.is_ascii_digit())
                .collect();
            (digits.len(), digits.parse().unwrap_or(0))
        };
        let (hour_digits, hour) = number(i);
        let starts = i == 0 || !chars[i - 1].is_ascii_digit();
        let colon = chars.get(i + hour_digits) == Some(&':');
        let (minute_digits, minute) = number(i + hour_digits + 1);
        if starts && (1..=2).contains(&hour_digits) && colon && minute_digits == 2 && hour < 24 {
            let at = hour * 60 + minute;
            let base = *first.get_or_insert(at);
            let gap = (24 * 60 + at - base) % (24 * 60);
            let shown = (SHOWN + (gap + 2) / 5 * 5) % (24 * 60);
            let _ = write!(out, "{}:{:02}", shown / 60, shown % 60);
            i += hour_digits + 3;
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

/// Writes `docs/img/<name>.svg` under `OLLIM_WRITE_README_PICTURES=1`; otherwise the
/// committed one must be `svg`.
fn check_or_write(name: &str, svg: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("docs/img/{name}.svg"));
    if std::env::var_os("OLLIM_WRITE_README_PICTURES").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().expect("docs/img")).expect("make docs/img");
        std::fs::write(&path, svg).expect("write the picture");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == svg,
        "{} is not what the bot shows now; look at the change and rewrite it with \
         OLLIM_WRITE_README_PICTURES=1 cargo test --test e2e readme_pictures\nnow:\n{svg}",
        path.display()
    );
}

#[test]
fn clock_times_move_together() {
    let mut first = None;
    assert_eq!(
        steady("at 23:50, 0:10 or 9:05; not 2024:10 or 1:5", &mut first),
        "at 9:41, 10:01 or 18:56; not 2024:10 or 1:5"
    );
    assert_eq!(steady("then 23:55", &mut first), "then 9:46");
    assert_eq!(steady("23:52 23:53", &mut first), "9:41 9:46");
}
