//! What each kind of session sends per request (issue 17); prints figures, asserts nothing.
//!
//! `cargo bench --bench prompt` (release profile) runs every session kind in this process
//! through [`AgentHarness`] — the real Claude Code CLI, the mock Messages API, a temporary
//! data dir — and prints, per kind, the size of the first model request and of a follow-up
//! one: bytes of the request body and the mock's token estimate (bytes / 4, what its
//! `count_tokens` answers). The kinds:
//!
//! - `main`: the main session's first turn; follow-up = its second turn;
//! - `fork`: an interactive fork's first request; follow-up = the fork's next turn;
//! - `bg forked` / `bg isolated` / `bg persistent`: a background run's first request;
//!   follow-up = the request after its `list_reminders` tool call;
//! - `screening`: the webhook screening session (one request only);
//! - `subagent`: `history-reviewer` called through `Agent` from main (one request).
//!
//! "before" is the same code with `OLLIM_OFFER_EVERY_TOOL` set (every session offered every
//! tool and the preset prompt's per-machine sections kept, as before issue 17), measured in a
//! child process of this bench; "after" is the default.
//!
//! Needs the pinned CLI: `OLLIM_TEST_CLAUDE_CLI`, else `.ci/claude-cli/node_modules/.bin/claude`;
//! without it everything is skipped.

use ollim_test_support as support;

use std::{process::Command, sync::Arc, time::Duration};

use ollim_bot::{
    agent::screening::screen,
    background::BgRunner,
    config::environment::OFFER_EVERY_TOOL_ENV,
    domain::{job_options::BgSession, prompt_tag::PromptTag},
    front_end::FrontEnd,
    scheduling::bg_job::BgJob,
};
use serde_json::json;
use support::{
    agent::AgentHarness,
    cli::pinned_cli,
    mock_api::{RecordedRequest, Reply},
};

/// The argument of the child process that measures the "before" figures.
const BEFORE_PASS: &str = "--before-pass";

/// One session kind's figures: (bytes, tokens) of the first request and of a follow-up.
struct Row {
    kind: &'static str,
    first: Option<(usize, u64)>,
    follow_up: Option<(usize, u64)>,
}

fn figures(request: Option<&RecordedRequest>) -> Option<(usize, u64)> {
    request.map(|r| (r.body_bytes(), r.token_estimate()))
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches/--all-targets` does not: stay quick.
    if !std::env::args().any(|arg| arg == "--bench") {
        println!("benches/prompt.rs prints figures only under `cargo bench --bench prompt`");
        return;
    }
    if pinned_cli().is_none() {
        println!("skipped: no pinned Claude Code CLI (see the header of this file)");
        return;
    }
    if std::env::args().any(|arg| arg == BEFORE_PASS) {
        print_table("before (every tool offered)", &measure());
        return;
    }
    match std::env::current_exe() {
        Ok(exe) => {
            let status = Command::new(exe)
                .args(["--bench", BEFORE_PASS])
                .env(OFFER_EVERY_TOOL_ENV, "1")
                .status();
            if !status.as_ref().is_ok_and(std::process::ExitStatus::success) {
                println!("the \"before\" pass failed: {status:?}");
            }
        }
        Err(error) => println!("no \"before\" pass: {error}"),
    }
    print_table("after (issue 17)", &measure());
}

fn print_table(title: &str, rows: &[Row]) {
    let cell = |figures: Option<(usize, u64)>| match figures {
        Some((bytes, tokens)) => format!("{bytes:>7} B / {tokens:>6} tok"),
        None => format!("{:>22}", "-"),
    };
    println!("\n{title}");
    println!(
        "{:<14} | {:>22} | {:>22}",
        "session kind", "first request", "follow-up"
    );
    println!("{:-<14}-+-{:-<22}-+-{:-<22}", "", "", "");
    for row in rows {
        println!(
            "{:<14} | {} | {}",
            row.kind,
            cell(row.first),
            cell(row.follow_up)
        );
    }
}

fn measure() -> Vec<Row> {
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
    runtime.block_on(async {
        let mut rows = vec![main_session().await, fork().await];
        for (kind, session) in [
            ("bg forked", BgSession::Forked),
            ("bg isolated", BgSession::Isolated),
            ("bg persistent", BgSession::Persistent),
        ] {
            rows.push(background(kind, session).await);
        }
        rows.push(screening().await);
        rows.push(subagent().await);
        rows
    })
}

async fn main_session() -> Row {
    let h = AgentHarness::new().await;
    for text in ["hello", "and a second thing"] {
        h.mock.push(Reply::text("ok"));
        h.exchange(text).await.expect("a main turn");
    }
    let requests = h.mock.main_requests();
    let row = Row {
        kind: "main",
        first: figures(requests.first()),
        follow_up: figures(requests.get(1)),
    };
    h.close().await;
    row
}

async fn fork() -> Row {
    let h = AgentHarness::new().await;
    h.mock.add_rule(|request| {
        request
            .last_user_text()
            .is_some_and(|text| text.contains("[fork-started]"))
            .then(|| Reply::text("Fork open."))
    });
    h.mock.push(Reply::tool_use(
        "mcp__discord__enter_fork",
        json!({"topic": "plans"}),
    ));
    h.exchange("let's fork").await.expect("the fork opens");
    h.mock.push(Reply::text("in the fork"));
    h.exchange("a question in the fork")
        .await
        .expect("a fork turn");
    let requests = h.mock.main_requests();
    let start = requests.iter().position(|r| {
        r.last_user_text()
            .is_some_and(|t| t.contains("[fork-started]"))
    });
    let row = Row {
        kind: "fork",
        first: figures(start.and_then(|i| requests.get(i))),
        follow_up: figures(start.and_then(|i| requests.get(i + 1))),
    };
    h.close().await;
    row
}

async fn background(kind: &'static str, session: BgSession) -> Row {
    let h = AgentHarness::new().await;
    if session == BgSession::Forked {
        h.mock.push(Reply::text("ok"));
        h.exchange("hello").await.expect("a main turn");
    }
    let mut job = BgJob::new(PromptTag::RoutineBg("a1b2c3d4".into()), "Check the plan.");
    job.session = session;
    h.mock
        .push(Reply::tool_use("mcp__discord__list_reminders", json!({})));
    h.mock.push(Reply::text("Nothing to report."));
    let runner = BgRunner::new(
        Arc::clone(&h.services),
        h.front_end.clone(),
        Arc::new(|| false),
    );
    runner.run(job).await.expect("the background run");
    let requests: Vec<RecordedRequest> = h
        .mock
        .main_requests()
        .into_iter()
        .filter(|r| r.all_text().contains("[routine-bg:a1b2c3d4]"))
        .collect();
    let row = Row {
        kind,
        first: figures(requests.first()),
        follow_up: figures(requests.get(1)),
    };
    h.close().await;
    row
}

async fn screening() -> Row {
    let h = AgentHarness::new().await;
    h.mock.push(Reply::text(r#"{"safe": true, "flagged": []}"#));
    let front_end: Arc<dyn FrontEnd> = h.front_end.clone();
    let prompt = "Check these fields:\n- title: \"Build passed\"".to_owned();
    screen(&h.services, &front_end, prompt, Duration::from_secs(60))
        .await
        .expect("a screening answer");
    let requests = h.mock.main_requests();
    let row = Row {
        kind: "screening",
        first: figures(requests.first()),
        follow_up: None,
    };
    h.close().await;
    row
}

async fn subagent() -> Row {
    let h = AgentHarness::new().await;
    let requests = h.call_history_reviewer().await;
    let row = Row {
        kind: "subagent",
        first: figures(requests.first()),
        follow_up: None,
    };
    h.close().await;
    row
}
