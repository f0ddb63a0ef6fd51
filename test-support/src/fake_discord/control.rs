//! Test-side gateway controls (drop, op 7, op 9, close codes, resume gate) and
//! gateway observations.

use std::time::Duration;

use serde_json::{Value, json};

use super::gateway::close_reason;
use super::state::{ConnCmd, ConnHandle, Inner};
use super::{FakeDiscord, GatewayStats};

/// Test-side gateway controls and observations.
impl FakeDiscord {
    /// Waits until a session has a live connection (READY or RESUMED sent). Panics on timeout.
    pub async fn wait_for_ready(&self) {
        let timeout = self.cfg.wait_timeout;
        assert!(
            self.try_wait_for_ready(timeout).await,
            "fake Discord: bot not connected within {timeout:?}; gateway: {:?}",
            self.gateway_stats()
        );
    }

    pub async fn try_wait_for_ready(&self, timeout: Duration) -> bool {
        self.wait_state(timeout, |i| i.connected().then_some(()))
            .await
            .is_some()
    }

    pub fn is_connected(&self) -> bool {
        self.shared.lock().connected()
    }

    pub fn identify_count(&self) -> usize {
        self.shared.lock().gateway.identifies.len()
    }

    pub fn resume_count(&self) -> usize {
        self.shared.lock().gateway.resumes.len()
    }

    pub fn gateway_stats(&self) -> GatewayStats {
        self.shared.lock().gateway.clone()
    }

    /// Waits until `pred` holds for the gateway stats. Panics on timeout.
    pub async fn wait_for_gateway(
        &self,
        mut pred: impl FnMut(&GatewayStats) -> bool,
    ) -> GatewayStats {
        let timeout = self.cfg.wait_timeout;
        match self
            .wait_state(timeout, |i| pred(&i.gateway).then(|| i.gateway.clone()))
            .await
        {
            Some(stats) => stats,
            None => panic!(
                "fake Discord: gateway condition not met within {timeout:?}: {:?}",
                self.gateway_stats()
            ),
        }
    }

    pub fn current_session_id(&self) -> Option<String> {
        self.shared.lock().current_session.clone()
    }

    /// Every dispatch frame (`{op: 0, s, t, d}`) of every session, in order.
    pub fn dispatch_log(&self) -> Vec<Value> {
        let inner = self.shared.lock();
        let sessions = inner
            .gateway
            .sessions
            .iter()
            .filter_map(|id| inner.sessions.get(id));
        sessions
            .flat_map(|s| s.log.iter().map(|(_, f)| f.clone()))
            .collect()
    }

    /// Dispatches an arbitrary event on the current session; returns its `s`.
    pub async fn dispatch_raw(&self, t: &str, d: Value) -> u64 {
        self.wait_state(self.cfg.wait_timeout, |i| {
            i.current_session.is_some().then_some(())
        })
        .await;
        let seq = self.shared.lock().dispatch(t, d, 0);
        self.shared.notify();
        seq.expect("fake Discord: dispatch_raw: no gateway session")
    }

    async fn live_conn(&self, what: &str) -> ConnHandle {
        let timeout = self.cfg.wait_timeout;
        match self.wait_state(timeout, Inner::current_conn).await {
            Some(conn) => conn,
            None => panic!("fake Discord: {what}: bot not connected within {timeout:?}"),
        }
    }

    /// Closes the TCP connection without a close frame; serenity then RESUMEs.
    /// Events injected until then are buffered and replayed.
    pub async fn drop_connection(&self) {
        self.live_conn("drop_connection").await;
        let conn = self.shared.lock().take_conn();
        if let Some(conn) = conn {
            let _ = conn.tx.send(ConnCmd::Drop);
        }
        self.shared.notify();
    }

    /// While `out`, Discord is out of reach: the live connection is dropped and every new
    /// websocket connection refused (503); back, connections are taken again.
    pub async fn gateway_out_of_reach(&self, out: bool) {
        self.shared.lock().refuse_gateway = out;
        if out {
            self.drop_connection().await;
        }
        self.shared.notify();
    }

    /// Sends op 7 RECONNECT (serenity opens a new connection and RESUMEs).
    pub async fn send_reconnect(&self) {
        self.live_conn("send_reconnect").await;
        self.shared
            .lock()
            .send_op(json!({"op": 7, "s": null, "t": null, "d": null}));
    }

    /// Sends op 9 INVALID SESSION. Not resumable: the session is forgotten (a RESUME
    /// gets op 9 `false`) and serenity re-IDENTIFYs — after a ~5 s shard restart.
    pub async fn invalid_session(&self, resumable: bool) {
        self.live_conn("invalid_session").await;
        let mut inner = self.shared.lock();
        inner.send_op(json!({"op": 9, "s": null, "t": null, "d": resumable}));
        if !resumable && let Some(id) = inner.current_session.take() {
            inner.sessions.remove(&id);
        }
        drop(inner);
        self.shared.notify();
    }

    /// Closes the live connection with a close frame carrying `code`.
    pub async fn close_connection(&self, code: u16) {
        let conn = self.live_conn("close_connection").await;
        let _ = conn
            .tx
            .send(ConnCmd::Close(code, close_reason(code).to_string()));
    }

    /// While held, RESUMEs are recorded but left unanswered (the client waits);
    /// releasing processes the parked ones. Lets a test inject events
    /// deterministically "while the bot is disconnected".
    pub fn hold_resumes(&self, hold: bool) {
        let mut inner = self.shared.lock();
        inner.hold_resumes = hold;
        if !hold {
            for (conn, d) in inner.parked_resumes.drain(..) {
                let _ = conn.tx.send(ConnCmd::Resume(d));
            }
        }
    }

    /// Whether heartbeats get an op 11 ACK (default true; false simulates a zombie link).
    pub fn set_heartbeat_ack(&self, ack: bool) {
        self.shared.lock().ack_heartbeats = ack;
    }

    /// Turns the live connection into a zombie: it stays open, but its heartbeats get no
    /// ACK and dispatches are no longer sent on it (they stay in the session log for a
    /// RESUME replay). A new connection is healthy again.
    pub async fn zombie_connection(&self) {
        let conn = self.live_conn("zombie_connection").await;
        self.shared.lock().zombie_conn = Some(conn.id);
    }

    /// Changes `close_on_identify` at runtime.
    pub fn set_close_on_identify(&self, code: Option<u16>) {
        self.shared.lock().close_on_identify = code;
    }
}
