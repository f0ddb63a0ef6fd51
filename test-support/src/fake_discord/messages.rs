//! `/channels/{id}/...` routes: messages (create with Discord's validation, list,
//! get, edit, delete), reactions, typing.

use serde_json::{Value, json};

use super::json::{self, sid};
use super::multipart::percent_decode;
use super::rest::{Reply, Req};
use super::state::{INTENT_DIRECT_MESSAGE_REACTIONS, INTENT_DIRECT_MESSAGES, Inner, now_ms};
use super::validate::{attachments, validate};
use super::{FakeMessage, MessageVersion, MultipartFile};

/// `None` = no such route (answered 404 and flagged unknown).
pub(super) fn route(inner: &mut Inner, req: &Req) -> Option<Reply> {
    let Some(ch) = req.segs.get(1).and_then(|s| s.parse::<u64>().ok()) else {
        return Some(Reply::unknown_channel());
    };
    let known = inner.channels.contains_key(&ch);
    let reply = match (req.method, &req.segs[2..]) {
        _ if !known => return Some(Reply::unknown_channel()),
        ("GET", []) => Reply::ok(json::dm_channel(inner, ch)),
        ("POST", ["typing"]) => Reply::no_content(),
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
        let d = json::message(inner, inner.message(ch, id).expect("just stored"), true);
        inner.dispatch("MESSAGE_CREATE", d, INTENT_DIRECT_MESSAGES);
    }
    Ok(id)
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
        inner.dispatch("MESSAGE_UPDATE", d.clone(), INTENT_DIRECT_MESSAGES);
    }
    Reply::ok(d)
}

pub(super) fn delete_message(inner: &mut Inner, ch: u64, mid: u64) -> Reply {
    let Some(m) = inner.message_mut(ch, mid) else {
        return Reply::unknown_message();
    };
    if !m.by_bot {
        return Reply::error(403, "Cannot execute action on a DM channel", 50003);
    }
    m.deleted = true;
    if inner.cfg.echo_own_messages {
        inner.dispatch(
            "MESSAGE_DELETE",
            json!({"id": sid(mid), "channel_id": sid(ch)}),
            INTENT_DIRECT_MESSAGES,
        );
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
    let d = reaction_event(user, ch, mid, emoji, Some(author));
    inner.dispatch(t, d, INTENT_DIRECT_MESSAGE_REACTIONS);
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
