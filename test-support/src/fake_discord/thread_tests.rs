//! Threads and interactions in guild channels, driven by the real serenity 0.12.5
//! client; plus the DM shapes, which must stay as they were.

use serde_json::json;
use serenity::all::{
    ButtonStyle, ChannelId, ChannelType, CreateActionRow, CreateButton, CreateCommand,
    CreateInteractionResponse, CreateInteractionResponseMessage, CreateMessage, CreateThread,
    EditThread, GuildId, Interaction, InteractionContext, MessageId, Permissions, UserId,
};

use super::test_client::{ALICE, TestClient, fake, home_with_alice, usual_intents};
use crate::echo_bot::status_of;

fn code<T>(result: &serenity::Result<T>) -> Option<(u16, isize)> {
    result.as_ref().err().and_then(status_of)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn threads_are_created_from_scratch_and_from_messages() {
    let fake = fake().await;
    let guild = fake.add_guild("home");
    let ch = fake.add_text_channel(guild, "general", vec![]);
    let mut bot = TestClient::start(&fake, usual_intents()).await;
    let http = bot.http.clone();
    let public = CreateThread::new("topic").kind(ChannelType::PublicThread);
    let made = ChannelId::new(ch)
        .create_thread(&http, public)
        .await
        .unwrap();
    let seen = bot.thread_create().await;
    assert_eq!((seen.id, seen.kind), (made.id, ChannelType::PublicThread));
    assert_eq!(seen.parent_id, Some(ChannelId::new(ch)));
    assert!(seen.member.is_some(), "the bot joined: {seen:?}");
    let thread = fake.thread(made.id.get()).expect("stored");
    assert_eq!(
        (thread.parent, thread.name.as_str(), thread.kind),
        (ch, "topic", 11)
    );
    assert_eq!(fake.threads_of(ch), [thread]);

    let start = ChannelId::new(ch).say(&http, "start here").await.unwrap();
    let from_message = CreateThread::new("about it");
    let made = ChannelId::new(ch).create_thread_from_message(&http, start.id, from_message);
    let made = made.await.unwrap();
    assert_eq!(
        made.id.get(),
        start.id.get(),
        "a message's thread has its id"
    );
    assert_eq!(bot.thread_create().await.id, made.id);
    let fetched = ChannelId::new(ch).message(&http, start.id).await.unwrap();
    assert_eq!(fetched.thread.map(|t| t.id), Some(made.id));
    let again = CreateThread::new("twice");
    let again = ChannelId::new(ch).create_thread_from_message(&http, start.id, again);
    assert_eq!(code(&again.await), Some((400, 160_004)));
    let missing = CreateThread::new("nothing");
    let missing = ChannelId::new(ch).create_thread_from_message(&http, MessageId::new(1), missing);
    assert_eq!(code(&missing.await), Some((404, 10008)));

    let nested = CreateThread::new("nested").kind(ChannelType::PublicThread);
    let nested = made.id.create_thread(&http, nested).await;
    assert_eq!(code(&nested), Some((400, 50024)));
    let dm = ChannelId::new(fake.dm_channel_id(ALICE));
    let in_dm = dm.create_thread(&http, CreateThread::new("dm")).await;
    assert_eq!(code(&in_dm), Some((400, 50024)));
    let nameless = json!({"type": 11});
    let nameless = http.create_thread(ChannelId::new(ch), &nameless, None);
    assert_eq!(code(&nameless.await), Some((400, 50035)));
    let bad_type = json!({"name": "x", "type": 0});
    let bad_type = http.create_thread(ChannelId::new(ch), &bad_type, None);
    assert_eq!(code(&bad_type.await), Some((400, 50035)));
    bot.stop(&fake).await;

    let mut bot = TestClient::start(&fake, usual_intents()).await;
    let g = bot.guild_create().await;
    let mut active: Vec<u64> = g.threads.iter().map(|t| t.id.get()).collect();
    active.sort_unstable();
    assert_eq!(
        active,
        [seen.id.get(), made.id.get()],
        "GUILD_CREATE lists active threads"
    );
    bot.stop(&fake).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn threads_archive_reopen_and_lock() {
    let (fake, guild, ch, mut bot) = home_with_alice().await;
    let http = bot.http.clone();
    let public = CreateThread::new("topic").kind(ChannelType::PublicThread);
    let thread = ChannelId::new(ch)
        .create_thread(&http, public)
        .await
        .unwrap()
        .id;

    let archived = thread
        .edit_thread(&http, EditThread::new().archived(true))
        .await
        .unwrap();
    assert!(archived.thread_metadata.is_some_and(|m| m.archived));
    let seen = bot.thread_update().await;
    assert!(seen.thread_metadata.is_some_and(|m| m.archived), "{seen:?}");
    assert!(fake.thread(thread.get()).is_some_and(|t| t.archived));

    thread.say(&http, "back again").await.unwrap();
    let seen = bot.thread_update().await;
    assert!(
        seen.thread_metadata.is_some_and(|m| !m.archived),
        "posting reopens: {seen:?}"
    );
    fake.wait_for_message_in(thread.get(), |m| m.content == "back again")
        .await;

    fake.archive_thread_as(ALICE, thread.get()).await;
    assert!(
        bot.thread_update()
            .await
            .thread_metadata
            .is_some_and(|m| m.archived)
    );
    fake.channel_message(ALICE, thread.get(), "me too").await;
    assert!(
        bot.thread_update()
            .await
            .thread_metadata
            .is_some_and(|m| !m.archived)
    );
    assert_eq!(bot.message().await.channel_id, thread);

    let lock = EditThread::new().locked(true).archived(true);
    let refused = thread.edit_thread(&http, lock.clone()).await;
    assert_eq!(
        code(&refused),
        Some((403, 50013)),
        "locking needs MANAGE_THREADS"
    );
    let moderator = fake.add_role(guild, "mod", Permissions::MANAGE_THREADS.bits());
    let bot_id = fake.config().bot_user_id;
    fake.add_member(guild, bot_id, "ollim", &[moderator]);
    let locked = thread.edit_thread(&http, lock).await.unwrap();
    assert!(
        locked
            .thread_metadata
            .is_some_and(|m| m.archived && m.locked)
    );
    let refused = thread.say(&http, "locked out").await;
    assert_eq!(code(&refused), Some((400, 50083)));
    let renamed = thread
        .edit_thread(&http, EditThread::new().name("new"))
        .await;
    assert_eq!(
        code(&renamed),
        Some((400, 50083)),
        "an archived thread must be unarchived first"
    );
    let thread_now = fake.thread(thread.get()).expect("thread");
    assert!(thread_now.archived && thread_now.locked);
    bot.stop(&fake).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slash_commands_and_buttons_in_a_guild_are_guild_interactions() {
    let (fake, guild, ch, mut bot) = home_with_alice().await;
    let http = bot.http.clone();
    let ask = CreateCommand::new("ask").description("Ask");
    let registered = GuildId::new(guild)
        .set_commands(&http, vec![ask])
        .await
        .unwrap();
    assert_eq!(registered[0].guild_id, Some(GuildId::new(guild)));
    let listed = fake.commands_in(guild);
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["name"], "ask");

    fake.slash_in(ALICE, ch, "ask", json!([])).await;
    let Interaction::Command(c) = bot.interaction().await else {
        panic!("not a command interaction");
    };
    assert_eq!(
        (c.guild_id, c.channel_id.get()),
        (Some(GuildId::new(guild)), ch)
    );
    assert_eq!((c.user.id.get(), c.data.id), (ALICE, registered[0].id));
    let member = c.member.as_ref().expect("member");
    assert_eq!(member.user.id, UserId::new(ALICE));
    assert!(member.permissions.is_some_and(Permissions::send_messages));
    assert_eq!(c.context, Some(InteractionContext::Guild));
    assert_eq!(c.channel.as_ref().map(|p| p.kind), Some(ChannelType::Text));
    assert!(c.app_permissions.is_some_and(Permissions::view_channel));
    let answer = CreateInteractionResponseMessage::new().content("answer");
    let answered = c.create_response(&http, CreateInteractionResponse::Message(answer));
    answered.await.unwrap();
    fake.wait_for_message_in(ch, |m| m.content == "answer")
        .await;

    let public = CreateThread::new("topic").kind(ChannelType::PublicThread);
    let thread = ChannelId::new(ch)
        .create_thread(&http, public)
        .await
        .unwrap()
        .id;
    let button = CreateButton::new("ok")
        .label("OK")
        .style(ButtonStyle::Primary);
    let menu = CreateMessage::new()
        .content("pick")
        .components(vec![CreateActionRow::Buttons(vec![button])]);
    let menu = thread.send_message(&http, menu).await.unwrap();
    fake.click_button(ALICE, thread.get(), menu.id.get(), "ok")
        .await;
    let Interaction::Component(b) = bot.interaction().await else {
        panic!("not a component interaction");
    };
    assert_eq!(
        (b.guild_id, b.channel_id),
        (Some(GuildId::new(guild)), thread)
    );
    assert_eq!(b.member.map(|m| m.user.id.get()), Some(ALICE));
    assert_eq!(b.channel.map(|p| p.kind), Some(ChannelType::PublicThread));
    assert_eq!(b.message.guild_id, Some(GuildId::new(guild)));
    bot.stop(&fake).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn direct_messages_keep_their_shape() {
    let fake = fake().await;
    fake.add_guild("home");
    let mut bot = TestClient::start(
        &fake,
        usual_intents() | serenity::all::GatewayIntents::DIRECT_MESSAGES,
    )
    .await;
    fake.dm_from(ALICE, "hi").await;
    let m = bot.message().await;
    assert_eq!((m.guild_id, m.member.is_none()), (None, true));
    let dm = fake.dm_channel_id(ALICE);
    assert_eq!(m.channel_id.get(), dm);
    fake.slash(ALICE, "ask", json!([])).await;
    let Interaction::Command(c) = bot.interaction().await else {
        panic!("not a command interaction");
    };
    assert_eq!(
        (c.guild_id, c.member.is_none(), c.user.id.get()),
        (None, true, ALICE)
    );
    assert_eq!(c.context, Some(InteractionContext::BotDm));
    assert_eq!(c.channel.map(|p| p.kind), Some(ChannelType::Private));
    bot.stop(&fake).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn people_start_threads_the_bot_joins_and_finds_archived() {
    let (fake, guild, ch, mut bot) = home_with_alice().await;
    let http = bot.http.clone();
    let thread = fake.start_thread_as(ALICE, ch, "their topic").await;
    let seen = bot.thread_create().await;
    assert_eq!(
        (seen.id.get(), seen.owner_id),
        (thread, Some(UserId::new(ALICE)))
    );
    assert!(seen.member.is_none(), "the bot is not in it: {seen:?}");
    ChannelId::new(thread).join_thread(&http).await.unwrap();
    fake.archive_thread_as(ALICE, thread).await;
    bot.thread_update().await;
    let archived = ChannelId::new(ch).get_archived_public_threads(&http, None, None);
    let archived = archived.await.unwrap();
    let ids: Vec<u64> = archived.threads.iter().map(|t| t.id.get()).collect();
    assert_eq!((ids, archived.members.len()), (vec![thread], 1));
    let private = ChannelId::new(ch).get_archived_private_threads(&http, None, None);
    assert!(private.await.unwrap().threads.is_empty());

    fake.set_guild_owner(guild, ALICE);
    let partial = GuildId::new(guild).to_partial_guild(&http).await.unwrap();
    assert_eq!(partial.owner_id, UserId::new(ALICE));
    let alice_perms = fake.permissions_in(ALICE, ch);
    assert_eq!(
        alice_perms & Permissions::MANAGE_THREADS.bits(),
        Permissions::MANAGE_THREADS.bits()
    );
    bot.stop(&fake).await;
}
