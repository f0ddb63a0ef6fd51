//! A few bytes of HTTP/1.1 by hand, for what a client library won't do: stream an endless
//! body, or stop half-way through one.

use std::net::SocketAddr;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A response read off the wire: status, lower-case headers, body.
#[derive(Debug)]
pub(crate) struct RawResponse {
    pub(crate) status: u16,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: String,
}

/// Opens a connection and writes the request head.
pub(crate) async fn open(addr: SocketAddr, head: &str) -> TcpStream {
    let mut stream = TcpStream::connect(addr).await.expect("connect");
    stream.write_all(head.as_bytes()).await.expect("write head");
    stream
}

/// Reads one response (head plus `content-length` body), failing after 10 s.
pub(crate) async fn read_response(stream: &mut TcpStream) -> RawResponse {
    tokio::time::timeout(Duration::from_secs(10), async {
        let mut data = Vec::new();
        let mut buf = [0u8; 4096];
        loop {
            if let Some(end) = find(&data, b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&data[..end]).into_owned();
                let mut lines = head.split("\r\n");
                let status = lines.next().unwrap().split(' ').nth(1).unwrap();
                let headers: Vec<(String, String)> = lines
                    .filter_map(|line| line.split_once(':'))
                    .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
                    .collect();
                let length: usize = headers
                    .iter()
                    .find(|(k, _)| k == "content-length")
                    .map_or(0, |(_, v)| v.parse().unwrap());
                while data.len() < end + 4 + length {
                    let n = stream.read(&mut buf).await.expect("read body");
                    assert!(n > 0, "connection closed mid-body");
                    data.extend_from_slice(&buf[..n]);
                }
                return RawResponse {
                    status: status.parse().unwrap(),
                    headers,
                    body: String::from_utf8_lossy(&data[end + 4..end + 4 + length]).into_owned(),
                };
            }
            let n = stream.read(&mut buf).await.expect("read head");
            assert!(n > 0, "connection closed before a response");
            data.extend_from_slice(&buf[..n]);
        }
    })
    .await
    .expect("a response within 10 s")
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Writes one chunk of a chunked body.
pub(crate) async fn write_chunk(stream: &mut TcpStream, data: &[u8]) -> std::io::Result<()> {
    stream
        .write_all(format!("{:x}\r\n", data.len()).as_bytes())
        .await?;
    stream.write_all(data).await?;
    stream.write_all(b"\r\n").await
}
