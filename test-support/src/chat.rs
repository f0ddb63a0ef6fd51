//! `ollim-bot chat` on pipes: the real binary driving the pinned CLI against a [`MockApi`],
//! its output collected as it arrives.

use std::{
    process::{ExitStatus, Stdio},
    sync::{Arc, Mutex},
    time::Duration,
};

use tokio::{
    io::{AsyncRead, AsyncReadExt, AsyncWriteExt},
    process::{Child, ChildStdin, Command},
    sync::watch,
};

use super::{bot::ollim_command, cli::CliSandbox, mock_api::MockApi};

/// How long any single expected output may take.
pub const EXPECT_TIMEOUT: Duration = Duration::from_secs(15);

/// The binary with a clean environment (see [`ollim_command`]) and piped standard streams.
pub fn chat_command(sandbox: &CliSandbox, mock: &MockApi) -> Command {
    let mut command = ollim_command(sandbox, mock);
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// A running `ollim-bot chat` whose output is collected as it arrives.
pub struct Chat {
    child: Child,
    stdin: Option<ChildStdin>,
    /// Everything printed on stdout so far.
    pub stdout: Arc<Mutex<String>>,
    stderr: Arc<Mutex<String>>,
    changed: watch::Receiver<()>,
    cursor: usize,
}

fn collect(
    mut pipe: impl AsyncRead + Unpin + Send + 'static,
    into: Arc<Mutex<String>>,
    tx: watch::Sender<()>,
) {
    tokio::spawn(async move {
        let mut buf = vec![0u8; 8192];
        loop {
            match pipe.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    into.lock()
                        .unwrap()
                        .push_str(&String::from_utf8_lossy(&buf[..n]));
                    tx.send_replace(());
                }
            }
        }
        tx.send_replace(());
    });
}

impl Chat {
    /// Starts `ollim-bot chat` in `sandbox` against `mock`.
    pub fn start(sandbox: &CliSandbox, mock: &MockApi) -> Chat {
        let mut child = chat_command(sandbox, mock)
            .arg("chat")
            .spawn()
            .expect("start ollim-bot chat");
        let (tx, changed) = watch::channel(());
        let stdout = Arc::new(Mutex::new(String::new()));
        let stderr = Arc::new(Mutex::new(String::new()));
        collect(child.stdout.take().unwrap(), stdout.clone(), tx.clone());
        collect(child.stderr.take().unwrap(), stderr.clone(), tx);
        Chat {
            stdin: child.stdin.take(),
            child,
            stdout,
            stderr,
            changed,
            cursor: 0,
        }
    }

    /// The chat process's id.
    pub fn pid(&self) -> u32 {
        self.child.id().expect("still running")
    }

    /// Both outputs so far, for failure messages.
    pub fn transcript(&self) -> String {
        format!(
            "--- stdout ---\n{}\n--- stderr ---\n{}",
            self.stdout.lock().unwrap(),
            self.stderr.lock().unwrap()
        )
    }

    /// Waits until `needle` appears after the cursor; returns the output up to and including
    /// it and moves the cursor past it.
    pub async fn expect(&mut self, needle: &str) -> String {
        let deadline = tokio::time::Instant::now() + EXPECT_TIMEOUT;
        loop {
            {
                let out = self.stdout.lock().unwrap();
                if let Some(at) = out[self.cursor..].find(needle) {
                    let end = self.cursor + at + needle.len();
                    let seen = out[self.cursor..end].to_owned();
                    self.cursor = end;
                    return seen;
                }
            }
            if tokio::time::timeout_at(deadline, self.changed.changed())
                .await
                .is_err()
            {
                panic!("timed out waiting for {needle:?}\n{}", self.transcript());
            }
        }
    }

    /// Types one line.
    pub async fn line(&mut self, text: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin
            .write_all(format!("{text}\n").as_bytes())
            .await
            .unwrap();
        stdin.flush().await.unwrap();
    }

    /// Types `text`, waits for `answer` and then for the next prompt; returns the output up to
    /// and including `answer`.
    pub async fn say(&mut self, text: &str, answer: &str) -> String {
        self.line(text).await;
        let shown = self.expect(answer).await;
        self.expect("you> ").await;
        shown
    }

    /// Closes stdin (Ctrl-D).
    pub fn eof(&mut self) {
        self.stdin.take();
    }

    /// Sends `signal` (`"-TERM"`, `"-INT"`, …) to the chat process.
    pub fn signal(&self, signal: &str) {
        let sent = std::process::Command::new("kill")
            .args([signal, &self.pid().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
    }

    /// Processes of `sandbox` other than this chat process (its CLI child, …).
    pub fn cli_processes(&self, sandbox: &CliSandbox) -> Vec<u32> {
        let me = self.pid();
        let mut found = sandbox.processes();
        found.retain(|pid| *pid != me);
        found
    }

    /// Waits for the process to exit.
    pub async fn exit(&mut self, within: Duration) -> ExitStatus {
        let Ok(status) = tokio::time::timeout(within, self.child.wait()).await else {
            panic!(
                "ollim-bot chat did not exit within {within:?}\n{}",
                self.transcript()
            );
        };
        status.unwrap()
    }

    /// Waits for the exit after a Ctrl-D or a signal: exit 0 within 5 s, no process of
    /// `sandbox` left.
    pub async fn assert_exits_cleanly(&mut self, sandbox: &CliSandbox) {
        let started = std::time::Instant::now();
        let status = self.exit(Duration::from_secs(10)).await;
        assert_eq!(status.code(), Some(0), "{status:?}\n{}", self.transcript());
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "took {:?}",
            started.elapsed()
        );
        sandbox.assert_no_process_left(Duration::ZERO).await;
    }
}
