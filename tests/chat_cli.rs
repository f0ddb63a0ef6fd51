//! `ollim-bot chat` as a user runs it (CMD-1, CMD-8): the real binary on pipes, driving the
//! real Claude Code CLI against the mock Messages API.

mod support;

use std::{
    process::{ExitStatus, Stdio},
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use serde_json::json;
use support::{
    cli::{CliSandbox, claude_cli_path},
    mock_api::{MockApi, Reply},
};
use tokio::{
    io::{AsyncRead, AsyncReadExt, AsyncWriteExt},
    process::{Child, ChildStdin, Command},
    sync::watch,
};

const BIN: &str = env!("CARGO_BIN_EXE_ollim-bot");
/// How long any single expected output may take.
const EXPECT_TIMEOUT: Duration = Duration::from_secs(15);

/// The binary with a clean environment: PATH, the bot's variables and the sandbox's CLI
/// environment (the binary hands its own environment to the CLI child).
fn command(sandbox: &CliSandbox, mock: &MockApi) -> Command {
    let mut command = Command::new(BIN);
    command
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .envs(sandbox.env(mock))
        .env("OLLIM_USER_NAME", "Julia")
        .env("OLLIM_BOT_NAME", "Ollim")
        .env("OLLIM_DATA_DIR", &sandbox.data_dir)
        .env("OLLIM_CLAUDE_CLI", claude_cli_path())
        .env("OLLIM_DOCS_MCP_URL", "")
        .env("OLLIM_TIMEZONE", "UTC")
        // No `.env` of the developer's may leak in.
        .current_dir(sandbox.home.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    command
}

/// A running `ollim-bot chat` whose output is collected as it arrives.
struct Chat {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: Arc<Mutex<String>>,
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
    fn start(sandbox: &CliSandbox, mock: &MockApi) -> Chat {
        let mut child = command(sandbox, mock)
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

    fn pid(&self) -> u32 {
        self.child.id().expect("still running")
    }

    fn transcript(&self) -> String {
        format!(
            "--- stdout ---\n{}\n--- stderr ---\n{}",
            self.stdout.lock().unwrap(),
            self.stderr.lock().unwrap()
        )
    }

    /// Waits until `needle` appears after the cursor; returns the output up to and including
    /// it and moves the cursor past it.
    async fn expect(&mut self, needle: &str) -> String {
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
    async fn line(&mut self, text: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin
            .write_all(format!("{text}\n").as_bytes())
            .await
            .unwrap();
        stdin.flush().await.unwrap();
    }

    /// Closes stdin (Ctrl-D).
    fn eof(&mut self) {
        self.stdin.take();
    }

    /// Waits for the process to exit.
    async fn exit(&mut self, within: Duration) -> ExitStatus {
        match tokio::time::timeout(within, self.child.wait()).await {
            Ok(status) => status.unwrap(),
            Err(_) => panic!(
                "ollim-bot chat did not exit within {within:?}\n{}",
                self.transcript()
            ),
        }
    }
}

/// Processes (other than `except`) whose environment or command line mentions `needle`.
fn processes_mentioning(needle: &str, except: Option<u32>) -> Vec<u32> {
    let needle = needle.as_bytes();
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return found;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        if Some(pid) == except || pid == std::process::id() {
            continue;
        }
        let mentions = ["environ", "cmdline"].iter().any(|file| {
            std::fs::read(entry.path().join(file))
                .is_ok_and(|bytes| bytes.windows(needle.len()).any(|w| w == needle))
        });
        if mentions {
            found.push(pid);
        }
    }
    found
}

fn sandbox_marker(sandbox: &CliSandbox) -> String {
    sandbox.home.path().to_string_lossy().into_owned()
}

/// CMD-8: prompts, streamed replies, `[tool]` and `[embed]` lines; Ctrl-D exits 0 promptly
/// and leaves no CLI process behind.
#[tokio::test]
async fn two_prompts_then_eof() {
    let mock = MockApi::start().await;
    let sandbox = CliSandbox::new();
    mock.push(Reply::text("Hello Julia, good to see you!"));
    mock.push(Reply::tool_use(
        "mcp__discord__discord_embed",
        json!({"title": "Today", "description": "write the report", "color": "blue"}),
    ));
    mock.push(Reply::text("Plan sent."));
    let mut chat = Chat::start(&sandbox, &mock);
    chat.expect("you> ").await;
    chat.line("hi").await;
    chat.expect("Hello Julia, good to see you!").await;
    chat.expect("you> ").await;
    let running = processes_mentioning(&sandbox_marker(&sandbox), Some(chat.pid()));
    assert!(!running.is_empty(), "a CLI child runs while chatting");

    chat.line("plan my day").await;
    let shown = chat.expect("Plan sent.").await;
    assert!(shown.contains("[tool] discord_embed"), "{shown}");
    assert!(shown.contains("[embed] Today"), "{shown}");
    assert!(shown.contains("  write the report"), "{shown}");
    chat.expect("you> ").await;
    let prompt = mock.main_requests()[0].last_user_text().unwrap().to_owned();
    assert!(prompt.ends_with(" UTC] hi"), "{prompt}");

    chat.eof();
    let started = Instant::now();
    let status = chat.exit(Duration::from_secs(10)).await;
    assert_eq!(status.code(), Some(0), "{}", chat.transcript());
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "took {:?}",
        started.elapsed()
    );
    assert_no_process_left(&sandbox, Duration::ZERO).await;
}

/// CMD-8, SLC-5/1/6: `/model`, `/clear` and `/thinking` answer in the terminal.
#[tokio::test]
async fn slash_commands_work_in_the_terminal() {
    let mock = MockApi::start().await;
    let sandbox = CliSandbox::new();
    let mut chat = Chat::start(&sandbox, &mock);
    chat.expect("you> ").await;
    mock.push(Reply::text("First answer."));
    chat.line("hello").await;
    chat.expect("First answer.").await;
    chat.expect("you> ").await;
    let before = mock.main_requests()[0].model().unwrap().to_owned();

    chat.line("/model haiku").await;
    chat.expect("switched to haiku.").await;
    chat.expect("you> ").await;
    mock.push(Reply::text("Second answer."));
    chat.line("again").await;
    chat.expect("Second answer.").await;
    chat.expect("you> ").await;
    let after = mock.main_requests()[1].model().unwrap().to_owned();
    assert_ne!(after, before);
    assert!(after.contains("haiku"), "{after}");

    chat.line("/clear").await;
    chat.expect("conversation cleared. fresh start.").await;
    chat.expect("you> ").await;
    assert!(!sandbox.data_dir.join("state/sessions.json").exists());
    chat.line("/thinking").await;
    chat.expect("thinking: off.").await;
    chat.expect("you> ").await;
    chat.line("/quit").await;
    let status = chat.exit(Duration::from_secs(10)).await;
    assert_eq!(status.code(), Some(0), "{}", chat.transcript());
}

/// CMD-8, PRM-4: in `default` mode a tool approval is asked in the terminal and a `y` runs it.
#[tokio::test]
async fn a_tool_approval_is_answered_in_the_terminal() {
    let mock = MockApi::start().await;
    let sandbox = CliSandbox::new();
    let state = sandbox.data_dir.join("state");
    std::fs::create_dir_all(&state).unwrap();
    std::fs::write(
        state.join("config.json"),
        r#"{"permission_mode":"default"}"#,
    )
    .unwrap();
    mock.push(Reply::tool_use(
        "Bash",
        json!({"command": "touch approved.txt && echo APPROVED-RUN"}),
    ));
    mock.push(Reply::text("Made the file."));
    let mut chat = Chat::start(&sandbox, &mock);
    chat.expect("you> ").await;
    chat.line("make a file").await;
    chat.expect("[approve?] Bash(touch approved.txt && echo APPROVED-RUN) — ")
        .await;
    chat.expect("[n]o").await;
    chat.line("y").await;
    let shown = chat.expect("Made the file.").await;
    assert!(
        shown.contains("[approve?] Bash(touch approved.txt && echo APPROVED-RUN) — allowed"),
        "{shown}"
    );
    let results = mock.main_requests()[1].tool_results();
    assert!(!results[0].is_error, "{results:?}");
    assert!(results[0].content.contains("APPROVED-RUN"), "{results:?}");
    assert!(sandbox.data_dir.join("approved.txt").exists());
    chat.expect("you> ").await;
    chat.eof();
    let status = chat.exit(Duration::from_secs(10)).await;
    assert_eq!(status.code(), Some(0), "{}", chat.transcript());
}

/// Sends `signal` to the chat process.
fn send_signal(chat: &Chat, signal: &str) {
    let sent = std::process::Command::new("kill")
        .args([signal, &chat.pid().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
}

/// Waits until no process mentions the sandbox any more (a SIGKILLed child may take a few
/// milliseconds to disappear); panics with the survivors after `grace`.
async fn assert_no_process_left(sandbox: &CliSandbox, grace: Duration) {
    let deadline = Instant::now() + grace;
    loop {
        let left = processes_mentioning(&sandbox_marker(sandbox), None);
        if left.is_empty() {
            return;
        }
        if Instant::now() >= deadline {
            let described: Vec<String> = left
                .iter()
                .map(|pid| {
                    let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
                    let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
                    format!("{pid}: {}", cmd.chars().take(80).collect::<String>())
                })
                .collect();
            panic!("processes left behind after {grace:?}: {described:#?}");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn signal_while_idle_exits_cleanly(signal: &str) {
    let mock = MockApi::start().await;
    let sandbox = CliSandbox::new();
    let mut chat = Chat::start(&sandbox, &mock);
    chat.expect("you> ").await;
    // One exchange, so the CLI is certainly connected and the REPL is idle.
    mock.push(Reply::text("Ready when you are."));
    chat.line("hi").await;
    chat.expect("Ready when you are.").await;
    chat.expect("you> ").await;
    let running = processes_mentioning(&sandbox_marker(&sandbox), Some(chat.pid()));
    assert!(!running.is_empty(), "a CLI child runs");
    send_signal(&chat, signal);
    let started = Instant::now();
    let status = chat.exit(Duration::from_secs(10)).await;
    assert_eq!(status.code(), Some(0), "{status:?}\n{}", chat.transcript());
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "took {:?}",
        started.elapsed()
    );
    assert_no_process_left(&sandbox, Duration::ZERO).await;
}

/// CMD-8: SIGTERM while idle ends the chat cleanly (exit 0, no CLI left).
#[tokio::test]
async fn sigterm_while_idle_exits_cleanly() {
    signal_while_idle_exits_cleanly("-TERM").await;
}

/// CMD-8: Ctrl-C (SIGINT) while idle ends the chat cleanly (exit 0, no CLI left).
#[tokio::test]
async fn sigint_while_idle_exits_cleanly() {
    signal_while_idle_exits_cleanly("-INT").await;
}

/// CMD-8: a signal that arrives while the REPL is still starting its CLI (the warm-up
/// connect) must not leave that CLI running after the chat has exited.
#[tokio::test]
async fn a_signal_during_start_up_leaves_no_cli() {
    // Timing-dependent before the fix (about one run in four of 20 rounds left a survivor);
    // a few rounds keep it cheap in CI.
    for _ in 0..5 {
        let mock = MockApi::start().await;
        let sandbox = CliSandbox::new();
        let mut chat = Chat::start(&sandbox, &mock);
        // Signal as soon as both the REPL is up and the CLI child exists (mid-connect).
        let deadline = Instant::now() + EXPECT_TIMEOUT;
        loop {
            let ready = chat.stdout.lock().unwrap().contains("you> ");
            let forked =
                !processes_mentioning(&sandbox_marker(&sandbox), Some(chat.pid())).is_empty();
            if ready && forked {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "no CLI appeared\n{}",
                chat.transcript()
            );
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        send_signal(&chat, "-TERM");
        let status = chat.exit(Duration::from_secs(10)).await;
        assert_eq!(status.code(), Some(0), "{}", chat.transcript());
        assert_no_process_left(&sandbox, Duration::ZERO).await;
    }
}

/// Configuration errors name the variable and an example, on one line, exit 1.
#[tokio::test]
async fn a_missing_user_name_is_one_clear_line() {
    let mock = MockApi::start().await;
    let sandbox = CliSandbox::new();
    let output = command(&sandbox, &mock)
        .env_remove("OLLIM_USER_NAME")
        .arg("chat")
        .stdin(Stdio::null())
        .output();
    let output = tokio::time::timeout(Duration::from_secs(10), output)
        .await
        .expect("exits quickly")
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    assert!(lines[0].contains("OLLIM_USER_NAME"), "{stderr}");
    assert!(
        lines[0].contains("OLLIM_USER_NAME=Julia"),
        "an example: {stderr}"
    );
    assert!(mock.model_requests().is_empty());
}

/// CMD-1, F-38: `--help` starts with the title and lists `chat`; an unknown command prints
/// the help and exits 1.
#[tokio::test]
async fn help_and_unknown_commands() {
    let mock = MockApi::start().await;
    let sandbox = CliSandbox::new();
    let help = command(&sandbox, &mock)
        .arg("--help")
        .stdin(Stdio::null())
        .output()
        .await
        .unwrap();
    assert_eq!(help.status.code(), Some(0));
    let text = String::from_utf8_lossy(&help.stdout);
    assert!(
        text.starts_with("ollim-bot -- ADHD-friendly Discord assistant powered by Claude"),
        "{text}"
    );
    assert!(
        text.lines().any(|l| l.trim_start().starts_with("chat")),
        "{text}"
    );

    let bogus = command(&sandbox, &mock)
        .arg("bogus")
        .stdin(Stdio::null())
        .output()
        .await
        .unwrap();
    assert_eq!(bogus.status.code(), Some(1));
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&bogus.stdout),
        String::from_utf8_lossy(&bogus.stderr)
    );
    assert!(
        all.contains("ollim-bot -- ADHD-friendly Discord assistant powered by Claude"),
        "{all}"
    );
    assert!(
        all.lines().any(|l| l.trim_start().starts_with("chat")),
        "{all}"
    );
}
