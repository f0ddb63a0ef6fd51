//! Injection in guild channels and threads: what a member posts, replies, types, which
//! slash commands they run there, the threads they start and archive; and the test-side
//! view of threads. Like the DM injections, each first waits for a
//! gateway session; events are withheld when the session lacks the intent
//! (`GUILD_MESSAGES`, `GUILD_MESSAGE_TYPING`, …) or the bot cannot see the channel.

use serde_json::{Value, json};

use super::inject::{FakeAttachment, command_interaction, post_as_user, store_as_user};
use super::json::sid;
use super::model::{FakeThread, Place};
use super::state::{INTENT_GUILDS, Inner, now_ms};
use super::threads::{insert_thread, new_thread};
use super::{FakeDiscord, guild_json};

/// Panics unless `ch` is a guild text channel or thread and `user` a member of its guild.
fn check_member_channel(inner: &Inner, what: &str, user: u64, ch: u64) {
    let Some(guild) = inner.guild_of(ch) else {
        panic!("fake Discord: {what}: {ch} is not a guild text channel or thread");
    };
    assert!(
        inner.is_member(guild, user),
        "fake Discord: {what}: user {user} is not a member of guild {guild} (add_member first)"
    );
}

impl FakeDiscord {
    /// `user` posts `content` in a guild text channel or thread: stored, and dispatched
    /// as `MESSAGE_CREATE` with `guild_id` and the author's `member` (intent
    /// `GUILD_MESSAGES`). An archived thread is reopened first. Returns the message id.
    pub async fn channel_message(&self, user: u64, channel: u64, content: &str) -> u64 {
        self.member_message("channel_message", user, channel, content, Vec::new(), None)
            .await
    }

    /// `user` writes `content` in `channel` while the bot has no gateway session: stored
    /// only, so the bot sees it through REST, never as an event. Returns the message id.
    pub fn channel_message_offline(&self, user: u64, channel: u64, content: &str) -> u64 {
        let what = "channel_message_offline";
        let id = {
            let mut inner = self.shared.lock();
            check_member_channel(&inner, what, user, channel);
            store_as_user(&mut inner, what, user, channel, content, Vec::new(), None)
        };
        self.shared.notify();
        id
    }

    /// Like [`channel_message`](Self::channel_message), replying to `referenced` (a
    /// message of the same channel): `message_reference` + `referenced_message`.
    pub async fn channel_reply(
        &self,
        user: u64,
        channel: u64,
        content: &str,
        referenced: u64,
    ) -> u64 {
        let what = "channel_reply";
        self.member_message(what, user, channel, content, Vec::new(), Some(referenced))
            .await
    }

    /// Like [`channel_message`](Self::channel_message), with attachments (downloadable
    /// from the fake).
    pub async fn channel_message_with_attachments(
        &self,
        user: u64,
        channel: u64,
        content: &str,
        attachments: Vec<FakeAttachment>,
    ) -> u64 {
        let what = "channel_message_with_attachments";
        self.member_message(what, user, channel, content, attachments, None)
            .await
    }

    async fn member_message(
        &self,
        what: &str,
        user: u64,
        ch: u64,
        content: &str,
        files: Vec<FakeAttachment>,
        reference: Option<u64>,
    ) -> u64 {
        self.wait_session(what).await;
        let id = {
            let mut inner = self.shared.lock();
            check_member_channel(&inner, what, user, ch);
            post_as_user(&mut inner, what, user, ch, content, files, reference)
        };
        self.shared.notify();
        id
    }

    /// `user` starts typing in `channel` (`TYPING_START`): in a guild channel or thread
    /// with `guild_id` and `member` (intent `GUILD_MESSAGE_TYPING`), in a DM without
    /// (intent `DIRECT_MESSAGE_TYPING`).
    pub async fn typing_in(&self, user: u64, channel: u64) {
        self.wait_session("typing_in").await;
        {
            let mut inner = self.shared.lock();
            assert!(
                inner.channels.contains_key(&channel),
                "fake Discord: typing_in: no channel {channel}"
            );
            let mut d = json!({
                "channel_id": sid(channel),
                "user_id": sid(user),
                "timestamp": now_ms() / 1000,
            });
            if let Some(g) = inner.guild_of(channel) {
                check_member_channel(&inner, "typing_in", user, channel);
                d["guild_id"] = sid(g);
                d["member"] = guild_json::member(&inner, g, user, true);
            }
            let intent = inner.typing_intent(channel);
            inner.dispatch_in(channel, "TYPING_START", d, intent);
        }
        self.shared.notify();
    }

    /// `user` starts typing in their DM with the bot (`TYPING_START`, intent
    /// `DIRECT_MESSAGE_TYPING`).
    pub async fn typing_dm(&self, user: u64) {
        let channel = self.dm_channel_id(user);
        self.typing_in(user, channel).await;
    }

    /// `user` runs slash command `name` in a guild text channel or thread
    /// (`INTERACTION_CREATE` type 2): `guild_id`, `member` (with `user` and
    /// `permissions`), `context: 0`, the channel, `app_permissions`. Guild commands of the
    /// guild are looked up before global ones. Returns the interaction id.
    pub async fn slash_in(&self, user: u64, channel: u64, name: &str, options: Value) -> u64 {
        self.wait_session("slash_in").await;
        let id = {
            let mut inner = self.shared.lock();
            check_member_channel(&inner, "slash_in", user, channel);
            command_interaction(&mut inner, user, channel, name, options)
        };
        self.shared.notify();
        id
    }
}

/// Test-side threads: what the fake holds, and what people do with them.
impl FakeDiscord {
    /// Every thread (archived ones included) whose parent is `parent`, oldest first.
    pub fn threads_of(&self, parent: u64) -> Vec<FakeThread> {
        let inner = self.shared.lock();
        let all = inner.channels.iter().filter_map(|(id, c)| match &c.place {
            Place::Thread(t) if t.parent == parent => Some(t.public(*id)),
            _ => None,
        });
        all.collect()
    }

    /// The thread with id `id`, if there is one.
    pub fn thread(&self, id: u64) -> Option<FakeThread> {
        self.shared.lock().thread(id).map(|t| t.public(id))
    }

    /// A person archives the thread (as from Discord's UI): `THREAD_UPDATE` with
    /// `archived: true`.
    pub async fn archive_thread_as(&self, user: u64, thread: u64) {
        self.wait_session("archive_thread_as").await;
        {
            let mut inner = self.shared.lock();
            let guild = inner.guild_of(thread);
            assert!(
                inner.thread(thread).is_some(),
                "fake Discord: archive_thread_as: {thread} is not a thread"
            );
            assert!(
                guild.is_some_and(|g| inner.is_member(g, user)),
                "fake Discord: archive_thread_as: {user} is not a member of the thread's guild"
            );
            let t = inner.thread_mut(thread).expect("checked");
            t.archived = true;
            t.archive_ms = now_ms();
            let d = guild_json::channel(&inner, thread, false);
            inner.dispatch_in(thread, "THREAD_UPDATE", d, INTENT_GUILDS);
        }
        self.shared.notify();
    }

    /// `user` starts a public thread named `name` in text channel `parent` (as from
    /// Discord's UI): stored, and `THREAD_CREATE` dispatched (intent `GUILDS`; the bot is
    /// not a member). Returns the thread id.
    pub async fn start_thread_as(&self, user: u64, parent: u64, name: &str) -> u64 {
        self.wait_session("start_thread_as").await;
        let id = {
            let mut inner = self.shared.lock();
            check_member_channel(&inner, "start_thread_as", user, parent);
            assert!(
                inner.text(parent).is_some(),
                "fake Discord: start_thread_as: {parent} is not a guild text channel"
            );
            let guild = inner.guild_of(parent).expect("checked");
            let id = inner.snowflake();
            let thread = new_thread(guild, parent, name.to_string(), 11, user);
            insert_thread(&mut inner, id, thread);
            id
        };
        self.shared.notify();
        id
    }
}
