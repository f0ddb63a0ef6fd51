//! `ollim-bot history` on transcripts the real CLI wrote (SUB-4…6): a main session driven
//! through the pinned CLI against the mock model, then the real binary with nothing but the
//! data dir, HOME and the CLI's config dir in its environment (no Discord token, no names).

use crate::support;

use std::{fs, io::Write, process::Output};

use serde_json::json;
use support::{agent::AgentHarness, cli::CliSandbox, mock_api::Reply};

/// Runs `ollim-bot history <args>` for the sandbox.
fn history(sandbox: &CliSandbox, args: &[&str]) -> Output {
    transcript_reader(sandbox, "history", args)
}

/// Runs `ollim-bot <subcommand> <args>` as a command that reads the transcripts runs (history,
/// recall): with nothing but the data dir, HOME, the CLI's config dir and the timezone.
pub(crate) fn transcript_reader(sandbox: &CliSandbox, subcommand: &str, args: &[&str]) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_ollim-bot"))
        .arg(subcommand)
        .args(args)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", sandbox.home.path())
        .env("CLAUDE_CONFIG_DIR", sandbox.claude_dir())
        .env("OLLIM_DATA_DIR", &sandbox.data_dir)
        .env("OLLIM_TIMEZONE", "UTC")
        .current_dir(sandbox.home.path())
        .output()
        .unwrap_or_else(|error| panic!("run ollim-bot {subcommand}: {error}"))
}

/// The output of a command that must have succeeded.
pub(crate) fn stdout(output: &Output) -> String {
    assert!(
        output.status.success(),
        "exit {:?}: {}",
        output.status.code(),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn fails_with_one_line(output: &Output, needle: &str) {
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    assert!(stderr.contains(needle), "{stderr}");
}

#[tokio::test]
async fn history_lists_prints_and_searches_real_sessions() {
    let h = AgentHarness::new().await;
    fs::write(h.sandbox.data_dir.join("notes.md"), "pineapple notes").unwrap();
    h.mock.push(Reply::text("Hello Julia!"));
    h.send("hi there, remember the pineapple").await.unwrap();
    h.mock.push(Reply::tool_use(
        "Read",
        json!({"file_path": h.sandbox.data_dir.join("notes.md")}),
    ));
    h.mock.push(Reply::text("Read it."));
    h.send("read my notes").await.unwrap();
    let id = h.stored_session().expect("a session id");
    // The CLI exits (and has written everything) before we read its files.
    h.session.shutdown().await;
    // The session's transcript is in its container's CLI home (issue 39).
    let transcript = h
        .services
        .sandbox
        .homes()
        .transcript(&id)
        .expect("the record of homes reads")
        .expect("the session's transcript");
    let project = transcript.parent().unwrap().to_path_buf();

    // Damage the real file the way crashes and huge tool results do: garbage, a line over
    // the cap and a torn last line; and add an old session outside the default window.
    let mut file = fs::OpenOptions::new()
        .append(true)
        .open(&transcript)
        .unwrap();
    writeln!(file, "garbage").unwrap();
    let huge = "x".repeat(ollim_bot::transcripts::MAX_LINE_BYTES + 10);
    writeln!(file, "{{\"type\":\"user\",\"text\":\"{huge}\"}}").unwrap();
    write!(file, "{{\"type\":\"user\",\"message\":").unwrap();
    drop(file);
    let old = "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"an old mango talk\"},\
               \"timestamp\":\"2020-01-01T10:00:00Z\"}\n";
    fs::write(project.join("0ld-session.jsonl"), old).unwrap();
    let sandbox = &h.sandbox;

    // The list: the session, its counts and its first prompt without the timestamp header.
    let list = stdout(&history(sandbox, &[]));
    assert!(
        list.starts_with("1 session active in the last 24h, newest first (times in UTC):\n"),
        "{list}"
    );
    let row = list.lines().nth(1).unwrap();
    assert!(row.starts_with(&format!("{id}  ")), "{row}");
    assert!(
        row.ends_with("  2 user / 3 assistant  hi there, remember the pineapple"),
        "{row}"
    );
    let week = stdout(&history(sandbox, &["--since", "7d"]));
    assert!(!week.contains("0ld-session"), "{week}");
    let years = stdout(&history(sandbox, &["--since", "3650d"]));
    assert!(
        years.starts_with("2 sessions active in the last 3650d"),
        "{years}"
    );
    let order: Vec<&str> = years.lines().skip(1).map(|l| &l[..8]).collect();
    assert_eq!(order, [&id[..8], "0ld-sess"], "{years}");

    // One session by prefix: every message, tool calls on one line.
    let session = stdout(&history(sandbox, &["--session", &id[..8]]));
    let lines: Vec<&str> = session.lines().collect();
    assert_eq!(lines[0], format!("session {id}"));
    let bodies: Vec<&str> = lines[1..]
        .iter()
        .map(|l| l.split_once("] ").map_or(*l, |(_, body)| body))
        .collect();
    // Prompts keep the bot's timestamp header, in the main session's zone.
    assert!(
        bodies[0].starts_with("user: [20")
            && bodies[0].ends_with("] hi there, remember the pineapple")
    );
    assert_eq!(
        bodies[1..6],
        [
            "assistant: Hello Julia!",
            bodies[2],
            "assistant: [tool] Read",
            "tool: 1 pineapple notes",
            "assistant: Read it.",
        ],
        "{session}"
    );
    assert!(bodies[2].ends_with("] read my notes"), "{session}");
    assert!(
        session.ends_with("(3 unreadable lines skipped)\n"),
        "{session}"
    );

    // --grep across the window's sessions, case-insensitive.
    let found = stdout(&history(sandbox, &["--grep", "PINEAPPLE"]));
    let found_lines: Vec<&str> = found.lines().collect();
    assert_eq!(found_lines[0], format!("session {id}"));
    assert_eq!(found_lines.len(), 3, "{found}");
    assert!(found_lines[1].ends_with("] hi there, remember the pineapple"));
    assert!(found_lines[2].ends_with("tool: 1 pineapple notes"));
    let none = stdout(&history(sandbox, &["--grep", "mango"]));
    assert_eq!(none, "no messages matching \"mango\" in the last 24h\n");
    let old_one = stdout(&history(sandbox, &["--grep", "mango", "--since", "3650d"]));
    assert!(old_one.starts_with("session 0ld-session\n"), "{old_one}");

    // Errors: one line, exit 1.
    fails_with_one_line(&history(sandbox, &["--since", "5x"]), "e.g. 30m, 24h, 7d");
    fails_with_one_line(
        &history(sandbox, &["--session", "zzzz"]),
        "no session id starts with",
    );
    h.close().await;
}
