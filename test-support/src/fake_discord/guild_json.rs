//! JSON shapes of guild objects (guild, role, member, guild channel, thread, the guild
//! side of messages and interactions), as serenity 0.12.5's models expect them.

use serde_json::{Value, json};

use super::json::{self, last_message_id, sid, timestamp_ms};
use super::model::{FakeOverwrite, OverwriteKind, Place, RoleState, TextState, ThreadState};
use super::state::Inner;

/// Permissions travel as decimal strings.
pub(super) fn perms(bits: u64) -> Value {
    Value::String(bits.to_string())
}

pub(super) fn role(r: &RoleState) -> Value {
    json!({
        "id": sid(r.id),
        "name": r.name,
        "color": 0,
        "colors": {"primary_color": 0, "secondary_color": null, "tertiary_color": null},
        "hoist": false,
        "icon": null,
        "unicode_emoji": null,
        "position": r.position,
        "permissions": perms(r.permissions),
        "managed": false,
        "mentionable": false,
        "flags": 0,
    })
}

pub(super) fn overwrite(o: &FakeOverwrite) -> Value {
    json!({
        "id": sid(o.id),
        "type": match o.kind { OverwriteKind::Role => 0, OverwriteKind::Member => 1 },
        "allow": perms(o.allow),
        "deny": perms(o.deny),
    })
}

/// A guild member object; `with_user` adds `user` (absent from a message's `member`).
pub(super) fn member(inner: &Inner, guild: u64, user: u64, with_user: bool) -> Value {
    let state = inner.guilds.get(&guild).and_then(|g| g.members.get(&user));
    let roles: Vec<Value> = state
        .map(|m| m.roles.iter().map(|r| sid(*r)).collect())
        .unwrap_or_default();
    let joined = state.map_or(json::snowflake_ms(guild), |m| m.joined_ms);
    let mut v = json!({
        "nick": null,
        "avatar": null,
        "banner": null,
        "roles": roles,
        "joined_at": timestamp_ms(joined),
        "premium_since": null,
        "deaf": false,
        "mute": false,
        "flags": 0,
        "pending": false,
        "communication_disabled_until": null,
    });
    if with_user {
        v["user"] = json::user(inner, user);
    }
    v
}

/// A guild channel object for a text channel or a thread; `with_member` adds the bot's
/// thread member (`member`) when it is in the thread.
pub(super) fn channel(inner: &Inner, ch: u64, with_member: bool) -> Value {
    match &inner.channels[&ch].place {
        Place::Text(t) => text_channel(inner, ch, t),
        Place::Thread(t) => thread_channel(inner, ch, t, with_member),
        Place::Dm { .. } => json::dm_channel(inner, ch),
    }
}

fn text_channel(inner: &Inner, ch: u64, t: &TextState) -> Value {
    let overwrites: Vec<Value> = t.overwrites.iter().map(overwrite).collect();
    json!({
        "id": sid(ch),
        "type": 0,
        "guild_id": sid(t.guild),
        "position": t.position,
        "permission_overwrites": overwrites,
        "name": t.name,
        "topic": null,
        "nsfw": false,
        "last_message_id": last_message_id(inner, ch),
        "rate_limit_per_user": 0,
        "parent_id": null,
        "last_pin_timestamp": null,
        "flags": 0,
    })
}

fn thread_channel(inner: &Inner, ch: u64, t: &ThreadState, with_member: bool) -> Value {
    let messages = &inner.channels[&ch].messages;
    let live = messages.iter().filter(|m| !m.deleted).count();
    let mut metadata = json!({
        "archived": t.archived,
        "auto_archive_duration": t.auto_archive,
        "archive_timestamp": timestamp_ms(t.archive_ms),
        "locked": t.locked,
        "create_timestamp": timestamp_ms(t.created_ms),
    });
    if t.kind == 12 {
        metadata["invitable"] = json!(t.invitable);
    }
    let mut v = json!({
        "id": sid(ch),
        "type": t.kind,
        "guild_id": sid(t.guild),
        "parent_id": sid(t.parent),
        "owner_id": sid(t.owner),
        "name": t.name,
        "last_message_id": last_message_id(inner, ch),
        "rate_limit_per_user": 0,
        "flags": 0,
        "message_count": live,
        "total_message_sent": messages.len(),
        "member_count": t.members.len().min(50),
        "thread_metadata": metadata,
        "applied_tags": [],
    });
    let bot = inner.cfg.bot_user_id;
    if with_member && t.members.contains(&bot) {
        v["member"] = json!({
            "id": sid(ch),
            "user_id": sid(bot),
            "join_timestamp": timestamp_ms(t.created_ms),
            "flags": 0,
        });
    }
    v
}

/// The guild's text channels, by position.
pub(super) fn text_channels(inner: &Inner, guild: u64) -> Vec<u64> {
    let mut found: Vec<(u16, u64)> = inner
        .channels
        .iter()
        .filter_map(|(id, c)| match &c.place {
            Place::Text(t) if t.guild == guild => Some((t.position, *id)),
            _ => None,
        })
        .collect();
    found.sort_unstable();
    found.into_iter().map(|(_, id)| id).collect()
}

/// The guild's threads (archived ones included), oldest first.
pub(super) fn threads(inner: &Inner, guild: u64) -> Vec<u64> {
    let threads = inner.channels.iter().filter_map(|(id, c)| match &c.place {
        Place::Thread(t) if t.guild == guild => Some(*id),
        _ => None,
    });
    threads.collect()
}

/// `GET /guilds/{id}` (a `PartialGuild`), also the base of `GUILD_CREATE`.
pub(super) fn guild(inner: &Inner, id: u64) -> Value {
    let g = &inner.guilds[&id];
    let roles: Vec<Value> = g.roles.iter().map(role).collect();
    json!({
        "id": sid(id),
        "name": g.name,
        "icon": null,
        "icon_hash": null,
        "splash": null,
        "discovery_splash": null,
        "owner_id": sid(g.owner),
        "afk_channel_id": null,
        "afk_timeout": 300,
        "widget_enabled": false,
        "widget_channel_id": null,
        "verification_level": 0,
        "default_message_notifications": 1,
        "explicit_content_filter": 0,
        "roles": roles,
        "emojis": [],
        "features": [],
        "mfa_level": 0,
        "application_id": null,
        "system_channel_id": null,
        "system_channel_flags": 0,
        "rules_channel_id": null,
        "max_presences": null,
        "max_members": 500_000,
        "vanity_url_code": null,
        "description": null,
        "banner": null,
        "premium_tier": 0,
        "premium_subscription_count": 0,
        "preferred_locale": "en-US",
        "public_updates_channel_id": null,
        "max_video_channel_users": 25,
        "max_stage_video_channel_users": 50,
        "nsfw_level": 0,
        "stickers": [],
        "premium_progress_bar_enabled": false,
        "safety_alerts_channel_id": null,
        "incidents_data": null,
    })
}

/// `GUILD_CREATE`: the guild plus channels, active threads the bot sees, and the bot's
/// and the owner's members.
pub(super) fn guild_create(inner: &Inner, id: u64) -> Value {
    let g = &inner.guilds[&id];
    let mut v = guild(inner, id);
    let bot = inner.cfg.bot_user_id;
    let mut shown = vec![bot];
    if g.owner != bot && g.members.contains_key(&g.owner) {
        shown.push(g.owner);
    }
    let members: Vec<Value> = shown.iter().map(|u| member(inner, id, *u, true)).collect();
    let channels: Vec<Value> = text_channels(inner, id)
        .into_iter()
        .map(|ch| channel(inner, ch, false))
        .collect();
    let threads: Vec<Value> = threads(inner, id)
        .into_iter()
        .filter(|ch| inner.thread(*ch).is_some_and(|t| !t.archived) && inner.bot_sees(*ch))
        .map(|ch| channel(inner, ch, true))
        .collect();
    let joined = g
        .members
        .get(&bot)
        .map_or(json::snowflake_ms(id), |m| m.joined_ms);
    let extra = json!({
        "joined_at": timestamp_ms(joined),
        "large": false,
        "unavailable": false,
        "member_count": g.members.len(),
        "voice_states": [],
        "members": members,
        "channels": channels,
        "threads": threads,
        "presences": [],
        "stage_instances": [],
        "guild_scheduled_events": [],
        "soundboard_sounds": [],
        "embedded_activities": [],
    });
    for (k, val) in extra.as_object().into_iter().flatten() {
        v[k] = val.clone();
    }
    v
}

/// One entry of `GET /users/@me/guilds`.
pub(super) fn guild_info(inner: &Inner, id: u64) -> Value {
    let g = &inner.guilds[&id];
    let bot = inner.cfg.bot_user_id;
    json!({
        "id": sid(id),
        "name": g.name,
        "icon": null,
        "banner": null,
        "owner": g.owner == bot,
        "permissions": perms(inner.guild_permissions(id, bot)),
        "features": [],
    })
}

/// Adds the author's partial `member` to a gateway message event in a guild channel.
pub(super) fn add_member(inner: &Inner, v: &mut Value, ch: u64, author: u64) {
    if let Some(g) = inner.guild_of(ch)
        && inner.is_member(g, author)
    {
        v["member"] = member(inner, g, author, false);
    }
}

/// Turns a DM-shaped interaction into the guild shape when `ch` is a guild channel or
/// thread: `guild_id`, `member` (with `user` and `permissions`) instead of `user`,
/// `context: 0`, the channel's real type, `app_permissions`.
pub(super) fn guild_interaction(inner: &Inner, d: &mut Value, user: u64, ch: u64) {
    let Some(g) = inner.guild_of(ch) else {
        return;
    };
    let user_perms = inner.channel_permissions(user, ch);
    let mut m = member(inner, g, user, true);
    m["permissions"] = perms(user_perms);
    let full = channel(inner, ch, false);
    let mut partial = json!({
        "id": sid(ch),
        "type": full["type"],
        "name": full["name"],
        "guild_id": sid(g),
        "parent_id": full.get("parent_id").cloned().unwrap_or(Value::Null),
        "permissions": perms(user_perms),
        "flags": 0,
    });
    if let Some(meta) = full.get("thread_metadata") {
        partial["thread_metadata"] = meta.clone();
    }
    if let Some(obj) = d.as_object_mut() {
        obj.remove("user");
    }
    d["guild_id"] = sid(g);
    d["guild_locale"] = json!("en-US");
    d["member"] = m;
    d["channel"] = partial;
    d["context"] = json!(0);
    d["authorizing_integration_owners"] = json!({"0": sid(g)});
    d["app_permissions"] = perms(inner.channel_permissions(inner.cfg.bot_user_id, ch));
}
