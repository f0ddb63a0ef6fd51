//! Application command routes: global (`/applications/{app}/commands[/{id}]`) and per
//! guild (`/applications/{app}/guilds/{guild}/commands[/{id}]`).

use serde_json::{Value, json};

use super::FakeDiscord;
use super::guild_rest::unknown_guild;
use super::json::{self, sid};
use super::rest::{Reply, Req};
use super::state::Inner;

pub(super) fn route(
    inner: &mut Inner,
    req: &Req,
    app: &str,
    guild: Option<&str>,
    rest: &[&str],
) -> Reply {
    if app.parse::<u64>().ok() != Some(inner.cfg.application_id) {
        return Reply::error(403, "Missing Access", 50001);
    }
    let guild = match guild.map(str::parse::<u64>) {
        None => None,
        Some(Ok(g)) if inner.guilds.contains_key(&g) => Some(g),
        Some(_) => return unknown_guild(),
    };
    let mut list = match guild {
        Some(g) => std::mem::take(&mut inner.guilds.get_mut(&g).expect("checked").commands),
        None => std::mem::take(&mut inner.commands),
    };
    let reply = on_list(inner, &mut list, req, guild, rest);
    match guild {
        Some(g) => inner.guilds.get_mut(&g).expect("checked").commands = list,
        None => inner.commands = list,
    }
    reply
}

/// A registered command as Discord answers it (`guild_id` set for guild commands).
fn command(inner: &Inner, id: u64, body: &Value, guild: Option<u64>) -> Value {
    let mut cmd = json::command(inner, id, body);
    if let Some(g) = guild {
        cmd["guild_id"] = sid(g);
    }
    cmd
}

fn on_list(
    inner: &mut Inner,
    list: &mut Vec<Value>,
    req: &Req,
    guild: Option<u64>,
    rest: &[&str],
) -> Reply {
    match (req.method, rest) {
        ("GET", []) => Reply::ok(Value::Array(list.clone())),
        ("PUT", []) => {
            let Some(wanted) = req.body.and_then(Value::as_array) else {
                let errors = json!({"_errors": [{"code": "BASE_TYPE_ARRAY", "message": "Must be an array."}]});
                let body = json!({"message": "Invalid Form Body", "code": 50035, "errors": errors});
                return Reply::with(400, body);
            };
            let mut out = Vec::new();
            for body in wanted {
                let name = body.get("name");
                let old = list.iter().find(|c| c.get("name") == name);
                let id = old.and_then(|c| c.get("id")).and_then(json::parse_id);
                let id = id.unwrap_or_else(|| inner.snowflake());
                out.push(command(inner, id, body, guild));
            }
            list.clone_from(&out);
            Reply::ok(Value::Array(out))
        }
        ("POST", []) => {
            let body = req.body.cloned().unwrap_or_default();
            let name = body.get("name");
            let pos = list.iter().position(|c| c.get("name") == name);
            let old_id = pos.and_then(|p| json::parse_id(&list[p]["id"]));
            let id = old_id.unwrap_or_else(|| inner.snowflake());
            let cmd = command(inner, id, &body, guild);
            match pos {
                Some(p) => list[p] = cmd.clone(),
                None => list.push(cmd.clone()),
            }
            Reply::with(if pos.is_some() { 200 } else { 201 }, cmd)
        }
        (method, [cid]) => {
            let id = cid.parse().unwrap_or(0);
            let pos = list.iter().position(|c| c["id"] == sid(id));
            match (method, pos) {
                (_, None) => Reply::error(404, "Unknown application command", 10063),
                ("GET", Some(p)) => Reply::ok(list[p].clone()),
                ("DELETE", Some(p)) => {
                    list.remove(p);
                    Reply::no_content()
                }
                ("PATCH", Some(p)) => {
                    let mut body = list[p].clone();
                    for (k, v) in req.body.and_then(Value::as_object).into_iter().flatten() {
                        body[k] = v.clone();
                    }
                    list[p] = command(inner, id, &body, guild);
                    Reply::ok(list[p].clone())
                }
                _ => Reply::error(405, "405: Method Not Allowed", 0),
            }
        }
        _ => Reply::error(405, "405: Method Not Allowed", 0),
    }
}

/// The id of command `name` for an interaction in `guild` (guild commands first, then
/// global ones); a fresh id when none is registered.
pub(super) fn command_id(inner: &mut Inner, guild: Option<u64>, name: &str) -> u64 {
    let in_guild = guild
        .and_then(|g| inner.guilds.get(&g))
        .and_then(|g| g.commands.iter().find(|c| c["name"] == name));
    let found = in_guild.or_else(|| inner.commands.iter().find(|c| c["name"] == name));
    let id = found.and_then(|c| json::parse_id(&c["id"]));
    id.unwrap_or_else(|| inner.snowflake())
}

impl FakeDiscord {
    /// Guild application commands of `guild` as last registered by the bot (empty for an
    /// unknown guild).
    pub fn commands_in(&self, guild: u64) -> Vec<Value> {
        let inner = self.shared.lock();
        let commands = inner.guilds.get(&guild).map(|g| g.commands.clone());
        commands.unwrap_or_default()
    }
}
