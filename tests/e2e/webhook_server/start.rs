//! `webhooks::start`, the way the daemon starts the server (WHK-1): off without a port, off
//! with one error line without a secret, else on 127.0.0.1 only; and the secret never shows
//! in `Debug`.

use std::sync::Arc;

use ollim_bot::{
    config::{DEFAULT_WEBHOOK_BIND, WebhookSecret, WebhookSetting},
    webhooks::{SpecStore, WebhookServer, start},
};

use super::harness::{RecordingSink, SECRET};

#[tokio::test]
async fn no_port_or_no_secret_means_no_server_whk_1() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(SpecStore::new(dir.path()));
    let sink = Arc::new(RecordingSink::default());
    let off = start(
        (&WebhookSetting::Off, DEFAULT_WEBHOOK_BIND),
        store.clone(),
        sink.clone(),
        async {},
    )
    .await;
    assert!(off.unwrap().is_none());
    // The port is held here: had `start` tried to serve on it, the bind would fail
    // (AddrInUse) and `start` return that error instead of `Ok(None)`.
    let held = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = held.local_addr().unwrap().port();
    let missing = WebhookSetting::MissingSecret { port };
    let started = start((&missing, DEFAULT_WEBHOOK_BIND), store, sink, async {}).await;
    assert!(
        started.as_ref().is_ok_and(Option::is_none),
        "without a secret: {started:?}"
    );
}

#[tokio::test]
async fn a_port_and_a_secret_serve_on_loopback_until_shutdown_whk_1() {
    let dir = tempfile::tempdir().unwrap();
    let setting = WebhookSetting::On {
        port: 0,
        secret: WebhookSecret::new(SECRET),
    };
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let running = start(
        (&setting, DEFAULT_WEBHOOK_BIND),
        Arc::new(SpecStore::new(dir.path())),
        Arc::new(RecordingSink::default()),
        async {
            let _ = stopped.await;
        },
    )
    .await
    .unwrap()
    .expect("a running server");
    assert!(running.addr.ip().is_loopback(), "{}", running.addr);
    assert_ne!(running.addr.port(), 0);
    let status = reqwest::Client::new()
        .post(format!("http://{}/hook/anything", running.addr))
        .send()
        .await
        .unwrap()
        .status();
    assert_eq!(status.as_u16(), 401);
    stop.send(()).unwrap();
    running.task.await.unwrap().unwrap();
    assert!(tokio::net::TcpStream::connect(running.addr).await.is_err());
}

#[test]
fn debug_never_shows_the_secret() {
    let server = WebhookServer::new(
        WebhookSecret::new(SECRET),
        Arc::new(SpecStore::new("/tmp/none")),
        Arc::new(RecordingSink::default()),
        2,
    );
    let shown = format!("{server:?}");
    assert!(!shown.contains(SECRET), "{shown}");
    assert!(shown.contains("free_slots: 2"), "{shown}");
}
