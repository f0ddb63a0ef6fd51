//! Interaction callbacks (`POST /interactions/{id}/{token}/callback`) and the
//! interaction webhook routes (`/webhooks/{app}/{token}[/messages/{@original|id}]`).

use serde_json::{Value, json};

use super::json;
use super::messages::{create_bot_message, delete_message, edit_message};
use super::rest::{Reply, Req};
use super::state::Inner;

/// Discord's LOADING ("is thinking…") message flag.
const LOADING: u64 = 128;

pub(super) fn route(inner: &mut Inner, req: &Req) -> Option<Reply> {
    match (req.method, req.segs.as_slice()) {
        ("POST", ["interactions", id, token, "callback"]) => Some(callback(inner, req, id, token)),
        (method, ["webhooks", app, token, rest @ ..]) => {
            let unknown = Reply::error(404, "Unknown Webhook", 10015);
            if app.parse::<u64>().ok() != Some(inner.cfg.application_id) {
                return Some(unknown);
            }
            match inner.interactions.get(*token) {
                Some(state) if state.acked => webhook(inner, req, method, token, rest),
                _ => Some(unknown),
            }
        }
        _ => None,
    }
}

fn callback(inner: &mut Inner, req: &Req, id: &str, token: &str) -> Reply {
    let Some(state) = inner.interactions.get(token) else {
        return Reply::error(404, "Unknown interaction", 10062);
    };
    if id.parse::<u64>().ok() != Some(state.id) {
        return Reply::error(404, "Unknown interaction", 10062);
    }
    if state.acked {
        return Reply::error(400, "Interaction has already been acknowledged.", 40060);
    }
    let (iid, ch, component_message) = (state.id, state.channel_id, state.message_id);
    let kind = req.body_field("type").and_then(Value::as_u64).unwrap_or(0);
    let data = req.body_field("data");
    let original = match kind {
        1 | 8 | 9 | 10 | 12 => None,
        4 => match create_bot_message(inner, ch, data, req.files, Some(iid), false) {
            Ok(mid) => Some(mid),
            Err(reply) => return reply,
        },
        5 => {
            let flags = data
                .and_then(|d| d.get("flags"))
                .and_then(Value::as_u64)
                .unwrap_or(0);
            let body = json!({"content": "", "flags": flags | LOADING});
            match create_bot_message(inner, ch, Some(&body), &[], Some(iid), true) {
                Ok(mid) => Some(mid),
                Err(reply) => return reply,
            }
        }
        6 | 7 => {
            let Some(mid) = component_message else {
                return Reply::with(
                    400,
                    json::form_error(
                        "type",
                        "INTERACTION_CALLBACK_TYPE_INVALID",
                        "Invalid callback type for a command interaction",
                    ),
                );
            };
            if kind == 7 {
                let reply = edit_message(inner, ch, mid, data, req.files);
                if reply.status != 200 {
                    return reply;
                }
            }
            Some(mid)
        }
        _ => {
            return Reply::with(
                400,
                json::form_error(
                    "type",
                    "BASE_TYPE_CHOICES",
                    "Value must be one of {1, 4, 5, 6, 7, 8, 9, 10, 12}.",
                ),
            );
        }
    };
    if let Some(mid) = original
        && component_message.is_none()
        && let Some(m) = inner.message_mut(ch, mid)
    {
        m.kind = 20; // CHAT_INPUT_COMMAND response
    }
    if let Some(state) = inner.interactions.get_mut(token) {
        state.acked = true;
        state.original = original;
    }
    Reply::no_content()
}

fn webhook(
    inner: &mut Inner,
    req: &Req,
    method: &str,
    token: &str,
    rest: &[&str],
) -> Option<Reply> {
    let state = &inner.interactions[token];
    let (iid, ch, original) = (state.id, state.channel_id, state.original);
    let reply = match (method, rest) {
        ("POST", []) => {
            // The first follow-up after a deferred (type 5) response replaces the
            // "thinking" message, like Discord does.
            if let Some(mid) = original
                && inner
                    .message(ch, mid)
                    .is_some_and(|m| m.flags & LOADING != 0)
            {
                return Some(finish_loading(inner, ch, mid, req));
            }
            match create_bot_message(inner, ch, req.body, req.files, Some(iid), false) {
                Ok(mid) => Reply::ok(json::message(
                    inner,
                    inner.message(ch, mid).expect("stored"),
                    true,
                )),
                Err(reply) => reply,
            }
        }
        (method, ["messages", which]) => {
            let target = if *which == "@original" {
                original
            } else {
                which.parse::<u64>().ok()
            };
            let target = target.filter(|mid| {
                let m = inner.message(ch, *mid);
                m.is_some_and(|m| m.interaction_id == Some(iid) || Some(*mid) == original)
            });
            let Some(mid) = target else {
                return Some(Reply::unknown_message());
            };
            match method {
                "GET" => Reply::ok(json::message(
                    inner,
                    inner.message(ch, mid).expect("checked"),
                    true,
                )),
                "PATCH" => finish_loading(inner, ch, mid, req),
                "DELETE" => {
                    let reply = delete_message(inner, ch, mid);
                    if Some(mid) == original && reply.status == 204 {
                        inner.interactions.get_mut(token).expect("exists").original = None;
                    }
                    reply
                }
                _ => return None,
            }
        }
        _ => return None,
    };
    Some(reply)
}

/// Edits a response message, clearing the LOADING flag of a deferred response.
fn finish_loading(inner: &mut Inner, ch: u64, mid: u64, req: &Req) -> Reply {
    let was_loading = inner
        .message(ch, mid)
        .is_some_and(|m| m.flags & LOADING != 0);
    if was_loading && let Some(m) = inner.message_mut(ch, mid) {
        m.flags &= !LOADING;
    }
    let reply = edit_message(inner, ch, mid, req.body, req.files);
    if reply.status != 200
        && was_loading
        && let Some(m) = inner.message_mut(ch, mid)
    {
        m.flags |= LOADING;
    }
    reply
}
