//! REST entry point: records every request, applies scripted faults and auth,
//! routes `/api/v10/...`; plus the attachment "CDN".

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::json;
use super::state::{Inner, Shared, now_ms};
use super::{
    MultipartFile, RecordedRequest, commands, guild_rest, interactions, messages, multipart,
    route_matches,
};

/// A computed answer.
pub(super) struct Reply {
    pub status: u16,
    pub body: Option<Value>,
    pub headers: Vec<(String, String)>,
}

impl Reply {
    pub(super) fn ok(body: Value) -> Reply {
        Reply::with(200, body)
    }
    pub(super) fn with(status: u16, body: Value) -> Reply {
        Reply {
            status,
            body: Some(body),
            headers: Vec::new(),
        }
    }
    pub(super) fn no_content() -> Reply {
        Reply {
            status: 204,
            body: None,
            headers: Vec::new(),
        }
    }
    pub(super) fn error(status: u16, message: &str, code: u64) -> Reply {
        Reply::with(status, json::error(message, code))
    }
    pub(super) fn unknown_message() -> Reply {
        Reply::error(404, "Unknown Message", 10008)
    }
    pub(super) fn unknown_channel() -> Reply {
        Reply::error(404, "Unknown Channel", 10003)
    }
    fn route_not_found() -> Reply {
        Reply::error(404, "404: Not Found", 0)
    }
}

/// A parsed request, as the route handlers see it.
pub(super) struct Req<'a> {
    pub method: &'a str,
    pub segs: Vec<&'a str>,
    pub query: Option<&'a str>,
    pub body: Option<&'a Value>,
    pub files: &'a [MultipartFile],
}

impl Req<'_> {
    pub(super) fn body_field(&self, key: &str) -> Option<&Value> {
        self.body.and_then(|b| b.get(key))
    }
    pub(super) fn query_param(&self, name: &str) -> Option<&str> {
        self.query?.split('&').find_map(|kv| {
            let (k, v) = kv.split_once('=')?;
            (k == name).then_some(v)
        })
    }
}

pub(super) async fn handle(
    State(shared): State<Arc<Shared>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let full_path = uri.path().to_string();
    let api_path = full_path.strip_prefix("/api/v10").map(str::to_string);
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let (json_body, files) = match multipart::parse(content_type, &body) {
        Some(parts) => {
            let payload = parts.iter().find(|p| p.field == "payload_json");
            let payload = payload.and_then(|p| serde_json::from_slice(&p.data).ok());
            (
                payload,
                parts.into_iter().filter(|p| p.filename.is_some()).collect(),
            )
        }
        None => (serde_json::from_slice(&body).ok(), Vec::new()),
    };
    let mut rec = RecordedRequest {
        method: method.as_str().to_string(),
        path: api_path.clone().unwrap_or(full_path),
        query: uri.query().map(str::to_string),
        authorization: headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string),
        body: json_body,
        files,
        status: 0,
        known_route: true,
        at: Instant::now(),
    };
    let (reply, delay) = {
        let mut inner = shared.lock();
        let (reply, delay, known) = if api_path.is_some() {
            answer(&mut inner, &rec)
        } else {
            (Reply::route_not_found(), Duration::ZERO, false)
        };
        rec.status = reply.status;
        rec.known_route = known;
        inner.requests.push(rec);
        (reply, delay)
    };
    shared.notify();
    if !delay.is_zero() {
        tokio::time::sleep(delay).await;
    }
    into_response(reply)
}

fn into_response(reply: Reply) -> Response {
    let status = StatusCode::from_u16(reply.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut response = match reply.body {
        Some(body) if reply.status != 204 => (status, axum::Json(body)).into_response(),
        _ => status.into_response(),
    };
    let reset = Duration::from_millis(now_ms()).as_secs_f64() + 1.0;
    let mut all = vec![
        ("x-ratelimit-limit".to_string(), "5".to_string()),
        ("x-ratelimit-remaining".to_string(), "4".to_string()),
        ("x-ratelimit-reset".to_string(), format!("{reset:.3}")),
        ("x-ratelimit-reset-after".to_string(), "1.000".to_string()),
        ("x-ratelimit-bucket".to_string(), "fake-bucket".to_string()),
    ];
    all.extend(reply.headers);
    for (k, v) in all {
        if let (Ok(k), Ok(v)) = (HeaderName::try_from(k), HeaderValue::try_from(v)) {
            response.headers_mut().insert(k, v);
        }
    }
    response
}

/// Faults, auth, then routing. Returns `(reply, delay, route_known)`.
fn answer(inner: &mut Inner, rec: &RecordedRequest) -> (Reply, Duration, bool) {
    if let Some(i) = inner
        .faults
        .iter()
        .position(|f| f.pattern == "*" || route_matches(&f.pattern, &rec.method, &rec.path))
    {
        let fault = &mut inner.faults[i];
        fault.remaining -= 1;
        let reply = Reply {
            status: fault.status,
            body: Some(fault.body.clone()),
            headers: fault.headers.clone(),
        };
        if fault.rate_limit {
            inner.rate_limited += 1;
        }
        if fault.remaining == 0 {
            inner.faults.remove(i);
        }
        return (reply, Duration::ZERO, true);
    }
    let segs: Vec<&str> = rec.path.trim_matches('/').split('/').collect();
    // Unauthenticated in real Discord: GET /gateway, interaction callbacks, webhooks.
    let exempt = matches!(
        segs.as_slice(),
        ["gateway"] | ["interactions" | "webhooks", ..]
    );
    let expected = format!("Bot {}", inner.cfg.valid_token);
    if !exempt && rec.authorization.as_deref() != Some(expected.as_str()) {
        return (
            Reply::error(401, "401: Unauthorized", 0),
            Duration::ZERO,
            true,
        );
    }
    let req = Req {
        method: &rec.method,
        segs,
        query: rec.query.as_deref(),
        body: rec.body.as_ref(),
        files: &rec.files,
    };
    let mut delay = Duration::ZERO;
    let reply = match (req.method, req.segs.as_slice()) {
        ("GET", ["gateway"]) => gateway(inner, false),
        ("GET", ["gateway", "bot"]) => gateway(inner, true),
        ("GET", ["users", "@me"]) => Reply::ok(json::current_user(inner)),
        ("GET", ["users", id]) => match id.parse::<u64>() {
            Ok(id) if id == inner.cfg.bot_user_id || inner.users.contains_key(&id) => {
                Reply::ok(json::user(inner, id))
            }
            _ => Reply::error(404, "Unknown User", 10013),
        },
        ("POST", ["users", "@me", "channels"]) => {
            match req.body_field("recipient_id").and_then(json::parse_id) {
                Some(user) => {
                    let channel = inner.dm_channel(user);
                    Reply::ok(json::dm_channel(inner, channel))
                }
                None => Reply::with(
                    400,
                    json::form_error(
                        "recipient_id",
                        "BASE_TYPE_REQUIRED",
                        "This field is required",
                    ),
                ),
            }
        }
        ("GET", ["oauth2", "applications", "@me"] | ["applications", "@me"]) => {
            delay = inner.cfg.owner_delay;
            Reply::ok(json::app_info(inner))
        }
        (_, ["applications", app, "commands", rest @ ..]) => {
            commands::route(inner, &req, app, None, rest)
        }
        (_, ["applications", app, "guilds", guild, "commands", rest @ ..]) => {
            commands::route(inner, &req, app, Some(guild), rest)
        }
        (_, ["guilds", ..]) | ("GET", ["users", "@me", "guilds"]) => {
            match guild_rest::route(inner, &req) {
                Some(reply) => reply,
                None => return (Reply::route_not_found(), delay, false),
            }
        }
        (_, ["channels", ..]) => match messages::route(inner, &req) {
            Some(reply) => reply,
            None => return (Reply::route_not_found(), delay, false),
        },
        (_, ["interactions" | "webhooks", ..]) => match interactions::route(inner, &req) {
            Some(reply) => reply,
            None => return (Reply::route_not_found(), delay, false),
        },
        _ => return (Reply::route_not_found(), delay, false),
    };
    (reply, delay, true)
}

fn gateway(inner: &mut Inner, bot: bool) -> Reply {
    let left = if bot {
        &mut inner.gateway_bot_503_left
    } else {
        &mut inner.gateway_503_left
    };
    if *left > 0 {
        *left -= 1;
        return Reply::error(503, "Service Unavailable", 0);
    }
    let url = inner.ws_url();
    if !bot {
        return Reply::ok(json!({ "url": url }));
    }
    Reply::ok(json!({
        "url": url,
        "shards": 1,
        "session_start_limit": {"total": 1000, "remaining": 999, "reset_after": 14_400_000, "max_concurrency": 1},
    }))
}

/// `GET /attachments/{id}/{name}`: bytes of an injected or uploaded attachment.
pub(super) async fn attachment(
    State(shared): State<Arc<Shared>>,
    Path((id, _name)): Path<(u64, String)>,
) -> Response {
    let inner = shared.lock();
    match inner.files.get(&id) {
        Some(file) => {
            let mut response = Response::new(Body::from(file.data.clone()));
            if let Ok(ct) = HeaderValue::try_from(file.content_type.as_str()) {
                response.headers_mut().insert(header::CONTENT_TYPE, ct);
            }
            response
        }
        None => StatusCode::NOT_FOUND.into_response(),
    }
}
