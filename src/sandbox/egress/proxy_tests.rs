use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::*;
use crate::sandbox::egress::{HostRule, ToolReach};

/// A server on a loopback port that answers every HTTP request with the request line it got,
/// and echoes anything after a `PING` line (for tunnels).
async fn origin() -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut buf = vec![0u8; 4096];
                let n = stream.read(&mut buf).await.unwrap_or(0);
                let got = String::from_utf8_lossy(&buf[..n]).to_string();
                if got.starts_with("PING") {
                    let _ = stream.write_all(b"PONG").await;
                    return;
                }
                let line = got.lines().next().unwrap_or_default().to_owned();
                let reply = format!(
                    "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{line}",
                    line.len()
                );
                let _ = stream.write_all(reply.as_bytes()).await;
            });
        }
    });
    port
}

async fn ask(proxy: &Proxy, request: String) -> (UnixStream, String) {
    let mut stream = UnixStream::connect(proxy.socket()).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut buf = vec![0u8; 4096];
    let n = stream.read(&mut buf).await.unwrap();
    (stream, String::from_utf8_lossy(&buf[..n]).to_string())
}

/// Opens a tunnel to `target` through `proxy` and checks that bytes go both ways through it.
async fn assert_tunnel(proxy: &Proxy, target: &str) {
    let (mut stream, answer) = ask(
        proxy,
        format!("CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n\r\n"),
    )
    .await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    stream.write_all(b"PING\n").await.unwrap();
    let mut pong = [0u8; 4];
    stream.read_exact(&mut pong).await.unwrap();
    assert_eq!(&pong, b"PONG");
}

#[tokio::test]
async fn allowed_requests_go_through_in_origin_form_and_others_are_refused_with_the_reason() {
    let port = origin().await;
    let gate = Gate::background(ToolReach::Hosts(Vec::new()));
    gate.add_always([HostRule::parse(&format!("127.0.0.1:{port}")).unwrap()]);
    let proxy = Proxy::start(gate, None).unwrap();
    let (_, answer) = ask(
        &proxy,
        format!("GET http://127.0.0.1:{port}/v1/x?y=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"),
    )
    .await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.ends_with("GET /v1/x?y=1 HTTP/1.1"), "{answer}");
    let (_, refused) = ask(
        &proxy,
        "GET http://example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n".to_owned(),
    )
    .await;
    assert!(refused.starts_with("HTTP/1.1 403"), "{refused}");
    assert!(
        refused.contains("WebFetch(domain:example.com)"),
        "{refused}"
    );
    let (_, other_port) = ask(
        &proxy,
        "CONNECT 127.0.0.1:1 HTTP/1.1\r\nHost: 127.0.0.1:1\r\n\r\n".to_owned(),
    )
    .await;
    assert!(other_port.starts_with("HTTP/1.1 403"), "{other_port}");
    let (_, not_proxy) = ask(&proxy, "GET / HTTP/1.1\r\nHost: x\r\n\r\n".to_owned()).await;
    assert!(not_proxy.starts_with("HTTP/1.1 400"), "{not_proxy}");
}

#[tokio::test]
async fn a_connect_tunnel_carries_bytes_both_ways_and_ends_with_the_proxy() {
    let port = origin().await;
    let gate = Gate::conversation(false);
    let proxy = Proxy::start(gate, None).unwrap();
    assert_tunnel(&proxy, &format!("127.0.0.1:{port}")).await;
    let socket = proxy.socket();
    drop(proxy);
    assert!(!socket.exists(), "its folder goes with it");
}

#[tokio::test]
async fn an_unreachable_host_is_a_bad_gateway() {
    let gate = Gate::conversation(false);
    let proxy = Proxy::start(gate, None).unwrap();
    let (_, answer) = ask(
        &proxy,
        "CONNECT 127.0.0.1:1 HTTP/1.1\r\nHost: 127.0.0.1:1\r\n\r\n".to_owned(),
    )
    .await;
    assert!(answer.starts_with("HTTP/1.1 502"), "{answer}");
}

/// The owner's proxy: records the head of each request, tunnels a CONNECT to the host it
/// names, answers a plain request itself.
async fn owners_proxy() -> (u16, Arc<parking_lot::Mutex<Vec<String>>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let heads = Arc::new(parking_lot::Mutex::new(Vec::new()));
    let seen = Arc::clone(&heads);
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let seen = Arc::clone(&seen);
            tokio::spawn(async move {
                let mut buf = vec![0u8; 4096];
                let n = stream.read(&mut buf).await.unwrap_or(0);
                let head = String::from_utf8_lossy(&buf[..n]).to_string();
                seen.lock().push(head.clone());
                if let Some(target) = head.strip_prefix("CONNECT ") {
                    let target = target
                        .split_whitespace()
                        .next()
                        .unwrap_or_default()
                        .to_owned();
                    let mut origin = tokio::net::TcpStream::connect(target).await.unwrap();
                    stream.write_all(b"HTTP/1.1 200 OK\r\n\r\n").await.unwrap();
                    let _ = tokio::io::copy_bidirectional(&mut stream, &mut origin).await;
                } else {
                    let _ = stream
                        .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 8\r\nConnection: close\r\n\r\nUPSTREAM")
                        .await;
                }
            });
        }
    });
    (port, heads)
}

#[tokio::test]
async fn the_owners_proxy_carries_what_the_gate_allows_with_its_credentials() {
    let origin_port = origin().await;
    let (proxy_port, heads) = owners_proxy().await;
    let upstream = crate::config::UpstreamProxy {
        authority: format!("127.0.0.1:{proxy_port}"),
        credentials: Some("me:secret".to_owned()),
        bypass: vec!["localhost".to_owned()],
    };
    let gate = Gate::conversation(false);
    let proxy = Proxy::start(gate, Some(Arc::new(upstream))).unwrap();
    assert_tunnel(&proxy, &format!("127.0.0.1:{origin_port}")).await;
    let (_, plain) = ask(
        &proxy,
        "GET http://example.com/page HTTP/1.1\r\nHost: example.com\r\n\r\n".to_owned(),
    )
    .await;
    assert!(plain.ends_with("UPSTREAM"), "{plain}");
    let heads = heads.lock().clone();
    assert!(heads[0].starts_with(&format!("CONNECT 127.0.0.1:{origin_port} HTTP/1.1")));
    assert!(
        heads[0].contains("Proxy-Authorization: Basic bWU6c2VjcmV0"),
        "{}",
        heads[0]
    );
    assert!(
        heads[1].starts_with("GET http://example.com/page HTTP/1.1"),
        "{}",
        heads[1]
    );
    assert!(
        heads[1]
            .to_lowercase()
            .contains("proxy-authorization: basic bwu6c2vjcmv0")
    );
}
