//! Threads: `POST /channels/{parent}/threads`, `POST /channels/{parent}/messages/{id}/threads`,
//! `PATCH /channels/{thread}` (name, archived, locked, …), the archived-thread rules of
//! posting, archived-thread listings, joining and leaving.

use serde_json::{Value, json};

use super::guild_json;
use super::json;
use super::model::{
    CREATE_PRIVATE_THREADS, CREATE_PUBLIC_THREADS, MANAGE_THREADS, Place, READ_MESSAGE_HISTORY,
    SEND_MESSAGES_IN_THREADS, ThreadState, VIEW_CHANNEL,
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
    let thread = new_thread(guild, parent, name, kind, bot);
    let thread = ThreadState {
        invitable: kind == 12 && invitable,
        auto_archive,
        ..thread
    };
    insert_thread(inner, id, thread);
    Reply::with(201, guild_json::channel(inner, id, true))
}

/// A fresh, open thread of `parent` created by `owner` (its first member).
pub(super) fn new_thread(
    guild: u64,
    parent: u64,
    name: String,
    kind: u64,
    owner: u64,
) -> ThreadState {
    let now = now_ms();
    ThreadState {
        guild,
        parent,
        name,
        kind: u8::try_from(kind).unwrap_or(11),
        owner,
        archived: false,
        locked: false,
        invitable: kind == 12,
        auto_archive: 1440,
        archive_ms: now,
        created_ms: now,
        members: vec![owner],
    }
}

/// Stores a new thread and dispatches its `THREAD_CREATE` (`newly_created`; `member`
/// when the bot is in it), withheld when the bot cannot see it.
pub(super) fn insert_thread(inner: &mut Inner, id: u64, thread: ThreadState) {
    let channel = Channel {
        place: Place::Thread(thread),
        messages: Vec::new(),
    };
    inner.channels.insert(id, channel);
    let mut d = guild_json::channel(inner, id, true);
    d["newly_created"] = json!(true);
    inner.dispatch_in(id, "THREAD_CREATE", d, INTENT_GUILDS);
}

/// `GET /channels/{parent}/threads/archived/{public|private}`: archived threads of that
/// kind, most recently archived first (`before`: an ISO 8601 timestamp; `limit`).
pub(super) fn archived(inner: &Inner, req: &Req, parent: u64, private: bool) -> Reply {
    let kind = if private { 12 } else { 11 };
    let before = req
        .query_param("before")
        .map(super::multipart::percent_decode)
        .and_then(|b| chrono::DateTime::parse_from_rfc3339(&b).ok())
        .and_then(|b| u64::try_from(b.timestamp_millis()).ok());
    let limit = req
        .query_param("limit")
        .and_then(|l| l.parse::<usize>().ok())
        .unwrap_or(50)
        .clamp(1, 100);
    let mut found: Vec<(u64, u64)> = inner
        .channels
        .keys()
        .filter_map(|id| Some((*id, inner.thread(*id)?)))
        .filter(|(id, t)| t.parent == parent && t.kind == kind && t.archived && inner.bot_sees(*id))
        .filter(|(_, t)| before.is_none_or(|b| t.archive_ms < b))
        .map(|(id, t)| (t.archive_ms, id))
        .collect();
    found.sort_unstable_by(|a, b| b.cmp(a));
    let has_more = found.len() > limit;
    found.truncate(limit);
    let bot = inner.cfg.bot_user_id;
    let threads: Vec<Value> = found
        .iter()
        .map(|(_, id)| guild_json::channel(inner, *id, false))
        .collect();
    let members: Vec<Value> = found
        .iter()
        .filter(|(_, id)| inner.thread(*id).is_some_and(|t| t.members.contains(&bot)))
        .map(|(_, id)| thread_member(inner, *id, bot))
        .collect();
    Reply::ok(json!({"threads": threads, "members": members, "has_more": has_more}))
}

/// A thread member object of `user` in thread `ch`.
pub(super) fn thread_member(inner: &Inner, ch: u64, user: u64) -> Value {
    let joined = inner.thread(ch).map_or(0, |t| t.created_ms);
    json!({
        "id": json::sid(ch),
        "user_id": json::sid(user),
        "join_timestamp": json::timestamp_ms(joined),
        "flags": 0,
    })
}

/// `PUT` / `DELETE /channels/{thread}/thread-members/@me`: the bot joins or leaves
/// (`THREAD_MEMBER_UPDATE` on joining). 400 50083 for an archived thread.
pub(super) fn join(inner: &mut Inner, ch: u64, joining: bool) -> Reply {
    let bot = inner.cfg.bot_user_id;
    let guild = inner.guild_of(ch);
    let Some(t) = inner.thread_mut(ch) else {
        return Reply::error(400, "Cannot execute action on this channel type", 50024);
    };
    if t.archived {
        return thread_archived();
    }
    let was = t.members.contains(&bot);
    t.members.retain(|u| *u != bot);
    if joining {
        t.members.push(bot);
    }
    if joining && !was {
        let mut d = thread_member(inner, ch, bot);
        d["guild_id"] = guild.map_or(Value::Null, json::sid);
        inner.dispatch("THREAD_MEMBER_UPDATE", d, INTENT_GUILDS);
    }
    Reply::no_content()
}

/// `PUT /channels/{thread}/thread-members/{user}`: the bot adds a member of the guild (to a
/// private thread only when it is a member itself). 400 50083 for an archived thread.
pub(super) fn add_member(inner: &mut Inner, ch: u64, user: &str) -> Reply {
    let bot = inner.cfg.bot_user_id;
    let Ok(user) = user.parse::<u64>() else {
        return Reply::error(404, "Unknown User", 10013);
    };
    let in_guild = inner
        .guild_of(ch)
        .is_some_and(|guild| inner.is_member(guild, user));
    let Some(t) = inner.thread_mut(ch) else {
        return Reply::error(400, "Cannot execute action on this channel type", 50024);
    };
    if t.archived {
        return thread_archived();
    }
    if !in_guild {
        return Reply::error(404, "Unknown Member", 10007);
    }
    if t.kind == 12 && !t.members.contains(&bot) {
        return Reply::error(403, "Missing Access", 50001);
    }
    if !t.members.contains(&user) {
        t.members.push(user);
    }
    Reply::no_content()
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
    inner.dispatch_in(ch, "THREAD_UPDATE", d, INTENT_GUILDS);
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
