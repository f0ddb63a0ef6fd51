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

#[tokio::test]
async fn allowed_requests_go_through_in_origin_form_and_others_are_refused_with_the_reason() {
    let port = origin().await;
    let gate = Gate::background(ToolReach::Hosts(Vec::new()));
    gate.add_always([HostRule::parse(&format!("127.0.0.1:{port}")).unwrap()]);
    let proxy = Proxy::start(gate).unwrap();
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
    let proxy = Proxy::start(gate).unwrap();
    let (mut stream, answer) = ask(
        &proxy,
        format!("CONNECT 127.0.0.1:{port} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n"),
    )
    .await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    stream.write_all(b"PING\n").await.unwrap();
    let mut pong = [0u8; 4];
    stream.read_exact(&mut pong).await.unwrap();
    assert_eq!(&pong, b"PONG");
    let socket = proxy.socket();
    drop(proxy);
    assert!(!socket.exists(), "its folder goes with it");
}

#[tokio::test]
async fn an_unreachable_host_is_a_bad_gateway() {
    let gate = Gate::conversation(false);
    let proxy = Proxy::start(gate).unwrap();
    let (_, answer) = ask(
        &proxy,
        "CONNECT 127.0.0.1:1 HTTP/1.1\r\nHost: 127.0.0.1:1\r\n\r\n".to_owned(),
    )
    .await;
    assert!(answer.starts_with("HTTP/1.1 502"), "{answer}");
}
