//! Main-session lifecycle end to end: the real Claude Code CLI against the mock Messages API.
//! Context injection (CTX-2/4/6, PUP-4), `/compact` (SES-13, F-32), auto-compaction (SES-14),
//! `/clear` (SES-5, SES-11), stale-id recovery, `/cost` (AGT-15), thinking changes (AGT-10,
//! SLC-6) and warm-up connects.

use crate::support;

use std::time::Duration;

use ollim_bot::{
    agent::command::{Command, CommandReply},
    claude::Thinking,
    front_end::TurnEvent,
    state::history::SessionEventKind,
};
use serde_json::json;
use support::{agent::AgentHarness, mock_api::Reply};

/// CTX-2, CTX-4, CTX-6, PUP-4: pending updates are popped once, announced with a notice and
/// injected before the owner's text; the next message carries no header.
#[tokio::test]
async fn pending_updates_are_consumed_and_injected_once() {
    let h = AgentHarness::new().await;
    h.services
        .pending
        .append("Inbox triage: 2 emails need a reply")
        .unwrap();
    h.services.pending.append("CI: build passed").unwrap();
    assert!(h.services.pending.path().exists());
    h.mock.push(Reply::text("Two things came in."));
    let turn = h.send("what's new?").await.unwrap();
    assert_eq!(turn.report.text, "Two things came in.");
    assert!(
        turn.events.contains(&TurnEvent::CatchingUp),
        "{:?}",
        turn.events
    );
    let request = &h.mock.main_requests()[0];
    let prompt = request.last_user_text().unwrap();
    let expected = "] RECENT BACKGROUND UPDATES (mention key findings in your response):\n\
                    - (just now) Inbox triage: 2 emails need a reply\n\
                    - (just now) CI: build passed\n\
                    \n\
                    what's new?";
    assert!(prompt.starts_with('['), "{prompt}");
    assert!(prompt.ends_with(expected), "{prompt}");
    assert!(
        !h.services.pending.path().exists(),
        "the updates file is consumed"
    );

    h.mock.push(Reply::text("Nothing else."));
    let next = h.send("anything else?").await.unwrap();
    let prompt = h.mock.main_requests().pop().unwrap();
    let prompt = prompt.last_user_text().unwrap();
    assert!(prompt.ends_with("] anything else?"), "{prompt}");
    assert!(!prompt.contains("RECENT BACKGROUND UPDATES"), "{prompt}");
    assert!(
        !next
            .events
            .iter()
            .any(|e| matches!(e, TurnEvent::Notice(_) | TurnEvent::CatchingUp))
    );
    h.close().await;
}

/// SES-13, F-32: `/compact <instructions>` answers a stats line, the summariser sees the
/// instructions, `compacted` is logged with the session as its own parent, and the
/// conversation continues on the summary.
#[tokio::test]
async fn manual_compact_reports_stats_and_the_session_continues() {
    let h = AgentHarness::new().await;
    for (prompt, answer) in [
        ("plan: write the report", "Got it."),
        ("then email Sam", "Noted."),
        ("and book the dentist", "Done."),
    ] {
        h.mock.push(Reply::text(answer));
        h.send(prompt).await.unwrap();
    }
    let id = h.stored_session().unwrap();
    let stats = h.session.compact(Some("keep the plan")).await.unwrap();
    let parts: Vec<&str> = stats.split(" · ").collect();
    assert_eq!(parts.len(), 3, "{stats}");
    assert_eq!(parts[0], "3 turns", "{stats}");
    assert_eq!(parts[1], "< 1m", "{stats}");
    let tokens = parts[2]
        .strip_suffix("k tokens compacted")
        .unwrap_or_else(|| panic!("{stats}"));
    assert!(
        tokens == "< 1" || (!tokens.is_empty() && tokens.chars().all(|c| c.is_ascii_digit())),
        "{stats}"
    );

    let compaction = h
        .mock
        .model_requests()
        .into_iter()
        .find(support::mock_api::RecordedRequest::is_compaction)
        .expect("a compaction request");
    assert!(compaction.all_text().contains("keep the plan"));

    let history = h.history();
    let compactions = history
        .iter()
        .filter(|e| e.event == SessionEventKind::Compacted)
        .count();
    assert_eq!(compactions, 1, "exactly one per compaction: {history:?}");
    let last = history.last().unwrap();
    assert_eq!(last.event, SessionEventKind::Compacted, "{history:?}");
    assert_eq!(last.session_id, id);
    assert_eq!(last.parent_session_id.as_deref(), Some(id.as_str()));
    assert_eq!(h.stored_session().as_deref(), Some(id.as_str()));

    h.mock.push(Reply::text("Report first, then Sam."));
    let turn = h.send("what was the plan?").await.unwrap();
    assert_eq!(turn.report.text, "Report first, then Sam.");
    let last = h.mock.main_requests().pop().unwrap();
    assert!(
        last.all_text().contains("Conversation summary"),
        "{}",
        last.all_text()
    );
    h.close().await;
}

/// SES-13: the stats line must count the turn that ended just before `/compact`, however
/// soon `/compact` follows it.
#[tokio::test]
async fn compact_right_after_a_reply_counts_that_turn() {
    let h = AgentHarness::new().await;
    for prompt in ["one", "two", "three"] {
        h.mock.push(Reply::text("ok."));
        h.send(prompt).await.unwrap();
    }
    // Several rounds, since the race is lost only part of the time.
    for round in 0..3 {
        let stats = h.session.compact(None).await.unwrap();
        assert!(stats.starts_with("3 turns · "), "round {round}: {stats}");
        for prompt in ["four", "five", "six"] {
            h.mock.push(Reply::text("ok."));
            h.send(prompt).await.unwrap();
        }
    }
    h.close().await;
}

/// SES-14: with a configured compaction window the CLI compacts before answering; the turn
/// reports an `auto` compaction and the owner still gets the real answer without re-typing.
#[tokio::test]
async fn auto_compaction_mid_turn_still_answers() {
    let h = AgentHarness::with_cli_env(&[("CLAUDE_CODE_AUTO_COMPACT_WINDOW", "100000")]).await;
    for i in 0..3 {
        h.mock.push(Reply::text(format!("warm-up answer {i}")));
        h.send(&format!("warm-up {i}")).await.unwrap();
    }
    h.mock
        .push(Reply::text("A big answer.").with_input_tokens(90_000));
    h.send("say something big").await.unwrap();
    h.mock.push(Reply::text("Here is the real answer."));
    let turn = h.send("and now?").await.unwrap();
    let compaction = turn
        .report
        .compaction
        .clone()
        .expect("a compaction in the turn");
    assert_eq!(compaction.trigger, "auto");
    assert!(
        turn.events
            .iter()
            .any(|e| matches!(e, TurnEvent::Compacted { .. })),
        "{:?}",
        turn.events
    );
    assert_eq!(turn.report.text, "Here is the real answer.");
    assert!(
        h.mock
            .model_requests()
            .iter()
            .any(support::mock_api::RecordedRequest::is_compaction)
    );
    h.close().await;
}

/// SES-5, SES-11: `/clear` logs `cleared` for the old id and deletes `sessions.json`; the next
/// message starts a new session that does not know the old conversation.
#[tokio::test]
async fn clear_forgets_the_conversation() {
    let h = AgentHarness::new().await;
    h.mock.push(Reply::text("Noted: MANGO."));
    h.send("remember MANGO").await.unwrap();
    let old = h.stored_session().unwrap();
    h.session.clear().await.unwrap();
    let history = h.history();
    let last = history.last().unwrap();
    assert_eq!(last.event, SessionEventKind::Cleared);
    assert_eq!(last.session_id, old);
    assert!(!h.sessions_file().exists());
    assert_eq!(h.session.cli_pid(), None);

    h.mock.push(Reply::text("Fresh start."));
    let turn = h.send("hello again").await.unwrap();
    assert_eq!(turn.report.text, "Fresh start.");
    let new = h.stored_session().unwrap();
    assert_ne!(new, old);
    let history = h.history();
    let last = history.last().unwrap();
    assert_eq!(last.event, SessionEventKind::Created);
    assert_eq!(last.session_id, new);
    let request = h.mock.main_requests().pop().unwrap();
    assert!(
        !request.all_text().contains("MANGO"),
        "{}",
        request.all_text()
    );
    h.close().await;
}

/// Protocol §4.3/§4.5 anchors: a stored id the CLI does not know is replaced by a fresh
/// session, with a notice, instead of failing the message.
#[tokio::test]
async fn a_stale_session_id_starts_a_fresh_session() {
    let h = AgentHarness::new().await;
    let stale = "0b7f6c1e-2a3b-4c5d-8e9f-0123456789ab";
    std::fs::write(h.sessions_file(), stale).unwrap();
    h.mock.push(Reply::text("Hi, fresh here."));
    let started = std::time::Instant::now();
    let turn = h.send("hello?").await.unwrap();
    assert!(started.elapsed() < Duration::from_secs(20));
    assert_eq!(turn.report.text, "Hi, fresh here.");
    assert!(
        turn.events.iter().any(|e| matches!(e,
            TurnEvent::Notice(text) if text.contains("previous conversation could not be found"))),
        "{:?}",
        turn.events
    );
    let new = h.stored_session().expect("a new session id");
    assert_ne!(new, stale);
    let history = h.history();
    assert!(
        history
            .iter()
            .any(|e| e.event == SessionEventKind::Created && e.session_id == new),
        "{history:?}"
    );
    h.close().await;
}

/// AGT-15, USE-3: `/cost` passes through to the CLI and answers its text, then the ledger's
/// spend with the turn just made.
#[tokio::test]
async fn cost_passes_through_the_cli_text() {
    let h = AgentHarness::new().await;
    h.mock.push(Reply::text("Hello."));
    h.send("hi").await.unwrap();
    let cost = h.session.cost().await.unwrap();
    eprintln!("/cost answered: {cost:?}");
    assert!(!cost.trim().is_empty());
    assert_ne!(cost, "done.");
    assert!(
        cost.contains('$') || cost.to_lowercase().contains("cost"),
        "{cost}"
    );
    assert!(cost.contains("**Spend**: today $"), "{cost}");
    assert!(cost.contains("30 days by kind: main $"), "{cost}");
    // After a restart the answer is this /cost's alone, not the earlier ones replayed with
    // it (issue 24 §8).
    let h = h.restart().await;
    h.session.cost().await.unwrap();
    let again = h.session.cost().await.unwrap();
    let lines = |text: &str| text.lines().filter(|l| !l.trim().is_empty()).count();
    assert!(lines(&again) <= lines(&cost), "{cost:?}\nthen\n{again:?}");
    h.close().await;
}

/// AGT-10, SLC-6: changing thinking restarts the CLI on the same session, and the next
/// request carries the new thinking setting. Thinking off is honest about models that can't
/// turn it off (CLI 2.1.332's): the request still thinks, and `/thinking off` says so.
#[tokio::test]
async fn a_thinking_change_reconnects_on_the_same_session() {
    let h = AgentHarness::new().await;
    h.mock.push(Reply::text("One."));
    h.send("first").await.unwrap();
    let before = h.mock.main_requests().pop().unwrap();
    let reply = h
        .session
        .run_command(Command::Thinking(Some(Thinking::Off)))
        .await;
    if before.body["thinking"] == json!({"type": "disabled"}) {
        assert_eq!(reply, CommandReply::Done("thinking: off.".into()));
    } else {
        assert_eq!(before.body["thinking"]["type"], "adaptive");
        let said = reply.text();
        assert!(said.contains("can't turn thinking off"), "{said}");
    }
    let pid = h.session.cli_pid().expect("a running CLI");
    let id = h.stored_session().unwrap();

    h.session.set_thinking(Thinking::Adaptive).await.unwrap();
    let new_pid = h.session.cli_pid().expect("reconnected at once");
    assert_ne!(new_pid, pid);
    assert!(
        !std::path::Path::new(&format!("/proc/{pid}")).exists(),
        "old CLI reaped"
    );

    h.mock.push(Reply::text("Two."));
    let turn = h.send("second").await.unwrap();
    assert_eq!(turn.report.text, "Two.");
    let after = h.mock.main_requests().pop().unwrap();
    assert_eq!(after.body["thinking"]["type"], "adaptive");
    assert!(after.all_text().contains("first"), "history kept");
    assert_eq!(h.stored_session().as_deref(), Some(id.as_str()));
    assert_eq!(turn.report.result.session_id, id);
    assert_eq!(h.session.settings().await.thinking, Thinking::Adaptive);
    h.close().await;
}

/// Warm-up: `connect` starts the CLI before the first message, and the first message reuses it.
#[tokio::test]
async fn connect_starts_the_cli_before_the_first_message() {
    let h = AgentHarness::new().await;
    assert_eq!(h.session.cli_pid(), None);
    h.session.connect().await.unwrap();
    let pid = h.session.cli_pid().expect("a CLI after connect");
    assert!(std::path::Path::new(&format!("/proc/{pid}")).exists());
    assert!(h.mock.main_requests().is_empty(), "nothing sent yet");
    h.mock.push(Reply::text("Ready."));
    let turn = h.send("hi").await.unwrap();
    assert_eq!(turn.report.text, "Ready.");
    assert_eq!(h.session.cli_pid(), Some(pid));
    h.close().await;
}
