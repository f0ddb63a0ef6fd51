//! `webhooks::start`, the way the daemon starts the server (WHK-1): off without a port, off
//! with one error line without a secret, else on 127.0.0.1 only; and the secret never shows
//! in `Debug`.

use std::sync::Arc;

use ollim_bot::{
    config::{WebhookSecret, WebhookSetting},
    webhooks::{SpecStore, WebhookServer, start},
};

use super::harness::{RecordingSink, SECRET};

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[tokio::test]
async fn no_port_or_no_secret_means_no_server_whk_1() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(SpecStore::new(dir.path()));
    let sink = Arc::new(RecordingSink::default());
    let off = start(&WebhookSetting::Off, store.clone(), sink.clone(), async {}).await;
    assert!(off.unwrap().is_none());
    let port = free_port();
    let missing = WebhookSetting::MissingSecret { port };
    assert!(
        start(&missing, store, sink, async {})
            .await
            .unwrap()
            .is_none()
    );
    assert!(
        tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_err(),
        "port {port} answers although the secret is missing"
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
        &setting,
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
