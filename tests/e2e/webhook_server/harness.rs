//! The server under test: spec files in a temp dir, the real axum edge on 127.0.0.1:0, a
//! sink that records what was accepted, and a real HTTP client.

use std::{net::SocketAddr, sync::Arc};

use ollim_bot::{
    config::WebhookSecret,
    webhooks::{AcceptedHook, HookSink, SpecStore, WebhookServer, serve},
};
use parking_lot::Mutex;
use serde_json::Value;
use tokio::sync::oneshot;

pub(crate) const SECRET: &str = "loopback-secret";

const CI_SPEC: &str = "---\nid: github-ci\nisolated: true\nfields:\n  type: object\n  \
    required: [repo, status]\n  properties:\n    repo: {type: string, maxLength: 200}\n    \
    status: {type: string, enum: [success, failure]}\n    branch: {type: string}\n  \
    additionalProperties: false\n---\nCI for {repo}: {status}\n";
const NOTE_SPEC: &str = "---\nid: note\nfields:\n  type: object\n  properties:\n    \
    note: {type: string, maxLength: 20000}\n---\nRead the note.\n";
const SIGNED_SPEC: &str = "---\nid: deploy\nsignature: hmac-sha256\nfields:\n  type: object\n  \
    properties:\n    env: {type: string, enum: [prod, staging]}\n---\nDeploy finished on {env}.\n";
const BROKEN_SPEC: &str = "---\nid: broken\nfields: [not, a, mapping]\n---\nx\n";

/// Keeps what the server accepted (and so holds their permits until taken).
#[derive(Default)]
pub(crate) struct RecordingSink {
    hooks: Mutex<Vec<AcceptedHook>>,
}

impl HookSink for RecordingSink {
    fn accept(&self, hook: AcceptedHook) {
        self.hooks.lock().push(hook);
    }
}

pub(crate) struct Running {
    pub(crate) addr: SocketAddr,
    pub(crate) sink: Arc<RecordingSink>,
    pub(crate) stop: Option<oneshot::Sender<()>>,
    pub(crate) task: tokio::task::JoinHandle<std::io::Result<()>>,
    pub(crate) http: reqwest::Client,
    pub(crate) dir: tempfile::TempDir,
}

impl Running {
    pub(crate) async fn start(max_in_flight: usize) -> Self {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in [
            ("ci.md", CI_SPEC),
            ("note.md", NOTE_SPEC),
            ("deploy.md", SIGNED_SPEC),
            ("broken.md", BROKEN_SPEC),
        ] {
            std::fs::write(dir.path().join(name), text).unwrap();
        }
        let sink = Arc::new(RecordingSink::default());
        let server = WebhookServer::new(
            WebhookSecret::new(SECRET),
            Arc::new(SpecStore::new(dir.path())),
            sink.clone(),
            max_in_flight,
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(serve(listener, server, async {
            let _ = stopped.await;
        }));
        Self {
            addr,
            sink,
            stop: Some(stop),
            task,
            http: reqwest::Client::new(),
            dir,
        }
    }

    pub(crate) fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    pub(crate) async fn post(
        &self,
        id: &str,
        auth: Option<&str>,
        body: impl Into<reqwest::Body>,
    ) -> (u16, Value) {
        let mut request = self
            .http
            .post(self.url(&format!("/hook/{id}")))
            .header("content-type", "application/json")
            .body(body);
        if let Some(auth) = auth {
            request = request.header("authorization", auth);
        }
        let response = request.send().await.unwrap();
        let status = response.status().as_u16();
        (status, response.json().await.unwrap_or(Value::Null))
    }

    pub(crate) fn take(&self) -> Vec<AcceptedHook> {
        std::mem::take(&mut *self.sink.hooks.lock())
    }
}
