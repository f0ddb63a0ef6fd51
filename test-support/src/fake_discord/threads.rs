//! Threads: `POST /channels/{parent}/threads`, `POST /channels/{parent}/messages/{id}/threads`,
//! `PATCH /channels/{thread}` (name, archived, locked, …), the archived-thread rules of
//! posting, and the test-side thread accessors.

use serde_json::{Value, json};

use super::FakeDiscord;
use super::guild_json;
use super::json;
use super::model::{
    CREATE_PRIVATE_THREADS, CREATE_PUBLIC_THREADS, FakeThread, MANAGE_THREADS, Place,
    READ_MESSAGE_HISTORY, SEND_MESSAGES_IN_THREADS, ThreadState, VIEW_CHANNEL,
};
use super::rest::{Reply, Req};
use super::state::{Channel, INTENT_GUILDS, Inner, now_ms};

const ARCHIVE_DURATIONS: [u64; 4] = [60, 1440, 4320, 10080];

pub(super) fn missing_access() -> Reply {
    Reply::error(403, "Missing Access", 50001)
}

pub(super) fn missing_permissions() -> Reply {
    Reply::error(403, "Missing Permissions", 50013)
}

fn thread_archived() -> Reply {
    Reply::error(400, "Thread is archived", 50083)
}

fn invalid(field: &str, code: &str, message: &str) -> Reply {
    Reply::with(400, json::form_error(field, code, message))
}

/// A thread name from a body: required on create, 1..=100 characters.
fn name_field(req: &Req, required: bool) -> Result<Option<String>, Reply> {
    match req.body_field("name") {
        None | Some(Value::Null) if !required => Ok(None),
        None | Some(Value::Null) => Err(invalid(
            "name",
            "BASE_TYPE_REQUIRED",
            "This field is required",
        )),
        Some(Value::String(s)) if (1..=100).contains(&s.chars().count()) => Ok(Some(s.clone())),
        Some(Value::String(_)) => Err(invalid(
            "name",
            "BASE_TYPE_BAD_LENGTH",
            "Must be between 1 and 100 in length.",
        )),
        Some(_) => Err(invalid("name", "BASE_TYPE_STRING", "Must be a string.")),
    }
}

fn bool_field(req: &Req, key: &str) -> Result<Option<bool>, Reply> {
    match req.body_field(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(_) => Err(invalid(
            key,
            "BASE_TYPE_BOOLEAN",
            "Must be either true or false.",
        )),
    }
}

fn archive_field(req: &Req) -> Result<Option<u64>, Reply> {
    match req.body_field("auto_archive_duration") {
        None | Some(Value::Null) => Ok(None),
        Some(v) if v.as_u64().is_some_and(|d| ARCHIVE_DURATIONS.contains(&d)) => Ok(v.as_u64()),
        Some(_) => Err(invalid(
            "auto_archive_duration",
            "BASE_TYPE_CHOICES",
            "Value must be one of {60, 1440, 4320, 10080}.",
        )),
    }
}

/// `POST /channels/{parent}/threads` (`from_message: None`) or
/// `POST /channels/{parent}/messages/{id}/threads`: creates the thread (its id is the
/// message's in the second form), answers 201 with it, dispatches `THREAD_CREATE`.
pub(super) fn create(
    inner: &mut Inner,
    req: &Req,
    parent: u64,
    from_message: Option<u64>,
) -> Reply {
    let Some(text) = inner.text(parent) else {
        return Reply::error(400, "Cannot execute action on this channel type", 50024);
    };
    let guild = text.guild;
    let bot = inner.cfg.bot_user_id;
    let perms = inner.channel_permissions(bot, parent);
    if perms & VIEW_CHANNEL == 0 {
        return missing_access();
    }
    let name = match name_field(req, true) {
        Ok(name) => name.unwrap_or_default(),
        Err(reply) => return reply,
    };
    let kind = match (from_message, req.body_field("type")) {
        (Some(_), _) => 11,
        (None, None | Some(Value::Null)) => 12,
        (None, Some(v)) => match v.as_u64() {
            Some(k @ (11 | 12)) => k,
            _ => {
                return invalid(
                    "type",
                    "BASE_TYPE_CHOICES",
                    "Value must be one of {11, 12}.",
                );
            }
        },
    };
    let needed = if kind == 11 {
        CREATE_PUBLIC_THREADS
    } else {
        CREATE_PRIVATE_THREADS
    };
    let needed = needed | from_message.map_or(0, |_| READ_MESSAGE_HISTORY);
    if perms & needed != needed {
        return missing_permissions();
    }
    let (auto_archive, invitable) = match (archive_field(req), bool_field(req, "invitable")) {
        (Ok(a), Ok(i)) => (a.unwrap_or(1440), i.unwrap_or(true)),
        (Err(reply), _) | (_, Err(reply)) => return reply,
    };
    let id = match from_message {
        Some(mid) => {
            if inner.message(parent, mid).is_none() {
                return Reply::unknown_message();
            }
            if inner.channels.contains_key(&mid) {
                return Reply::error(
                    400,
                    "A thread has already been created for this message",
                    160_004,
                );
            }
            mid
        }
        None => inner.snowflake(),
    };
    let now = now_ms();
    let thread = ThreadState {
        guild,
        parent,
        name,
        kind: u8::try_from(kind).unwrap_or(11),
        owner: bot,
        archived: false,
        locked: false,
        invitable: kind == 12 && invitable,
        auto_archive,
        archive_ms: now,
        created_ms: now,
        members: vec![bot],
    };
    let channel = Channel {
        place: Place::Thread(thread),
        messages: Vec::new(),
    };
    inner.channels.insert(id, channel);
    let mut d = guild_json::channel(inner, id, true);
    d["newly_created"] = json!(true);
    inner.dispatch("THREAD_CREATE", d, INTENT_GUILDS);
    Reply::with(201, guild_json::channel(inner, id, true))
}

/// `PATCH /channels/{thread}`: `name`, `archived`, `locked`, `auto_archive_duration`,
/// `invitable`; dispatches `THREAD_UPDATE`. `None` when `ch` is not a thread.
pub(super) fn patch(inner: &mut Inner, req: &Req, ch: u64) -> Option<Reply> {
    let t = inner.thread(ch)?;
    let bot = inner.cfg.bot_user_id;
    let perms = inner.channel_permissions(bot, ch);
    let manage = perms & MANAGE_THREADS != 0;
    let owner = t.owner == bot;
    let (was_archived, was_locked) = (t.archived, t.locked);
    let fields = (
        name_field(req, false),
        bool_field(req, "archived"),
        bool_field(req, "locked"),
        archive_field(req),
        bool_field(req, "invitable"),
    );
    let (name, archived, locked, auto_archive, invitable) = match fields {
        (Ok(name), Ok(archived), Ok(locked), Ok(duration), Ok(invitable)) => {
            (name, archived, locked, duration, invitable)
        }
        (Err(r), ..) | (_, Err(r), ..) | (_, _, Err(r), ..) | (.., Err(r), _) | (.., Err(r)) => {
            return Some(r);
        }
    };
    if was_archived && archived != Some(false) {
        return Some(thread_archived());
    }
    let unarchive_locked = was_archived && was_locked && archived == Some(false);
    let moderates = locked.is_some() || invitable.is_some() || unarchive_locked;
    let owns = name.is_some() || auto_archive.is_some() || archived == Some(true);
    if perms & VIEW_CHANNEL == 0 {
        return Some(missing_access());
    }
    if (moderates && !manage) || (owns && !manage && !owner) {
        return Some(missing_permissions());
    }
    let t = inner.thread_mut(ch)?;
    if let Some(n) = name {
        t.name = n;
    }
    if let Some(a) = archived
        && a != t.archived
    {
        t.archived = a;
        t.archive_ms = now_ms();
    }
    if let Some(l) = locked {
        t.locked = l;
    }
    if let Some(d) = auto_archive {
        t.auto_archive = d;
    }
    if let Some(i) = invitable {
        t.invitable = t.kind == 12 && i;
    }
    let d = guild_json::channel(inner, ch, false);
    inner.dispatch("THREAD_UPDATE", d.clone(), INTENT_GUILDS);
    Some(Reply::ok(d))
}

/// Before a message is posted in `ch`: an archived thread is reopened (`THREAD_UPDATE`),
/// unless it is also locked (400 50083).
pub(super) fn reopen_for_post(inner: &mut Inner, ch: u64) -> Result<(), Reply> {
    let Some(t) = inner.thread_mut(ch) else {
        return Ok(());
    };
    if !t.archived {
        return Ok(());
    }
    if t.locked {
        return Err(thread_archived());
    }
    t.archived = false;
    t.archive_ms = now_ms();
    let d = guild_json::channel(inner, ch, false);
    inner.dispatch("THREAD_UPDATE", d, INTENT_GUILDS);
    Ok(())
}

/// The permission the bot needs to post in `ch` (`SEND_MESSAGES_IN_THREADS` in threads).
pub(super) fn send_permission(inner: &Inner, ch: u64) -> u64 {
    if inner.thread(ch).is_some() {
        SEND_MESSAGES_IN_THREADS
    } else {
        super::model::SEND_MESSAGES
    }
}

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
}
