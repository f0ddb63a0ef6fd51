//! Guilds, text channels, roles and members of the fake, driven by the real serenity
//! 0.12.5 client: what it fetches deserializes, what the fake dispatches arrives.

use serenity::all::{
    Channel, ChannelId, ChannelType, CreateThread, EditMessage, GatewayIntents, GuildId, MessageId,
    PermissionOverwriteType, Permissions, RoleId, UserId,
};

use super::test_client::{ALICE, Seen, TestClient, fake, home_with_alice, usual_intents};
use super::{DEFAULT_EVERYONE_PERMISSIONS, FakeAttachment, FakeOverwrite};
use crate::echo_bot::status_of;

#[test]
fn default_everyone_permissions_are_discords_bits() {
    let expected = Permissions::VIEW_CHANNEL
        | Permissions::SEND_MESSAGES
        | Permissions::READ_MESSAGE_HISTORY
        | Permissions::ADD_REACTIONS
        | Permissions::EMBED_LINKS
        | Permissions::ATTACH_FILES
        | Permissions::SEND_MESSAGES_IN_THREADS
        | Permissions::CREATE_PUBLIC_THREADS
        | Permissions::USE_APPLICATION_COMMANDS;
    assert_eq!(DEFAULT_EVERYONE_PERMISSIONS, expected.bits());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ready_lists_guilds_then_guild_create_and_member_messages_arrive() {
    let (fake, guild, ch, mut bot) = home_with_alice().await;
    let ready = bot.ready.take().expect("ready");
    assert_eq!(ready.guilds.len(), 1);
    assert_eq!(ready.guilds[0].id, GuildId::new(guild));
    assert!(ready.guilds[0].unavailable);
    let g = bot.guild_create().await;
    assert_eq!(g.id.get(), guild);
    assert_eq!(g.owner_id, UserId::new(fake.config().owner_id));
    assert!(g.channels.contains_key(&ChannelId::new(ch)), "{g:?}");
    let everyone = &g.roles[&RoleId::new(guild)];
    assert_eq!(everyone.permissions.bits(), DEFAULT_EVERYONE_PERMISSIONS);
    assert!(
        g.members
            .contains_key(&UserId::new(fake.config().bot_user_id))
    );
    assert!(g.members.contains_key(&UserId::new(fake.config().owner_id)));

    let mid = fake.channel_message(ALICE, ch, "hello").await;
    let m = bot.message().await;
    assert_eq!((m.id.get(), m.guild_id), (mid, Some(GuildId::new(guild))));
    assert_eq!((m.author.id.get(), m.content.as_str()), (ALICE, "hello"));
    assert!(m.member.is_some(), "{m:?}");

    let reply = fake.channel_reply(ALICE, ch, "re", mid).await;
    let m = bot.message().await;
    assert_eq!(m.id.get(), reply);
    assert_eq!(m.referenced_message.map(|r| r.id.get()), Some(mid));

    let said = ChannelId::new(ch).say(&bot.http, "hi back").await.unwrap();
    assert_eq!(said.guild_id, Some(GuildId::new(guild)));
    let echoed = bot.message().await;
    assert_eq!((echoed.id, echoed.guild_id), (said.id, said.guild_id));
    assert!(echoed.author.bot);
    fake.wait_for_message_in(ch, |m| m.content == "hi back")
        .await;

    let public = CreateThread::new("topic").kind(ChannelType::PublicThread);
    let thread = ChannelId::new(ch)
        .create_thread(&bot.http, public)
        .await
        .unwrap();
    let in_thread = fake
        .channel_message(ALICE, thread.id.get(), "in thread")
        .await;
    let m = bot.message().await;
    assert_eq!((m.id.get(), m.channel_id), (in_thread, thread.id));
    assert_eq!(m.guild_id, Some(GuildId::new(guild)));
    let texts: Vec<String> = fake
        .channel_messages(thread.id.get())
        .iter()
        .map(|m| m.content.clone())
        .collect();
    assert_eq!(texts, ["in thread"]);
    bot.stop(&fake).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_channels_and_threads_deserialize_over_rest() {
    let fake = fake().await;
    let guild = fake.add_guild("home");
    let mods = fake.add_role(guild, "mods", Permissions::MANAGE_THREADS.bits());
    fake.add_member(guild, ALICE, "alice", &[mods]);
    let hidden = Permissions::VIEW_CHANNEL.bits();
    let overwrites = vec![
        FakeOverwrite::role(guild, 0, hidden),
        FakeOverwrite::member(ALICE, hidden, 0),
        FakeOverwrite::member(fake.config().bot_user_id, hidden, 0),
    ];
    let ch = fake.add_text_channel(guild, "private", overwrites);
    let bot = TestClient::start(&fake, usual_intents()).await;
    let http = bot.http.clone();

    let Channel::Guild(text) = ChannelId::new(ch).to_channel(&http).await.unwrap() else {
        panic!("not a guild channel");
    };
    assert_eq!(
        (text.kind, text.guild_id, text.name.as_str()),
        (ChannelType::Text, GuildId::new(guild), "private")
    );
    assert_eq!(text.permission_overwrites.len(), 3);
    let everyone = &text.permission_overwrites[0];
    assert_eq!(
        everyone.kind,
        PermissionOverwriteType::Role(RoleId::new(guild))
    );
    assert_eq!(everyone.deny, Permissions::VIEW_CHANNEL);
    assert_eq!(
        text.permission_overwrites[1].kind,
        PermissionOverwriteType::Member(UserId::new(ALICE))
    );

    let private = CreateThread::new("side").kind(ChannelType::PrivateThread);
    let made = ChannelId::new(ch).create_thread(&http, private).await;
    assert_eq!(
        made.as_ref().map_err(status_of).err(),
        Some(Some((403, 50013))),
        "no CREATE_PRIVATE_THREADS"
    );
    let public = CreateThread::new("side")
        .kind(ChannelType::PublicThread)
        .auto_archive_duration(serenity::all::AutoArchiveDuration::OneHour);
    let made = ChannelId::new(ch)
        .create_thread(&http, public)
        .await
        .unwrap();
    let Channel::Guild(thread) = made.id.to_channel(&http).await.unwrap() else {
        panic!("not a guild channel");
    };
    assert_eq!(
        (thread.kind, thread.parent_id),
        (ChannelType::PublicThread, Some(ChannelId::new(ch)))
    );
    assert_eq!(
        thread.owner_id,
        Some(UserId::new(fake.config().bot_user_id))
    );
    let meta = thread.thread_metadata.expect("thread_metadata");
    assert!(!meta.archived && !meta.locked);
    assert_eq!(
        meta.auto_archive_duration,
        serenity::all::AutoArchiveDuration::OneHour
    );

    bot.stop(&fake).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn guilds_roles_and_members_deserialize_over_rest() {
    let fake = fake().await;
    let guild = fake.add_guild("home");
    let mods = fake.add_role(guild, "mods", Permissions::MANAGE_THREADS.bits());
    fake.add_member(guild, ALICE, "alice", &[mods]);
    let ch = fake.add_text_channel(guild, "general", vec![]);
    let bot = TestClient::start(&fake, usual_intents()).await;
    let http = bot.http.clone();

    let partial = GuildId::new(guild).to_partial_guild(&http).await.unwrap();
    assert_eq!(
        (partial.name.as_str(), partial.owner_id),
        ("home", UserId::new(fake.config().owner_id))
    );
    assert_eq!(partial.roles.len(), 2);
    let roles = GuildId::new(guild).roles(&http).await.unwrap();
    assert_eq!(
        roles[&RoleId::new(mods)].permissions,
        Permissions::MANAGE_THREADS
    );
    assert_eq!(roles[&RoleId::new(mods)].guild_id, GuildId::new(guild));
    let member = GuildId::new(guild)
        .member(&http, UserId::new(ALICE))
        .await
        .unwrap();
    assert_eq!(
        (member.user.name.as_str(), member.roles.as_slice()),
        ("alice", [RoleId::new(mods)].as_slice())
    );
    let channels = GuildId::new(guild).channels(&http).await.unwrap();
    assert_eq!(
        channels.keys().copied().collect::<Vec<_>>(),
        [ChannelId::new(ch)]
    );
    let mine = http.get_guilds(None, None).await.unwrap();
    assert_eq!(mine.iter().map(|g| g.id.get()).collect::<Vec<_>>(), [guild]);

    let unknown = |r: Result<(), serenity::Error>| r.err().as_ref().and_then(status_of);
    let gone = ChannelId::new(1).to_channel(&http).await.map(|_| ());
    assert_eq!(unknown(gone), Some((404, 10003)));
    let gone = GuildId::new(1).to_partial_guild(&http).await.map(|_| ());
    assert_eq!(unknown(gone), Some((404, 10004)));
    let gone = GuildId::new(guild)
        .member(&http, UserId::new(5))
        .await
        .map(|_| ());
    assert_eq!(unknown(gone), Some((404, 10007)));
    bot.stop(&fake).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn live_changes_reach_the_handler() {
    let fake = fake().await;
    let guild = fake.add_guild("home");
    let mut bot = TestClient::start(&fake, usual_intents()).await;
    bot.guild_create().await;

    let ch = fake.add_text_channel(guild, "general", vec![]);
    let created = bot.channel_create().await;
    assert_eq!((created.id.get(), created.guild_id.get()), (ch, guild));

    let bot_id = fake.config().bot_user_id;
    let deny_send = FakeOverwrite::member(bot_id, 0, Permissions::SEND_MESSAGES.bits());
    fake.set_overwrites(ch, vec![deny_send]).await;
    let updated = bot.channel_update().await;
    assert_eq!(updated.permission_overwrites.len(), 1);
    assert_eq!(
        updated.permission_overwrites[0].deny,
        Permissions::SEND_MESSAGES
    );
    let refused = ChannelId::new(ch).say(&bot.http, "no").await;
    assert_eq!(
        refused.err().as_ref().and_then(status_of),
        Some((403, 50013))
    );

    let everyone = DEFAULT_EVERYONE_PERMISSIONS & !Permissions::ADD_REACTIONS.bits();
    fake.set_role_permissions(guild, guild, everyone).await;
    let role = bot.role_update().await;
    assert_eq!((role.id.get(), role.guild_id.get()), (guild, guild));
    assert!(!role.permissions.add_reactions());

    let second = fake.add_guild("second");
    let g = bot.guild_create().await;
    assert_eq!(g.id.get(), second);
    bot.stop(&fake).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reactions_and_typing_carry_the_guild() {
    let (fake, guild, ch, mut bot) = home_with_alice().await;
    let mid = fake.channel_message(ALICE, ch, "react to me").await;
    fake.react(ALICE, ch, mid, "👍").await;
    let r = bot.reaction().await;
    assert_eq!(
        (r.guild_id, r.message_id.get()),
        (Some(GuildId::new(guild)), mid)
    );
    assert_eq!(r.member.map(|m| m.user.id.get()), Some(ALICE));

    fake.typing_in(ALICE, ch).await;
    let t = bot.typing().await;
    assert_eq!(
        (t.guild_id, t.channel_id.get()),
        (Some(GuildId::new(guild)), ch)
    );
    assert_eq!(t.member.map(|m| m.user.id.get()), Some(ALICE));
    fake.typing_dm(ALICE).await;
    let t = bot.typing().await;
    assert_eq!(
        (t.guild_id, t.channel_id.get()),
        (None, fake.dm_channel_id(ALICE))
    );
    bot.stop(&fake).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn guild_events_need_their_intents_and_a_visible_channel() {
    let fake = fake().await;
    let guild = fake.add_guild("home");
    fake.add_member(guild, ALICE, "alice", &[]);
    let ch = fake.add_text_channel(guild, "general", vec![]);
    let view = Permissions::VIEW_CHANNEL.bits();
    let hidden = fake.add_text_channel(guild, "hidden", vec![FakeOverwrite::role(guild, 0, view)]);
    let dms_only = GatewayIntents::DIRECT_MESSAGES | GatewayIntents::MESSAGE_CONTENT;
    let mut bot = TestClient::start(&fake, dms_only).await;
    fake.channel_message(ALICE, ch, "unseen").await;
    fake.dm_from(ALICE, "seen").await;
    assert_eq!(bot.message().await.content, "seen");
    let filtered = fake.gateway_stats().filtered;
    assert!(
        filtered.contains(&"GUILD_CREATE".to_string()),
        "{filtered:?}"
    );
    assert!(
        filtered.contains(&"MESSAGE_CREATE".to_string()),
        "{filtered:?}"
    );
    bot.stop(&fake).await;

    let mut bot = TestClient::start(&fake, usual_intents()).await;
    fake.channel_message(ALICE, hidden, "behind a wall").await;
    fake.channel_message(ALICE, ch, "in the open").await;
    assert_eq!(bot.message().await.content, "in the open");
    let refused = ChannelId::new(hidden).to_channel(&bot.http).await;
    assert_eq!(
        refused.err().as_ref().and_then(status_of),
        Some((403, 50001))
    );
    bot.stop(&fake).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn edits_deletes_reactions_and_attachments_in_a_guild_channel() {
    let (fake, guild, ch, mut bot) = home_with_alice().await;
    let http = bot.http.clone();
    let in_guild = Some(GuildId::new(guild));
    let mut said = ChannelId::new(ch).say(&http, "draft").await.unwrap();
    said.edit(&http, EditMessage::new().content("final"))
        .await
        .unwrap();
    let update = bot.message_update().await;
    assert_eq!((update.id, update.guild_id), (said.id, in_guild));
    let stored = fake.message(ch, said.id.get()).map(|m| m.content);
    assert_eq!(stored.as_deref(), Some("final"));
    said.react(&http, '👍').await.unwrap();
    let r = bot.reaction().await;
    let bot_id = UserId::new(fake.config().bot_user_id);
    assert_eq!((r.guild_id, r.user_id), (in_guild, Some(bot_id)));
    said.delete(&http).await.unwrap();
    let deleted = bot.next("message_delete", |s| match s {
        Seen::MessageDelete(id, g) => Some((*id, *g)),
        _ => None,
    });
    assert_eq!(deleted.await, (said.id, in_guild));

    let theirs = MessageId::new(fake.channel_message(ALICE, ch, "mine").await);
    let refused = ChannelId::new(ch).delete_message(&http, theirs).await;
    let no_manage_messages = refused.err().as_ref().and_then(status_of);
    assert_eq!(no_manage_messages, Some((403, 50013)));
    let file = FakeAttachment::new("note.txt", "text/plain", b"hello".to_vec());
    let with_file = fake.channel_message_with_attachments(ALICE, ch, "see file", vec![file]);
    let with_file = MessageId::new(with_file.await);
    let m = bot
        .next("message with a file", |s| match s {
            Seen::Message(m) if m.id == with_file => Some(m.clone()),
            _ => None,
        })
        .await;
    assert_eq!(m.guild_id, in_guild);
    let bytes = m.attachments[0].download().await.unwrap();
    assert_eq!(bytes, b"hello");
    bot.stop(&fake).await;
}
