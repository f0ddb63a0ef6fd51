//! Proves the mock Messages API works with the real, pinned Claude Code CLI,
//! spawned directly (no dependency on the crate's own driver).

use crate::support;

use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdout, Command};

use support::cli::{CliSandbox, claude_cli_path};
use support::mock_api::{AnsweredBy, MockApi, Reply};

const TURN_TIMEOUT: Duration = Duration::from_secs(60);

struct Cli {
    child: Child,
    lines: Lines<BufReader<ChildStdout>>,
}

impl Cli {
    fn spawn(sandbox: &CliSandbox, mock: &MockApi, extra: &[&str]) -> Cli {
        let mut cmd = Command::new(claude_cli_path());
        cmd.args(["--output-format", "stream-json", "--verbose"])
            .args(["--input-format", "stream-json", "--setting-sources=project"])
            .args(["--system-prompt", ""])
            .args(extra)
            .current_dir(&sandbox.data_dir)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .envs(sandbox.env(mock))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let mut child = cmd.spawn().expect("spawn claude CLI");
        let stdout = child.stdout.take().expect("stdout");
        Cli {
            child,
            lines: BufReader::new(stdout).lines(),
        }
    }

    async fn send_user(&mut self, text: &str) {
        let line = json!({"type": "user", "message": {"role": "user", "content": text}});
        let stdin = self.child.stdin.as_mut().expect("stdin open");
        stdin
            .write_all(format!("{line}\n").as_bytes())
            .await
            .expect("write stdin");
        stdin.flush().await.expect("flush stdin");
    }

    /// Reads frames up to and including the next `result`.
    async fn read_turn(&mut self) -> Vec<Value> {
        let mut frames = Vec::new();
        let read = async {
            while let Some(line) = self.lines.next_line().await.expect("read stdout") {
                let frame: Value = serde_json::from_str(&line).expect("stdout line is JSON");
                let done = frame["type"] == "result";
                frames.push(frame);
                if done {
                    return true;
                }
            }
            false
        };
        let got_result = tokio::time::timeout(TURN_TIMEOUT, read)
            .await
            .expect("timed out waiting for a result frame");
        assert!(got_result, "CLI stdout ended before a result frame");
        frames
    }

    /// Closes stdin and waits for a clean exit.
    async fn finish(mut self) {
        drop(self.child.stdin.take());
        let status = tokio::time::timeout(TURN_TIMEOUT, self.child.wait())
            .await
            .expect("CLI did not exit after stdin EOF")
            .expect("wait for CLI");
        if !status.success() {
            let mut stderr = String::new();
            if let Some(mut err) = self.child.stderr.take() {
                use tokio::io::AsyncReadExt;
                let _ = err.read_to_string(&mut stderr).await;
            }
            panic!("CLI exited with {status}; stderr:\n{stderr}");
        }
    }
}

#[tokio::test]
async fn plain_reply_reaches_the_cli() {
    let mock = MockApi::start().await;
    mock.push(Reply::text("Hello from the mock API"));
    let sandbox = CliSandbox::new();
    let mut cli = Cli::spawn(&sandbox, &mock, &[]);

    let started = Instant::now();
    cli.send_user("hello").await;
    let frames = cli.read_turn().await;
    let result = frames.last().expect("result frame");
    assert_eq!(result["subtype"], "success", "result: {result}");
    assert_eq!(result["is_error"], false, "result: {result}");
    assert_eq!(result["result"], "Hello from the mock API");
    eprintln!("first turn took {:?}", started.elapsed());

    let main = mock.main_requests();
    assert_eq!(main.len(), 1, "requests: {:#?}", mock.requests());
    assert_eq!(main[0].last_user_text(), Some("hello"));
    assert_eq!(
        main[0].headers.get("x-api-key").map(String::as_str),
        Some("sk-test")
    );
    assert!(main[0].completed_at.is_some());
    assert_eq!(mock.queued(), 0);
    cli.finish().await;
}

#[tokio::test]
async fn slow_chunked_reply_streams_partial_deltas() {
    let mock = MockApi::start().await;
    let chunks = ["one ", "two ", "three ", "four"];
    mock.push(Reply::text_chunks(chunks, Duration::from_millis(150)));
    let sandbox = CliSandbox::new();
    let mut cli = Cli::spawn(&sandbox, &mock, &["--include-partial-messages"]);

    cli.send_user("count to four").await;
    let frames = cli.read_turn().await;
    let deltas: Vec<&Value> = frames
        .iter()
        .filter(|f| f["type"] == "stream_event" && f["event"]["type"] == "content_block_delta")
        .collect();
    assert!(
        deltas.len() >= 3,
        "only {} deltas: {frames:#?}",
        deltas.len()
    );
    let streamed: String = deltas
        .iter()
        .filter_map(|f| f["event"]["delta"]["text"].as_str())
        .collect();
    assert_eq!(streamed, "one two three four");
    assert_eq!(
        frames.last().expect("result")["result"],
        "one two three four"
    );
    cli.finish().await;
}

/// Minimal HTTP/1.1 client: one request per connection, returns (status, body).
async fn raw_request(mock: &MockApi, method: &str, path: &str, body: &str) -> (u16, String) {
    use tokio::io::AsyncReadExt;
    let addr = mock.base_url().trim_start_matches("http://").to_string();
    let mut conn = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let head = format!(
        "{method} {path} HTTP/1.1\r\nhost: mock\r\nx-api-key: sk-test\r\n\
         content-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    );
    conn.write_all(format!("{head}{body}").as_bytes())
        .await
        .expect("send");
    let mut raw = String::new();
    conn.read_to_string(&mut raw).await.expect("read");
    let (head, body) = raw.split_once("\r\n\r\n").expect("HTTP response");
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("status");
    (status, body.to_string())
}

#[tokio::test]
async fn mock_answers_raw_http() {
    let mock = MockApi::start().await;
    let user = |text: &str| json!({"role": "user", "content": [{"type": "text", "text": text}]});

    assert_eq!(raw_request(&mock, "HEAD", "/", "").await.0, 200);
    let (status, body) = raw_request(&mock, "POST", "/v1/nope", "{}").await;
    assert_eq!(status, 404, "{body}");
    let (status, body) = raw_request(&mock, "POST", "/v1/messages", "{not json").await;
    assert_eq!(status, 400, "{body}");
    let (status, body) = raw_request(&mock, "POST", "/v1/messages/count_tokens", "{}").await;
    assert_eq!(
        (status, body.contains("input_tokens")),
        (200, true),
        "{body}"
    );

    // Non-streaming: rule first, then queue, then the default.
    mock.add_rule(|r| (r.last_user_text() == Some("ruled")).then(|| Reply::text("by rule")));
    mock.push(Reply::tool_use(
        "mcp__discord__ping_user",
        json!({"message": "hi"}),
    ));
    let req =
        |text: &str| json!({"model": "m", "messages": [user(text)], "tools": [{"name": "t"}]});
    let (status, body) =
        raw_request(&mock, "POST", "/v1/messages", &req("ruled").to_string()).await;
    let msg: Value = serde_json::from_str(&body).expect("JSON message");
    assert_eq!(
        (status, &msg["content"][0]["text"]),
        (200, &json!("by rule"))
    );
    let (_, body) = raw_request(&mock, "POST", "/v1/messages", &req("q").to_string()).await;
    let msg: Value = serde_json::from_str(&body).expect("JSON message");
    assert_eq!(msg["stop_reason"], "tool_use");
    assert_eq!(msg["content"][0]["input"], json!({"message": "hi"}));
    let (_, body) = raw_request(&mock, "POST", "/v1/messages", &req("d").to_string()).await;
    assert!(body.contains("\"ok\""), "{body}");

    // Built-in answers: compaction and the title generator (streamed).
    let compact = json!({"model": "m", "stream": true, "messages": [user("remember KIWI"),
        user("Your task is to create a detailed summary of the conversation so far")]});
    let (_, body) = raw_request(
        &mock,
        "POST",
        "/v1/messages?beta=true",
        &compact.to_string(),
    )
    .await;
    assert!(body.contains("event: message_stop"), "{body}");
    assert!(
        body.contains("<summary>") && body.contains("KIWI"),
        "{body}"
    );
    let title = json!({"model": "m", "stream": true, "tools": [], "messages": [user("hi")],
        "system": [{"type": "text", "text": "x-anthropic-billing-header: x"},
                   {"type": "text", "text": "Generate a concise, sentence-case title"}]});
    let (_, body) = raw_request(&mock, "POST", "/v1/messages?beta=true", &title.to_string()).await;
    assert!(body.contains("title"), "{body}");

    let reqs = mock.requests();
    assert_eq!(reqs.len(), 9);
    assert_eq!(reqs[0].answered_by, AnsweredBy::Probe);
    assert_eq!(reqs[2].answered_by, AnsweredBy::BadRequest);
    assert!(reqs[7].is_compaction() && reqs[8].is_side_request());
    assert_eq!(mock.main_requests().len(), 3);
    assert_eq!(mock.last_byte_instants().len(), 5);
    assert_eq!(mock.queued(), 0);
}
