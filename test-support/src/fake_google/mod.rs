//! A fake Google on `127.0.0.1:<random port>`: the OAuth authorize and token endpoints, and the
//! routes of Tasks v1, Calendar v3 and Gmail v1 the bot uses, with paging (a small page
//! size), 404s, scripted faults (429 with `Retry-After`, 5xx, 403s), expiring access tokens
//! and revocable refresh tokens.
//!
//! Wiring: [`FakeGoogle::write_credentials`] puts a Desktop-app `credentials.json` whose
//! `auth_uri` / `token_uri` point here into a data dir; `OLLIM_GOOGLE_API_URL` =
//! [`FakeGoogle::base_url`] sends every API call here.
#![allow(dead_code)]

mod api;
mod oauth;
mod state;

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;

use axum::Router;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use state::Shared;
pub use state::{Fault, GoogleData, Recorded};

/// The running fake. Dropping it stops the server.
pub struct FakeGoogle {
    addr: SocketAddr,
    shared: Arc<Shared>,
}

pub const CLIENT_ID: &str = "fake-client.apps.googleusercontent.com";
pub const CLIENT_SECRET: &str = "fake-secret";

impl FakeGoogle {
    /// Binds `127.0.0.1:0` and serves in a task of the current runtime.
    pub async fn start() -> FakeGoogle {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind fake google");
        let addr = listener.local_addr().expect("fake google address");
        let shared = Arc::new(Shared::new());
        let app = Router::new()
            .fallback(api::handle)
            .with_state(shared.clone());
        let stop: CancellationToken = shared.cancel.clone();
        tokio::spawn(async move {
            let served = axum::serve(listener, app).with_graceful_shutdown(stop.cancelled_owned());
            if let Err(err) = served.await {
                eprintln!("fake google failed: {err}");
            }
        });
        FakeGoogle { addr, shared }
    }

    /// `http://127.0.0.1:PORT`, for `OLLIM_GOOGLE_API_URL`.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The `credentials.json` of a Desktop-app client of this fake.
    pub fn credentials(&self) -> Value {
        json!({"installed": {
            "client_id": CLIENT_ID,
            "client_secret": CLIENT_SECRET,
            "project_id": "fake-project",
            "auth_uri": format!("{}/o/oauth2/auth", self.base_url()),
            "token_uri": format!("{}/token", self.base_url()),
            "auth_provider_x509_cert_url": "https://www.googleapis.com/oauth2/v1/certs",
            "redirect_uris": ["http://localhost"],
        }})
    }

    /// Writes `state/credentials.json` under `data_dir`.
    pub fn write_credentials(&self, data_dir: &Path) {
        let state = data_dir.join("state");
        std::fs::create_dir_all(&state).unwrap();
        std::fs::write(
            state.join("credentials.json"),
            serde_json::to_vec_pretty(&self.credentials()).unwrap(),
        )
        .unwrap();
    }

    /// Issues a token pair and writes `state/token.json` as the bot would; `expired` makes
    /// the access token already expired (both in the file and here).
    pub fn connect(&self, data_dir: &Path, expired: bool) -> (String, String) {
        self.write_credentials(data_dir);
        let (access, refresh) = self.shared.lock().issue_pair(!expired);
        let expiry = if expired {
            "2020-01-01T00:00:00Z".to_owned()
        } else {
            (chrono::Utc::now() + chrono::Duration::hours(1)).to_rfc3339()
        };
        let token = json!({
            "token": access, "refresh_token": refresh,
            "token_uri": format!("{}/token", self.base_url()),
            "client_id": CLIENT_ID, "client_secret": CLIENT_SECRET,
            "scopes": ["https://www.googleapis.com/auth/tasks"], "expiry": expiry,
        });
        std::fs::write(
            data_dir.join("state/token.json"),
            serde_json::to_vec_pretty(&token).unwrap(),
        )
        .unwrap();
        (access, refresh)
    }

    /// Edits the fake's data and settings.
    pub fn with<R>(&self, f: impl FnOnce(&mut GoogleData) -> R) -> R {
        f(&mut self.shared.lock())
    }

    /// Revokes a refresh token (and its access tokens): the next refresh gets `invalid_grant`.
    pub fn revoke(&self, refresh: &str) {
        self.shared.lock().revoke(refresh);
    }

    /// Queues a fault for the next request whose path contains `path_part`.
    pub fn fault(&self, fault: Fault) {
        self.shared.lock().faults.push_back(fault);
    }

    /// Every request so far.
    pub fn requests(&self) -> Vec<Recorded> {
        self.shared.lock().requests.clone()
    }

    /// Requests whose path contains `part`.
    pub fn requests_to(&self, part: &str) -> Vec<Recorded> {
        self.requests()
            .into_iter()
            .filter(|r| r.path.contains(part))
            .collect()
    }
}

impl Drop for FakeGoogle {
    fn drop(&mut self) {
        self.shared.cancel.cancel();
    }
}
