use std::{
    io::{self, Write},
    sync::{Arc, Mutex},
};

use tokio::io::AsyncWriteExt;

use super::*;

/// A log sink the test reads back.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Captured {
    fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }
}

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for Captured {
    type Writer = Captured;

    fn make_writer(&'a self) -> Self::Writer {
        self.clone()
    }
}

/// A debug log for this thread, read back through the sink, until the guard drops.
fn captured_log() -> (Captured, tracing::subscriber::DefaultGuard) {
    let captured = Captured::default();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(captured.clone())
        .with_max_level(tracing::Level::DEBUG)
        .with_ansi(false)
        .finish();
    (captured, tracing::subscriber::set_default(subscriber))
}

/// Issue 25 §4: the reader task logs under the span of whoever connected (a turn, a fire, a
/// run), not detached from it.
#[tokio::test]
async fn the_reader_logs_under_the_span_that_connected() {
    let (captured, _guard) = captured_log();
    let (mut cli_stdout, stdout) = tokio::io::duplex(1024);
    let (stdin, _cli_stdin) = tokio::io::duplex(1024);
    let span = tracing::info_span!("turn", id = 7);
    let (_connection, _messages, mut tasks) =
        span.in_scope(|| start(stdout, stdin, ControlHandlers::default()));
    cli_stdout.write_all(b"not json\n").await.unwrap();
    drop(cli_stdout);
    tasks.reader_finished().await;
    let log = captured.text();
    let line = log
        .lines()
        .find(|line| line.contains("skipping a non-JSON stdout line"))
        .unwrap_or_else(|| panic!("{log}"));
    assert!(line.contains("turn{id=7}"), "{line}");
}

/// Issue 41 §2: what a long-lived client's CLI sends during a turn is served under that
/// turn's span, and under the connecting span again once the turn is over.
#[tokio::test]
async fn frames_are_served_under_the_turn_they_belong_to() {
    let (captured, _guard) = captured_log();
    let (mut cli_stdout, stdout) = tokio::io::duplex(1024);
    let (stdin, _cli_stdin) = tokio::io::duplex(1024);
    let connected = tracing::info_span!("click", id = 1);
    let (connection, _messages, mut tasks) =
        connected.in_scope(|| start(stdout, stdin, ControlHandlers::default()));
    let request = b"{\"type\":\"control_request\",\"request\":{\"subtype\":\"can_use_tool\"}}\n";
    connection.serve_under(Some(tracing::info_span!("thread_turn", id = 8)));
    cli_stdout.write_all(request).await.unwrap();
    while !captured
        .text()
        .contains("control request without a request_id")
    {
        tokio::task::yield_now().await;
    }
    connection.serve_under(None);
    cli_stdout.write_all(request).await.unwrap();
    drop(cli_stdout);
    tasks.reader_finished().await;
    let log = captured.text();
    let lines: Vec<&str> = log
        .lines()
        .filter(|line| line.contains("control request without a request_id"))
        .collect();
    assert_eq!(lines.len(), 2, "{log}");
    assert!(lines[0].contains("thread_turn{id=8}"), "{}", lines[0]);
    assert!(
        lines[1].contains("click{id=1}") && !lines[1].contains("thread_turn"),
        "{}",
        lines[1]
    );
}
