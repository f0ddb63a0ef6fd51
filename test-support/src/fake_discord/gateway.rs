//! The gateway websocket (`/gateway`): HELLO, IDENTIFY → READY, heartbeats,
//! RESUME with replay, plus the test-side controls (drop, op 7, op 9, close codes).

use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::{RawQuery, State};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::guild_json;
use super::json::{self, sid};
use super::state::{ConnCmd, ConnHandle, INTENT_GUILDS, Inner, Session, Shared};

pub(super) async fn upgrade(
    State(shared): State<Arc<Shared>>,
    RawQuery(query): RawQuery,
    ws: WebSocketUpgrade,
) -> Response {
    {
        let mut inner = shared.lock();
        if inner.refuse_gateway {
            inner.gateway.refused += 1;
            drop(inner);
            shared.notify();
            return axum::http::StatusCode::SERVICE_UNAVAILABLE.into_response();
        }
        let since_start = inner.started.elapsed();
        inner.gateway.connections.push(query.unwrap_or_default());
        inner.gateway.connected_at.push(since_start);
    }
    shared.notify();
    ws.on_upgrade(move |socket| connection(shared, socket))
}

pub(super) fn close_reason(code: u16) -> &'static str {
    match code {
        4001 => "Unknown opcode.",
        4002 => "Error while decoding payload.",
        4003 => "Not authenticated.",
        4004 => "Authentication failed.",
        4005 => "Already authenticated.",
        4007 => "Invalid seq.",
        4013 => "Invalid intent(s).",
        4014 => "Disallowed intent(s).",
        _ => "",
    }
}

/// One websocket connection: its handle (for the session) and its session, once any.
struct Conn {
    shared: Arc<Shared>,
    handle: ConnHandle,
    session: Option<String>,
}

async fn connection(shared: Arc<Shared>, mut ws: WebSocket) {
    let (tx, mut rx) = mpsc::unbounded_channel();
    let (id, interval) = {
        let mut inner = shared.lock();
        (inner.next_conn_id(), inner.cfg.heartbeat_interval_ms)
    };
    let hello = json!({"op": 10, "s": null, "t": null, "d": {"heartbeat_interval": interval}});
    let mut conn = Conn {
        shared: shared.clone(),
        handle: ConnHandle { id, tx },
        session: None,
    };
    if ws
        .send(Message::Text(hello.to_string().into()))
        .await
        .is_err()
    {
        return;
    }
    // Once a close frame went either way, keep reading (so the close handshake
    // completes) but no longer than this deadline.
    let mut closing: Option<Instant> = None;
    loop {
        let deadline = closing.unwrap_or_else(|| Instant::now() + Duration::from_secs(3600));
        tokio::select! {
            () = shared.cancel.cancelled() => break,
            () = tokio::time::sleep_until(deadline), if closing.is_some() => break,
            cmd = rx.recv() => match cmd {
                Some(ConnCmd::Send(text)) if closing.is_none() => {
                    if ws.send(Message::Text(text.into())).await.is_err() {
                        break;
                    }
                }
                Some(ConnCmd::Close(code, reason)) if closing.is_none() => {
                    shared.lock().gateway.closes_sent.push(code);
                    shared.notify();
                    let frame = CloseFrame { code, reason: reason.into() };
                    let _ = ws.send(Message::Close(Some(frame))).await;
                    closing = Some(Instant::now() + Duration::from_secs(1));
                }
                Some(ConnCmd::Send(_) | ConnCmd::Close(..)) => {}
                Some(ConnCmd::Resume(d)) => {
                    conn.resume(&mut shared.lock(), d);
                    shared.notify();
                }
                Some(ConnCmd::Drop) | None => break,
            },
            msg = ws.recv() => match msg {
                Some(Ok(Message::Text(text))) if closing.is_none() => conn.on_frame(text.as_str()),
                Some(Ok(Message::Close(frame))) => {
                    shared.lock().gateway.client_closes.push(frame.map(|f| f.code));
                    shared.notify();
                    if closing.is_some() {
                        break;
                    }
                    closing = Some(Instant::now() + Duration::from_secs(1));
                }
                Some(Ok(_)) => {}
                Some(Err(_)) | None => break,
            },
        }
    }
    drop(ws); // abrupt: no close frame unless one was sent above
    {
        let mut inner = shared.lock();
        if let Some(session) = conn.session.and_then(|s| inner.sessions.get_mut(&s))
            && session.conn.as_ref().is_some_and(|c| c.id == id)
        {
            session.conn = None;
        }
    }
    shared.notify();
}

impl Conn {
    #[allow(clippy::needless_pass_by_value)] // callers build `frame` in place with `json!`
    fn send(&self, frame: Value) {
        let _ = self.handle.tx.send(ConnCmd::Send(frame.to_string()));
    }

    fn close(&self, code: u16) {
        let _ = self
            .handle
            .tx
            .send(ConnCmd::Close(code, close_reason(code).to_string()));
    }

    fn on_frame(&mut self, text: &str) {
        let shared = self.shared.clone();
        let mut inner = shared.lock();
        let Ok(frame) = serde_json::from_str::<Value>(text) else {
            self.close(4002);
            return;
        };
        let d = frame.get("d").cloned().unwrap_or(Value::Null);
        match frame.get("op").and_then(Value::as_u64) {
            Some(1) => {
                inner.gateway.heartbeats += 1;
                if inner.ack_heartbeats && inner.zombie_conn != Some(self.handle.id) {
                    self.send(json!({"op": 11, "s": null, "t": null, "d": null}));
                }
            }
            Some(2) => self.identify(&mut inner, d),
            Some(6) => {
                inner.gateway.resumes.push(d.clone());
                if inner.hold_resumes {
                    inner.parked_resumes.push((self.handle.clone(), d));
                } else {
                    self.resume(&mut inner, d);
                }
            }
            Some(op @ (3 | 4 | 8 | 31)) => {
                inner.gateway.other_frames.push(frame);
                if self.session.is_none() && op != 4 {
                    self.close(4003);
                }
            }
            _ => {
                inner.gateway.other_frames.push(frame);
                self.close(4001);
            }
        }
        drop(inner);
        shared.notify();
    }

    fn token_ok(inner: &Inner, d: &Value) -> bool {
        let token = d.get("token").and_then(Value::as_str).unwrap_or("");
        token.strip_prefix("Bot ").unwrap_or(token) == inner.cfg.valid_token
    }

    #[allow(clippy::needless_pass_by_value)] // `d` comes straight off the wire, owned
    fn identify(&mut self, inner: &mut Inner, d: Value) {
        inner.gateway.identifies.push(d.clone());
        if self.session.is_some() {
            return self.close(4005);
        }
        if !Self::token_ok(inner, &d) {
            return self.close(4004);
        }
        if let Some(code) = inner.close_on_identify {
            return self.close(code);
        }
        let session_id = format!("fake{:x}{:04x}", inner.snowflake(), self.handle.id);
        let session = Session {
            seq: 0,
            log: Vec::new(),
            conn: Some(self.handle.clone()),
            intents: d.get("intents").and_then(Value::as_u64).unwrap_or(0),
        };
        inner.sessions.insert(session_id.clone(), session);
        inner.current_session = Some(session_id.clone());
        inner.gateway.sessions.push(session_id.clone());
        self.session = Some(session_id.clone());
        let guilds: Vec<u64> = inner.guilds.keys().copied().collect();
        let unavailable: Vec<Value> = guilds
            .iter()
            .map(|g| json!({"id": sid(*g), "unavailable": true}))
            .collect();
        let mut ready = json!({
            "v": 10,
            "user": json::current_user(inner),
            "guilds": unavailable,
            "session_id": session_id,
            "resume_gateway_url": inner.ws_url(),
            "session_type": "normal",
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "geo_ordered_rtc_regions": ["fake"],
            "application": {"id": sid(inner.cfg.application_id), "flags": 0},
            "_trace": ["fake-discord"],
        });
        if let Some(shard) = d.get("shard") {
            ready["shard"] = shard.clone();
        }
        inner.dispatch("READY", ready, 0);
        // Like Discord, each guild of READY's list follows as a GUILD_CREATE.
        for g in guilds {
            let d = guild_json::guild_create(inner, g);
            inner.dispatch("GUILD_CREATE", d, INTENT_GUILDS);
        }
    }

    #[allow(clippy::needless_pass_by_value)] // `d` comes straight off the wire, owned
    fn resume(&mut self, inner: &mut Inner, d: Value) {
        if !Self::token_ok(inner, &d) {
            return self.close(4004);
        }
        let session_id = d
            .get("session_id")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let seq = d.get("seq").and_then(Value::as_u64).unwrap_or(0);
        let Some(session) = inner.sessions.get_mut(&session_id) else {
            return self.send(json!({"op": 9, "s": null, "t": null, "d": false}));
        };
        if seq > session.seq {
            return self.close(4007);
        }
        if let Some(old) = session.conn.replace(self.handle.clone())
            && old.id != self.handle.id
        {
            let _ = old.tx.send(ConnCmd::Drop);
        }
        let mut replayed = 0;
        for (_, frame) in session.log.iter().filter(|(s, _)| *s > seq) {
            self.send(frame.clone());
            replayed += 1;
        }
        inner.gateway.replayed += replayed;
        inner.current_session = Some(session_id.clone());
        self.session = Some(session_id);
        inner.dispatch("RESUMED", json!({"_trace": ["fake-discord"]}), 0);
    }
}
