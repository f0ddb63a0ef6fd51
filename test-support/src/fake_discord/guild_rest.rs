//! `/guilds/{id}/...` routes (guild, roles, channels, active threads, members) and
//! `GET /users/@me/guilds`.

use serde_json::{Value, json};

use super::guild_json::{self, guild_info, role};
use super::json::sid;
use super::rest::{Reply, Req};
use super::state::Inner;

pub(super) fn unknown_guild() -> Reply {
    Reply::error(404, "Unknown Guild", 10004)
}

/// `None` = no such route (answered 404 and flagged unknown).
pub(super) fn route(inner: &Inner, req: &Req) -> Option<Reply> {
    let reply = match (req.method, req.segs.as_slice()) {
        ("GET", ["users", "@me", "guilds"]) => my_guilds(inner, req),
        (method, ["guilds", gid, rest @ ..]) => {
            let Some(guild) = gid
                .parse::<u64>()
                .ok()
                .filter(|g| inner.guilds.contains_key(g))
            else {
                return Some(unknown_guild());
            };
            match (method, rest) {
                ("GET", []) => {
                    let mut v = guild_json::guild(inner, guild);
                    if req.query_param("with_counts") == Some("true") {
                        let members = inner.guilds[&guild].members.len();
                        v["approximate_member_count"] = json!(members);
                        v["approximate_presence_count"] = json!(0);
                    }
                    Reply::ok(v)
                }
                ("GET", ["roles"]) => {
                    let roles = inner.guilds[&guild].roles.iter().map(role).collect();
                    Reply::ok(Value::Array(roles))
                }
                ("GET", ["channels"]) => {
                    let channels = guild_json::text_channels(inner, guild).into_iter();
                    Reply::ok(
                        channels
                            .map(|ch| guild_json::channel(inner, ch, false))
                            .collect(),
                    )
                }
                ("GET", ["threads", "active"]) => active_threads(inner, guild),
                ("GET", ["members"]) => members(inner, req, guild),
                ("GET", ["members", uid]) => {
                    let user = if *uid == "@me" {
                        Some(inner.cfg.bot_user_id)
                    } else {
                        uid.parse::<u64>().ok()
                    };
                    match user.filter(|u| inner.is_member(guild, *u)) {
                        Some(u) => Reply::ok(guild_json::member(inner, guild, u, true)),
                        None => Reply::error(404, "Unknown Member", 10007),
                    }
                }
                _ => return None,
            }
        }
        _ => return None,
    };
    Some(reply)
}

/// `GET /users/@me/guilds`: every guild (the bot is in all), by id, `after`/`limit`.
fn my_guilds(inner: &Inner, req: &Req) -> Reply {
    let limit = req
        .query_param("limit")
        .and_then(|l| l.parse::<usize>().ok())
        .unwrap_or(200)
        .clamp(1, 200);
    let after = req
        .query_param("after")
        .and_then(|a| a.parse::<u64>().ok())
        .unwrap_or(0);
    let list = inner.guilds.keys().filter(|id| **id > after).take(limit);
    Reply::ok(list.map(|id| guild_info(inner, *id)).collect())
}

/// `GET /guilds/{id}/threads/active`: unarchived threads the bot sees, and the bot's
/// thread memberships.
fn active_threads(inner: &Inner, guild: u64) -> Reply {
    let bot = inner.cfg.bot_user_id;
    let active: Vec<u64> = guild_json::threads(inner, guild)
        .into_iter()
        .filter(|ch| inner.thread(*ch).is_some_and(|t| !t.archived) && inner.bot_sees(*ch))
        .collect();
    let threads: Vec<Value> = active
        .iter()
        .map(|ch| guild_json::channel(inner, *ch, false))
        .collect();
    let members: Vec<Value> = active
        .iter()
        .filter_map(|ch| {
            let t = inner.thread(*ch)?;
            t.members.contains(&bot).then(|| {
                json!({
                    "id": sid(*ch),
                    "user_id": sid(bot),
                    "join_timestamp": super::json::timestamp_ms(t.created_ms),
                    "flags": 0,
                })
            })
        })
        .collect();
    Reply::ok(json!({"threads": threads, "members": members}))
}

/// `GET /guilds/{id}/members?limit&after`, by user id.
fn members(inner: &Inner, req: &Req, guild: u64) -> Reply {
    let limit = req
        .query_param("limit")
        .and_then(|l| l.parse::<usize>().ok())
        .unwrap_or(1)
        .clamp(1, 1000);
    let after = req
        .query_param("after")
        .and_then(|a| a.parse::<u64>().ok())
        .unwrap_or(0);
    let users = inner.guilds[&guild].members.keys();
    let picked = users.filter(|u| **u > after).take(limit);
    Reply::ok(
        picked
            .map(|u| guild_json::member(inner, guild, *u, true))
            .collect(),
    )
}
