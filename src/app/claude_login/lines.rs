//! The login CLI's output and this terminal's input, as lines.

use std::io::IsTerminal;

use tokio::{
    io::{AsyncBufReadExt, BufReader},
    sync::mpsc,
};

/// Sends each line `pipe` prints to `sink`; a prompt (`> ` without a newline) counts as one.
pub(super) async fn forward_lines(
    pipe: impl tokio::io::AsyncRead + Unpin,
    sink: mpsc::UnboundedSender<String>,
) {
    let mut reader = BufReader::new(pipe);
    let mut line: Vec<u8> = Vec::new();
    loop {
        let read = match reader.fill_buf().await {
            Ok([]) | Err(_) => break,
            Ok(buf) => {
                let mut done = Vec::new();
                for &byte in buf {
                    if byte == b'\n' {
                        done.push(String::from_utf8_lossy(&line).into_owned());
                        line.clear();
                    } else if line.len() < 16 * 1024 {
                        line.push(byte);
                    }
                }
                // A prompt waits for input without ending its line.
                if line.ends_with(b"> ") {
                    done.push(String::from_utf8_lossy(&line).into_owned());
                    line.clear();
                }
                (buf.len(), done)
            }
        };
        reader.consume(read.0);
        if read.1.into_iter().any(|text| sink.send(text).is_err()) {
            return;
        }
    }
    if !line.is_empty() {
        let _ = sink.send(String::from_utf8_lossy(&line).into_owned());
    }
}

/// Lines typed in this terminal, when stdin is one (read on a plain thread, which never holds
/// up the process's exit).
pub(super) fn terminal_lines() -> mpsc::UnboundedReceiver<String> {
    let (tx, rx) = mpsc::unbounded_channel();
    if std::io::stdin().is_terminal() {
        std::thread::spawn(move || {
            for line in std::io::stdin().lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
    }
    rx
}
