//! The fake's request handler: records the request, applies a queued fault, checks the bearer
//! token, and routes to the OAuth endpoints or the Tasks / Calendar / Gmail routes.

use std::sync::Arc;

use axum::body::{Body, to_bytes};
use axum::extract::{Query, Request, State};
use axum::http::{Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::oauth::{self, Answer};
use super::state::{GoogleData, Recorded, Shared};

fn pairs(raw: &str) -> Vec<(String, String)> {
    let uri: axum::http::Uri = format!("/?{raw}").parse().unwrap_or_default();
    Query::<Vec<(String, String)>>::try_from_uri(&uri)
        .map(|q| q.0)
        .unwrap_or_default()
}

fn decode(segment: &str) -> String {
    let bytes = segment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let Ok(b) = u8::from_str_radix(&segment[i + 1..i + 3], 16)
        {
            out.push(b);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn google_error(status: StatusCode, message: &str, reason: &str) -> Answer {
    (
        status,
        Vec::new(),
        json!({"error": {"code": status.as_u16(), "message": message,
            "errors": [{"message": message, "domain": "global", "reason": reason}]}}),
    )
}

fn not_found() -> Answer {
    google_error(StatusCode::NOT_FOUND, "Not Found", "notFound")
}

fn ok(body: Value) -> Answer {
    (StatusCode::OK, Vec::new(), body)
}

pub(super) async fn handle(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    let method = request.method().clone();
    let path = request.uri().path().to_owned();
    let query = pairs(request.uri().query().unwrap_or_default());
    let bearer = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::to_owned);
    let bytes = to_bytes(request.into_body(), 1 << 20)
        .await
        .unwrap_or_default();
    let body = String::from_utf8_lossy(&bytes).into_owned();
    let (status, headers, json) = {
        let mut data = shared.lock();
        let answer = answer(&mut data, &method, &path, &query, bearer.as_deref(), &body);
        data.requests.push(Recorded {
            method: method.to_string(),
            path: path.clone(),
            query,
            bearer,
            body,
            status: answer.0.as_u16(),
        });
        answer
    };
    let mut response = if json.is_null() {
        Body::empty().into_response()
    } else {
        axum::Json(json).into_response()
    };
    *response.status_mut() = status;
    for (name, value) in headers {
        if let (Ok(name), Ok(value)) = (
            header::HeaderName::from_bytes(name.as_bytes()),
            header::HeaderValue::from_str(&value),
        ) {
            response.headers_mut().insert(name, value);
        }
    }
    response
}

fn answer(
    data: &mut GoogleData,
    method: &Method,
    path: &str,
    query: &[(String, String)],
    bearer: Option<&str>,
    body: &str,
) -> Answer {
    if let Some(fault) = data.take_fault(path) {
        let headers = fault
            .retry_after
            .map(|v| vec![("retry-after".to_owned(), v)])
            .unwrap_or_default();
        return (
            StatusCode::from_u16(fault.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
            headers,
            fault.body,
        );
    }
    match path {
        "/o/oauth2/auth" => return oauth::authorize(data, query),
        "/token" => return oauth::token(data, &pairs(body)),
        _ => {}
    }
    if !bearer.is_some_and(|b| data.access.contains(b)) {
        return google_error(
            StatusCode::UNAUTHORIZED,
            "Request had invalid authentication credentials.",
            "authError",
        );
    }
    let json: Value = serde_json::from_str(body).unwrap_or(Value::Null);
    let segments: Vec<String> = path.trim_matches('/').split('/').map(decode).collect();
    let parts: Vec<&str> = segments.iter().map(String::as_str).collect();
    match parts.as_slice() {
        ["tasks", "v1", "lists", list, "tasks"] => tasks(data, method, list, None, query, json),
        ["tasks", "v1", "lists", list, "tasks", id] => {
            tasks(data, method, list, Some(id), query, json)
        }
        ["calendar", "v3", "users", "me", "calendarList"] => {
            let items = data.calendar_list.clone();
            page(data, &items, query, "items")
        }
        ["calendar", "v3", "calendars", cal, "events"] => {
            events(data, method, cal, None, query, json)
        }
        ["calendar", "v3", "calendars", cal, "events", id] => {
            events(data, method, cal, Some(id), query, json)
        }
        ["gmail", "v1", "users", "me", "labels"] => ok(json!({"labels": data.labels})),
        ["gmail", "v1", "users", "me", "messages"] => gmail_list(data, query),
        ["gmail", "v1", "users", "me", "messages", id] => {
            match data.messages.iter().find(|m| m["id"] == *id) {
                Some(message) => ok(message.clone()),
                None => not_found(),
            }
        }
        _ => not_found(),
    }
}

/// One page of `items` (page token = offset), at most `page_size` (or `maxResults`).
fn page(data: &GoogleData, items: &[Value], query: &[(String, String)], key: &str) -> Answer {
    let get = |name: &str| {
        query
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    let start: usize = get("pageToken").and_then(|t| t.parse().ok()).unwrap_or(0);
    let max: usize = get("maxResults")
        .and_then(|m| m.parse().ok())
        .unwrap_or(usize::MAX);
    let size = data.page_size.min(max).max(1);
    let chunk: Vec<Value> = items.iter().skip(start).take(size).cloned().collect();
    let mut body = json!({ key: chunk });
    if start + size < items.len() {
        body["nextPageToken"] = json!((start + size).to_string());
    }
    ok(body)
}

fn merge(target: &mut Value, patch: Value) {
    if let (Some(target), Value::Object(patch)) = (target.as_object_mut(), patch) {
        target.extend(patch);
    }
}

fn tasks(
    data: &mut GoogleData,
    method: &Method,
    list: &str,
    id: Option<&str>,
    query: &[(String, String)],
    json: Value,
) -> Answer {
    if !data.task_lists.contains_key(list) {
        return not_found();
    }
    let show_all = query
        .iter()
        .any(|(k, v)| k == "showCompleted" && v == "true");
    match (method.as_str(), id) {
        ("GET", None) => {
            let items: Vec<Value> = data.task_lists[list]
                .iter()
                .filter(|t| show_all || t["status"] != "completed")
                .cloned()
                .collect();
            page(data, &items, query, "items")
        }
        ("POST", None) => {
            let mut task = json;
            task["id"] = json!(data.next_id("task-"));
            task["status"] = json!("needsAction");
            data.tasks(list).push(task.clone());
            ok(task)
        }
        (method, Some(id)) => {
            let Some(index) = data.task_lists[list].iter().position(|t| t["id"] == id) else {
                return not_found();
            };
            let tasks = data.tasks(list);
            match method {
                "GET" => ok(tasks[index].clone()),
                "PATCH" => {
                    merge(&mut tasks[index], json);
                    ok(tasks[index].clone())
                }
                "DELETE" => {
                    tasks.remove(index);
                    (StatusCode::NO_CONTENT, Vec::new(), Value::Null)
                }
                _ => not_found(),
            }
        }
        _ => not_found(),
    }
}

fn events(
    data: &mut GoogleData,
    method: &Method,
    calendar: &str,
    id: Option<&str>,
    query: &[(String, String)],
    json: Value,
) -> Answer {
    if !data.calendars.contains_key(calendar) {
        return not_found();
    }
    match (method.as_str(), id) {
        ("GET", None) => {
            let get = |name: &str| {
                query
                    .iter()
                    .find(|(k, _)| k == name)
                    .map(|(_, v)| v.clone())
            };
            let bound =
                |name: &str| get(name).and_then(|v| chrono::DateTime::parse_from_rfc3339(&v).ok());
            let (from, to) = (bound("timeMin"), bound("timeMax"));
            let start_of = |e: &Value| {
                let start = &e["start"];
                start["dateTime"]
                    .as_str()
                    .and_then(|v| chrono::DateTime::parse_from_rfc3339(v).ok())
                    .or_else(|| {
                        let day = start["date"].as_str()?;
                        chrono::DateTime::parse_from_rfc3339(&format!("{day}T00:00:00Z")).ok()
                    })
            };
            let mut items: Vec<Value> = data.calendars[calendar]
                .iter()
                .filter(|e| {
                    let start = start_of(e);
                    start.is_some_and(|s| from.is_none_or(|f| s >= f) && to.is_none_or(|t| s < t))
                })
                .cloned()
                .collect();
            items.sort_by_key(start_of);
            page(data, &items, query, "items")
        }
        ("POST", None) => {
            let mut event = json;
            event["id"] = json!(data.next_id("ev"));
            event["status"] = json!("confirmed");
            data.events(calendar).push(event.clone());
            ok(event)
        }
        (method, Some(id)) => {
            let Some(index) = data.calendars[calendar].iter().position(|e| e["id"] == id) else {
                return not_found();
            };
            let events = data.events(calendar);
            match method {
                "GET" => ok(events[index].clone()),
                "PATCH" => {
                    merge(&mut events[index], json);
                    ok(events[index].clone())
                }
                "DELETE" => {
                    events.remove(index);
                    (StatusCode::NO_CONTENT, Vec::new(), Value::Null)
                }
                _ => not_found(),
            }
        }
        _ => not_found(),
    }
}

/// `is:unread` matches messages labelled `UNREAD`; any other query matches a subject or
/// sender containing it.
fn gmail_list(data: &GoogleData, query: &[(String, String)]) -> Answer {
    let q = query
        .iter()
        .find(|(k, _)| k == "q")
        .map(|(_, v)| v.clone())
        .unwrap_or_default();
    let header = |m: &Value, name: &str| {
        m["payload"]["headers"]
            .as_array()
            .and_then(|hs| hs.iter().find(|h| h["name"] == name))
            .and_then(|h| h["value"].as_str())
            .unwrap_or_default()
            .to_lowercase()
    };
    let items: Vec<Value> = data
        .messages
        .iter()
        .filter(|m| {
            if q == "is:unread" {
                m["labelIds"]
                    .as_array()
                    .is_some_and(|ls| ls.iter().any(|l| l == "UNREAD"))
            } else {
                let q = q.to_lowercase();
                header(m, "Subject").contains(&q) || header(m, "From").contains(&q)
            }
        })
        .map(|m| json!({"id": m["id"], "threadId": m["id"]}))
        .collect();
    let mut answer = page(data, &items, query, "messages");
    if answer.2["messages"].as_array().is_some_and(Vec::is_empty) {
        answer.2 = json!({"resultSizeEstimate": 0});
    }
    answer
}
