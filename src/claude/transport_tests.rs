use std::{
    io::{self, Write},
    sync::{Arc, Mutex},
};

use tokio::io::AsyncWriteExt;

use super::*;

/// A log sink the test reads back.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

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

/// Issue 25 §4: the reader task logs under the span of whoever connected (a turn, a fire, a
/// run), not detached from it.
#[tokio::test]
async fn the_reader_logs_under_the_span_that_connected() {
    let captured = Captured::default();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(captured.clone())
        .with_max_level(tracing::Level::DEBUG)
        .with_ansi(false)
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);
    let (mut cli_stdout, stdout) = tokio::io::duplex(1024);
    let (stdin, _cli_stdin) = tokio::io::duplex(1024);
    let span = tracing::info_span!("turn", id = 7);
    let (_connection, _messages, mut tasks) =
        span.in_scope(|| start(stdout, stdin, ControlHandlers::default()));
    cli_stdout.write_all(b"not json\n").await.unwrap();
    drop(cli_stdout);
    tasks.reader_finished().await;
    let log = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    let line = log
        .lines()
        .find(|line| line.contains("skipping a non-JSON stdout line"))
        .unwrap_or_else(|| panic!("{log}"));
    assert!(line.contains("turn{id=7}"), "{line}");
}
