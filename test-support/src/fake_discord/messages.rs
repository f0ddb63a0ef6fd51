//! `/channels/{id}/...` routes: the channel, messages (create with Discord's validation,
//! list, get, edit, delete), reactions, typing, threads. In a guild channel the bot needs
//! `VIEW_CHANNEL` (else 403 50001) and, to post, `SEND_MESSAGES` (in threads
//! `SEND_MESSAGES_IN_THREADS`; else 403 50013).

use serde_json::{Value, json};

use super::json::{self, sid};
use super::model::MANAGE_MESSAGES;
use super::multipart::percent_decode;
use super::rest::{Reply, Req};
use super::state::{Inner, now_ms};
use super::threads::{self, missing_access, missing_permissions, send_permission};
use super::validate::{attachments, validate};
use super::{FakeMessage, MessageVersion, MultipartFile, guild_json};

/// `None` = no such route (answered 404 and flagged unknown).
pub(super) fn route(inner: &mut Inner, req: &Req) -> Option<Reply> {
    let Some(ch) = req.segs.get(1).and_then(|s| s.parse::<u64>().ok()) else {
        return Some(Reply::unknown_channel());
    };
    let known = inner.channels.contains_key(&ch);
    let in_guild = inner.guild_of(ch).is_some();
    let bot = inner.cfg.bot_user_id;
    let reply = match (req.method, &req.segs[2..]) {
        _ if !known => return Some(Reply::unknown_channel()),
        _ if in_guild && !inner.bot_sees(ch) => missing_access(),
        ("GET", []) => Reply::ok(json::channel(inner, ch)),
        ("PATCH", []) => return threads::patch(inner, req, ch),
        ("POST", ["threads"]) => threads::create(inner, req, ch, None),
        ("POST", ["messages", mid, "threads"]) => match mid.parse::<u64>() {
            Ok(mid) => threads::create(inner, req, ch, Some(mid)),
            Err(_) => Reply::unknown_message(),
        },
        ("GET", ["threads", "archived", which @ ("public" | "private")]) => {
            if inner.text(ch).is_none() {
                return Some(Reply::error(
                    400,
                    "Cannot execute action on this channel type",
                    50024,
                ));
            }
            threads::archived(inner, req, ch, *which == "private")
        }
        (method @ ("PUT" | "DELETE"), ["thread-members", "@me"]) => {
            threads::join(inner, ch, method == "PUT")
        }
        ("PUT", ["thread-members", user]) => threads::add_member(inner, ch, user),
        ("POST", ["typing"]) => Reply::no_content(),
        ("POST", ["messages"])
            if in_guild && inner.channel_permissions(bot, ch) & send_permission(inner, ch) == 0 =>
        {
            missing_permissions()
        }
        ("POST", ["messages"]) => {
            match create_bot_message(inner, ch, req.body, req.files, None, false) {
                Ok(id) => Reply::ok(json::message(
                    inner,
                    inner.message(ch, id).expect("stored"),
                    true,
                )),
                Err(reply) => reply,
            }
        }
        ("GET", ["messages"]) => list(inner, req, ch),
        (method, ["messages", mid]) => {
            let mid = mid.parse::<u64>().unwrap_or(0);
            match method {
                "GET" => match inner.message(ch, mid) {
                    Some(m) => Reply::ok(json::message(inner, m, true)),
                    None => Reply::unknown_message(),
                },
                "PATCH" => edit_message(inner, ch, mid, req.body, req.files),
                "DELETE" => delete_message(inner, ch, mid),
                _ => return None,
            }
        }
        (method @ ("PUT" | "DELETE"), ["messages", mid, "reactions", emoji, "@me"]) => {
            let mid = mid.parse::<u64>().unwrap_or(0);
            react(inner, ch, mid, &percent_decode(emoji), method == "PUT")
        }
        _ => return None,
    };
    Some(reply)
}

/// Validates and stores a message the bot posts (REST or interaction response), and
/// dispatches its `MESSAGE_CREATE` (unless ephemeral). Returns the new id.
pub(super) fn create_bot_message(
    inner: &mut Inner,
    ch: u64,
    body: Option<&Value>,
    files: &[MultipartFile],
    interaction_id: Option<u64>,
    allow_empty: bool,
) -> Result<u64, Reply> {
    validate(inner, ch, body, files, allow_empty)?;
    threads::reopen_for_post(inner, ch)?;
    let field = |k: &str| body.and_then(|b| b.get(k));
    let reference = field("message_reference")
        .and_then(|r| r.get("message_id"))
        .and_then(json::parse_id);
    let reference = reference.filter(|r| inner.message(ch, *r).is_some());
    let id = inner.snowflake();
    let message = FakeMessage {
        id,
        channel_id: ch,
        author_id: inner.cfg.bot_user_id,
        by_bot: true,
        content: field("content")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string(),
        embeds: json::normalize_embeds(field("embeds")),
        components: field("components")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default(),
        attachments: attachments(inner, body, files, &[]),
        flags: field("flags").and_then(Value::as_u64).unwrap_or(0),
        kind: if reference.is_some() { 19 } else { 0 },
        reference,
        reactions: Vec::new(),
        history: Vec::new(),
        edited_at_ms: None,
        deleted: false,
        interaction_id,
    };
    let ephemeral = message.flags & 64 != 0;
    inner.push_message(message);
    if inner.cfg.echo_own_messages && !ephemeral {
        dispatch_message(inner, "MESSAGE_CREATE", ch, id);
    }
    Ok(id)
}

/// Dispatches `t` (`MESSAGE_CREATE` / `MESSAGE_UPDATE`) for a stored message: in a guild
/// channel it carries `guild_id` and the author's `member` and needs `GUILD_MESSAGES`
/// (DMs: `DIRECT_MESSAGES`); withheld when the bot cannot see the channel.
pub(super) fn dispatch_message(inner: &mut Inner, t: &str, ch: u64, mid: u64) {
    let Some(m) = inner.message(ch, mid) else {
        return;
    };
    let author = m.author_id;
    let mut d = json::message(inner, m, true);
    guild_json::add_member(inner, &mut d, ch, author);
    let intent = inner.message_intent(ch);
    inner.dispatch_in(ch, t, d, intent);
}

/// Applies an edit body to a bot message; answers the updated message.
pub(super) fn edit_message(
    inner: &mut Inner,
    ch: u64,
    mid: u64,
    body: Option<&Value>,
    files: &[MultipartFile],
) -> Reply {
    let Some(current) = inner.message(ch, mid).cloned() else {
        return Reply::unknown_message();
    };
    if !current.by_bot {
        return Reply::error(403, "Cannot edit a message authored by another user", 50005);
    }
    if let Err(reply) = validate(inner, ch, body, files, true) {
        return reply;
    }
    let field = |k: &str| body.and_then(|b| b.get(k));
    let new_attachments = if field("attachments").is_some() || !files.is_empty() {
        Some(attachments(inner, body, files, &current.attachments))
    } else {
        None
    };
    let m = inner.message_mut(ch, mid).expect("checked above");
    m.history.push(MessageVersion {
        content: m.content.clone(),
        embeds: m.embeds.clone(),
        components: m.components.clone(),
    });
    if let Some(c) = field("content") {
        m.content = c.as_str().unwrap_or("").to_string();
    }
    if field("embeds").is_some() {
        m.embeds = json::normalize_embeds(field("embeds"));
    }
    if let Some(c) = field("components") {
        m.components = c.as_array().cloned().unwrap_or_default();
    }
    if let Some(f) = field("flags").and_then(Value::as_u64) {
        m.flags = f;
    }
    if let Some(a) = new_attachments {
        m.attachments = a;
    }
    m.edited_at_ms = Some(now_ms());
    let ephemeral = m.flags & 64 != 0;
    let d = json::message(inner, inner.message(ch, mid).expect("exists"), true);
    if inner.cfg.echo_own_messages && !ephemeral {
        dispatch_message(inner, "MESSAGE_UPDATE", ch, mid);
    }
    Reply::ok(d)
}

pub(super) fn delete_message(inner: &mut Inner, ch: u64, mid: u64) -> Reply {
    let guild = inner.guild_of(ch);
    let may_moderate = inner.channel_permissions(inner.cfg.bot_user_id, ch) & MANAGE_MESSAGES != 0;
    let Some(m) = inner.message_mut(ch, mid) else {
        return Reply::unknown_message();
    };
    let by_bot = m.by_bot;
    match (by_bot, guild) {
        (false, None) => return Reply::error(403, "Cannot execute action on a DM channel", 50003),
        (false, Some(_)) if !may_moderate => return missing_permissions(),
        _ => m.deleted = true,
    }
    if inner.cfg.echo_own_messages || !by_bot {
        let mut d = json!({"id": sid(mid), "channel_id": sid(ch)});
        if let Some(g) = guild {
            d["guild_id"] = sid(g);
        }
        let intent = inner.message_intent(ch);
        inner.dispatch_in(ch, "MESSAGE_DELETE", d, intent);
    }
    Reply::no_content()
}

fn list(inner: &Inner, req: &Req, ch: u64) -> Reply {
    let limit = req
        .query_param("limit")
        .and_then(|l| l.parse::<usize>().ok())
        .unwrap_or(50)
        .clamp(1, 100);
    let param = |k: &str| req.query_param(k).and_then(|v| v.parse::<u64>().ok());
    let live: Vec<&FakeMessage> = inner.channels[&ch]
        .messages
        .iter()
        .filter(|m| !m.deleted)
        .collect();
    let mut picked: Vec<&FakeMessage> = if let Some(after) = param("after") {
        live.into_iter()
            .filter(|m| m.id > after)
            .take(limit)
            .collect()
    } else if let Some(before) = param("before") {
        let older: Vec<_> = live.into_iter().filter(|m| m.id < before).collect();
        older[older.len().saturating_sub(limit)..].to_vec()
    } else if let Some(around) = param("around") {
        let pos = live
            .iter()
            .position(|m| m.id >= around)
            .unwrap_or(live.len());
        let start = pos.saturating_sub(limit / 2);
        live[start..(start + limit).min(live.len())].to_vec()
    } else {
        live[live.len().saturating_sub(limit)..].to_vec()
    };
    picked.reverse(); // Discord answers newest first
    Reply::ok(
        picked
            .iter()
            .map(|m| json::message(inner, m, true))
            .collect(),
    )
}

fn react(inner: &mut Inner, ch: u64, mid: u64, emoji: &str, add: bool) -> Reply {
    let bot = inner.cfg.bot_user_id;
    let Some(m) = inner.message_mut(ch, mid) else {
        return Reply::unknown_message();
    };
    let author = m.author_id;
    let had = m.reactions.iter().any(|(e, u)| e == emoji && *u == bot);
    if add && !had {
        m.reactions.push((emoji.to_string(), bot));
    } else if !add {
        m.reactions.retain(|(e, u)| !(e == emoji && *u == bot));
    }
    if had != add && inner.cfg.echo_own_messages {
        dispatch_reaction(inner, add, bot, ch, mid, emoji, author);
    }
    Reply::no_content()
}

/// Dispatches `MESSAGE_REACTION_ADD` (`add`) or `MESSAGE_REACTION_REMOVE` of `emoji` by `user` on
/// message `mid` (written by `author`) in channel `ch`.
pub(super) fn dispatch_reaction(
    inner: &mut Inner,
    add: bool,
    user: u64,
    ch: u64,
    mid: u64,
    emoji: &str,
    author: u64,
) {
    let t = if add {
        "MESSAGE_REACTION_ADD"
    } else {
        "MESSAGE_REACTION_REMOVE"
    };
    let mut d = reaction_event(user, ch, mid, emoji, Some(author));
    if let Some(g) = inner.guild_of(ch) {
        d["guild_id"] = sid(g);
        if add && inner.is_member(g, user) {
            d["member"] = guild_json::member(inner, g, user, true);
        }
    }
    let intent = inner.reaction_intent(ch);
    inner.dispatch_in(ch, t, d, intent);
}

fn reaction_event(user: u64, ch: u64, mid: u64, emoji: &str, author: Option<u64>) -> Value {
    json!({
        "user_id": sid(user),
        "channel_id": sid(ch),
        "message_id": sid(mid),
        "message_author_id": author.map(sid),
        "emoji": json::reaction_emoji(emoji),
        "burst": false,
        "burst_colors": [],
        "type": 0,
    })
}
