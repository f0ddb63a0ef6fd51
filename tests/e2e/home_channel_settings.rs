//! Where the home channel comes from and what goes there unasked, through the real parts
//! (CHN-1, CHN-5): `notify_in home` across a restart, `OLLIM_HOME_CHANNEL` and `/home off`.

use serde_json::json;

use crate::home_channel::{
    bot_message_in, converse_in, ephemeral_text, make_home, notify_in_home, server,
};
use crate::support::{
    bot::BotHarness,
    cli::CliSandbox,
    fake_discord::{FakeConfig, FakeDiscord},
    mock_api::{MockApi, Reply},
};

/// CHN-5: with `notify_in home`, a background ping lands in the home channel; after a
/// restart the greeting does too, and the channel still answers.
#[tokio::test]
async fn unasked_messages_go_where_the_owner_chose_and_survive_a_restart() {
    let mut h = BotHarness::start().await;
    h.greeted().await;
    let place = server(&h, 0);
    make_home(&h, place.private).await;
    notify_in_home(&h, place.private).await;
    h.mock.answer_reminder_runs(
        "mcp__discord__ping_user",
        json!({"message": "Time to stretch!"}),
        "pinged",
    );
    // A background run keeps quiet while the owner is mid-conversation (the main session's
    // start-up counts): finish an exchange first.
    h.converse("hi", "Hi!").await;
    h.add_reminder_now("stretch").await;
    bot_message_in(&h, place.private, "with the ping", |m| {
        m.content.contains("Time to stretch!")
    })
    .await;
    assert!(
        h.bot_messages()
            .iter()
            .all(|m| !m.content.contains("Time to stretch!")),
        "the ping went to the DM too"
    );

    // An embed with a persistent button, posted before the restart.
    h.mock.push(Reply::tool_use(
        "mcp__discord__discord_embed",
        json!({"title": "Later", "buttons": [{"label": "Plan it", "action": "agent:plan the evening"}]}),
    ));
    h.mock.push(Reply::text("Posted."));
    h.discord
        .channel_message(h.owner(), place.private, "give me a button")
        .await;
    let embed = bot_message_in(&h, place.private, "with the embed", |m| {
        !m.embeds.is_empty()
    })
    .await;
    bot_message_in(&h, place.private, "after the embed", |m| {
        m.content.ends_with("Posted.")
    })
    .await;

    h.terminate().await;
    let h = h.restart(&[]).await;
    bot_message_in(&h, place.private, "with the greeting", |m| {
        m.content.contains("i'm back")
    })
    .await;
    converse_in(&h, place.private, "still there?", "Still here.").await;
    // The button from before the restart still reaches the agent, in the channel.
    h.mock.push(Reply::text("Evening planned."));
    let button = embed.custom_ids()[0].clone();
    h.discord
        .click_button(h.owner(), place.private, embed.id, &button)
        .await;
    bot_message_in(&h, place.private, "answering the old button", |m| {
        m.content == "Evening planned."
    })
    .await;
    let mut h = h;
    h.terminate().await;
}

/// CHN-1: `OLLIM_HOME_CHANNEL` in the `.env` makes a channel home before any `/home`; `/home
/// off` then turns it off for good, whatever the `.env` says.
#[tokio::test]
async fn the_env_file_can_name_the_home_channel_and_home_off_overrides_it() {
    let discord = FakeDiscord::start(FakeConfig::default()).await;
    let guild = discord.add_guild("owner's place");
    let channel = discord.add_text_channel(guild, "assistant", Vec::new());
    let id = channel.to_string();
    let mut h = BotHarness::start_parts(
        discord,
        MockApi::start().await,
        CliSandbox::new(),
        &[("OLLIM_HOME_CHANNEL", &id)],
    )
    .await;
    h.greeted().await;
    h.mock.push(Reply::text("Here too."));
    let sent = h
        .discord
        .channel_message(h.owner(), channel, "there?")
        .await;
    bot_message_in(&h, channel, "from the env's home channel", |m| {
        m.content == "Here too."
    })
    .await;
    h.wait_turn_over(sent).await;

    let off = h
        .discord
        .slash(
            h.owner(),
            "home",
            json!([{"name": "action", "type": 3, "value": "off"}]),
        )
        .await;
    let told = ephemeral_text(&h.discord.wait_for_callback(off).await);
    assert!(told.contains("DM only"), "{told}");
    let former = h
        .discord
        .channel_message(h.owner(), channel, "still there?")
        .await;
    // Messages are taken up in order, and a taken-up message gets its 👀 first thing: once
    // a later turn in the DM is answered, the one in the former home was not taken up.
    h.converse("and here?", "Here.").await;
    let eyes = h.discord.requests_matching(&format!(
        "PUT /channels/{channel}/messages/{former}/reactions/*/@me"
    ));
    assert!(
        eyes.is_empty(),
        "the message in the former home was taken up"
    );
    assert!(
        !h.mock
            .main_requests()
            .iter()
            .any(|r| r.all_text().contains("still there?")),
        "a turn for a message in the channel that is no longer home"
    );
    h.terminate().await;
}

/// CHN-9, CHN-10: a home channel the bot can't use at start-up is told in the DM, and
/// `/config` then marks it as not in use, saying why, instead of listing it as if it were.
#[tokio::test]
async fn config_marks_a_home_channel_the_bot_cannot_use() {
    let discord = FakeDiscord::start(FakeConfig::default()).await;
    let mut h = BotHarness::start_parts(
        discord,
        MockApi::start().await,
        CliSandbox::new(),
        &[("OLLIM_HOME_CHANNEL", "987654321987654321")],
    )
    .await;
    h.greeted().await;
    h.wait_for_bot_message("the start-up check's word", |m| {
        m.content.contains("I can't use your home channel")
    })
    .await;
    let config = h.discord.slash(h.owner(), "config", json!([])).await;
    let told = ephemeral_text(&h.discord.wait_for_callback(config).await);
    assert!(
        told.contains("home_channel <#987654321987654321> is not in use: I can't use it"),
        "{told}"
    );
    h.terminate().await;
}
