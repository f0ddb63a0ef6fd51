//! JSON shapes of Discord objects, as serenity 0.12.5's models expect them
//! (ids as strings, every non-`Option`, non-`default` field present).

use serde_json::{Value, json};

use super::model::Place;
use super::state::{DISCORD_EPOCH_MS, Inner};
use super::{FakeMessage, guild_json};

pub(super) fn sid(id: u64) -> Value {
    Value::String(id.to_string())
}

/// Parses an id given as a JSON string or number.
pub(super) fn parse_id(v: &Value) -> Option<u64> {
    match v {
        Value::String(s) => s.parse().ok(),
        Value::Number(n) => n.as_u64(),
        _ => None,
    }
}

/// RFC 3339 timestamp of a Unix-milliseconds instant.
pub(super) fn timestamp_ms(ms: u64) -> String {
    chrono::DateTime::from_timestamp_millis(i64::try_from(ms).unwrap_or(i64::MAX))
        .unwrap_or_default()
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// The creation time encoded in a snowflake.
pub(super) fn snowflake_ms(id: u64) -> u64 {
    (id >> 22) + DISCORD_EPOCH_MS
}

pub(super) fn error(message: &str, code: u64) -> Value {
    json!({"message": message, "code": code})
}

/// A `400 Invalid Form Body` error for one field.
pub(super) fn form_error(field: &str, code: &str, message: &str) -> Value {
    json!({
        "message": "Invalid Form Body",
        "code": 50035,
        "errors": {field: {"_errors": [{"code": code, "message": message}]}},
    })
}

pub(super) fn user(inner: &Inner, id: u64) -> Value {
    let bot = id == inner.cfg.bot_user_id;
    let name = inner.user_name(id);
    json!({
        "id": sid(id),
        "username": name,
        "discriminator": "0",
        "global_name": if bot { Value::Null } else { Value::String(name.clone()) },
        "avatar": null,
        "bot": bot,
        "system": false,
        "public_flags": 0,
        "flags": 0,
    })
}

/// `GET /users/@me` (and READY's `user`).
pub(super) fn current_user(inner: &Inner) -> Value {
    let mut u = user(inner, inner.cfg.bot_user_id);
    u["verified"] = json!(true);
    u["mfa_enabled"] = json!(false);
    u["email"] = Value::Null;
    u["locale"] = json!("en-US");
    u
}

/// `GET /channels/{id}` of any stored channel: DM, guild text channel or thread.
pub(super) fn channel(inner: &Inner, channel_id: u64) -> Value {
    match inner.channels[&channel_id].place {
        Place::Dm { .. } => dm_channel(inner, channel_id),
        Place::Text(_) | Place::Thread(_) => guild_json::channel(inner, channel_id, false),
    }
}

/// The id of the last live message of a channel, or `null`.
pub(super) fn last_message_id(inner: &Inner, channel_id: u64) -> Value {
    let channel = inner.channels.get(&channel_id);
    let last = channel.and_then(|c| c.messages.iter().rev().find(|m| !m.deleted));
    last.map_or(Value::Null, |m| sid(m.id))
}

pub(super) fn dm_channel(inner: &Inner, channel_id: u64) -> Value {
    let recipient = match inner.channels[&channel_id].place {
        Place::Dm { recipient } => recipient,
        _ => 0,
    };
    json!({
        "id": sid(channel_id),
        "type": 1,
        "last_message_id": last_message_id(inner, channel_id),
        "flags": 0,
        "recipients": [user(inner, recipient)],
    })
}

pub(super) fn app_info(inner: &Inner) -> Value {
    let cfg = &inner.cfg;
    let mut info = json!({
        "id": sid(cfg.application_id),
        "name": cfg.bot_name,
        "icon": null,
        "description": "",
        "summary": "",
        "bot_public": false,
        "bot_require_code_grant": false,
        "verify_key": "0".repeat(64),
        "flags": cfg.app_flags,
        "bot": user(inner, cfg.bot_user_id),
        "redirect_uris": [],
        "interactions_endpoint_url": null,
        "role_connections_verification_url": null,
        "approximate_guild_count": 0,
    });
    if cfg.team_owner {
        let team_id = cfg.application_id + 1;
        let team_user = format!("team{team_id}");
        info["owner"] = json!({
            "id": sid(team_id), "username": team_user, "discriminator": "0",
            "global_name": null, "avatar": null, "flags": 1024, "public_flags": 1024,
        });
        info["team"] = json!({
            "id": sid(team_id),
            "name": "fake team",
            "icon": null,
            "owner_user_id": sid(cfg.owner_id),
            "members": [{
                "membership_state": 2,
                "permissions": ["*"],
                "team_id": sid(team_id),
                "role": "admin",
                "user": user(inner, cfg.owner_id),
            }],
        });
    } else {
        info["owner"] = user(inner, cfg.owner_id);
        info["team"] = Value::Null;
    }
    info
}

/// A registered application command, from the bot's `CreateCommand` body.
pub(super) fn command(inner: &Inner, id: u64, body: &Value) -> Value {
    let mut cmd = json!({
        "id": sid(id),
        "type": body.get("type").cloned().unwrap_or(json!(1)),
        "application_id": sid(inner.cfg.application_id),
        "guild_id": null,
        "name": body.get("name").cloned().unwrap_or(json!("")),
        "description": body.get("description").cloned().unwrap_or(json!("")),
        "options": body.get("options").cloned().unwrap_or(json!([])),
        "default_member_permissions": null,
        "nsfw": false,
        "version": sid(id),
    });
    for key in [
        "contexts",
        "integration_types",
        "dm_permission",
        "name_localizations",
    ] {
        if let Some(v) = body.get(key) {
            cmd[key] = v.clone();
        }
    }
    cmd
}

fn emoji(e: &str) -> Value {
    match e.rsplit_once(':') {
        Some((name, id)) if id.parse::<u64>().is_ok() => {
            json!({"id": id, "name": name.trim_start_matches("a:")})
        }
        _ => json!({"id": null, "name": e}),
    }
}

pub(super) fn reaction_emoji(e: &str) -> Value {
    emoji(e)
}

pub(super) fn message(inner: &Inner, m: &FakeMessage, with_referenced: bool) -> Value {
    let mut v = json!({
        "id": sid(m.id),
        "channel_id": sid(m.channel_id),
        "author": user(inner, m.author_id),
        "content": m.content,
        "timestamp": timestamp_ms(snowflake_ms(m.id)),
        "edited_timestamp": m.edited_at_ms.map(timestamp_ms),
        "tts": false,
        "mention_everyone": false,
        "mentions": [],
        "mention_roles": [],
        "attachments": m.attachments,
        "embeds": m.embeds,
        "pinned": false,
        "type": m.kind,
        "flags": m.flags,
        "components": m.components,
    });
    let mut grouped: Vec<(String, Vec<u64>)> = Vec::new();
    for (e, user_id) in &m.reactions {
        match grouped.iter_mut().find(|(g, _)| g == e) {
            Some((_, users)) => users.push(*user_id),
            None => grouped.push((e.clone(), vec![*user_id])),
        }
    }
    if !grouped.is_empty() {
        let bot = inner.cfg.bot_user_id;
        v["reactions"] = grouped
            .iter()
            .map(|(e, users)| {
                json!({
                    "count": users.len(),
                    "count_details": {"burst": 0, "normal": users.len()},
                    "me": users.contains(&bot),
                    "me_burst": false,
                    "burst_colors": [],
                    "emoji": emoji(e),
                })
            })
            .collect();
    }
    let guild = inner.guild_of(m.channel_id);
    if let Some(g) = guild {
        v["guild_id"] = sid(g);
    }
    if inner.thread(m.id).is_some_and(|t| t.parent == m.channel_id) {
        v["thread"] = guild_json::channel(inner, m.id, false);
    }
    if let Some(r) = m.reference {
        v["message_reference"] =
            json!({"type": 0, "message_id": sid(r), "channel_id": sid(m.channel_id)});
        if let Some(g) = guild {
            v["message_reference"]["guild_id"] = sid(g);
        }
        if with_referenced {
            v["referenced_message"] = inner
                .message(m.channel_id, r)
                .map_or(Value::Null, |rm| message(inner, rm, false));
        }
    }
    if m.interaction_id.is_some() {
        v["webhook_id"] = sid(inner.cfg.application_id);
        v["application_id"] = sid(inner.cfg.application_id);
    }
    v
}

/// Normalizes embeds the bot sent (Discord adds `type: "rich"`).
pub(super) fn normalize_embeds(embeds: Option<&Value>) -> Vec<Value> {
    let mut out: Vec<Value> = embeds
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for e in &mut out {
        if e.get("type").is_none() {
            e["type"] = json!("rich");
        }
    }
    out
}

pub(super) fn attachment(
    base_url: &str,
    id: u64,
    filename: &str,
    content_type: &str,
    size: usize,
) -> Value {
    let url = format!("{base_url}/attachments/{id}/{filename}");
    json!({
        "id": sid(id),
        "filename": filename,
        "size": size,
        "url": url,
        "proxy_url": url,
        "content_type": content_type,
        "height": null,
        "width": null,
    })
}
