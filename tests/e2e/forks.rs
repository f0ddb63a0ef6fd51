//! Interactive forks end to end: the real CLI against the mock model, driven through the main
//! session's exchange API (IFK-1…10, IFK-17, SES-8, SES-10, SES-16, MCP-6…9, CTX-3, AGT-18).

use crate::support;

use ollim_bot::{
    agent::Target,
    domain::embed::EmbedColor,
    domain::fork_control::ExitAction,
    front_end::TurnPlace,
    state::{fork_messages::ForkLookup, history::SessionEventKind},
};
use serde_json::json;
use support::{agent::AgentHarness, mock_api::Reply};

/// Main says something memorable, then calls `enter_fork`; the fork answers its first prompt.
async fn open_fork_by_tool(h: &AgentHarness) -> String {
    h.mock.push(Reply::text("Noted: MANGO."));
    h.exchange("remember the word MANGO").await.unwrap();
    let main_id = h.stored_session().unwrap();
    // Whether the CLI asks the model again before the interrupt lands is a race, so the
    // follow-up and the fork's first prompt are answered by rules, not by queue order.
    h.mock.add_rule(|request| {
        let entering = request
            .tool_results()
            .iter()
            .any(|r| r.content.starts_with("Entering fork"));
        let started = request
            .last_user_text()
            .is_some_and(|text| text.contains("[fork-started]"));
        if started {
            Some(Reply::text("Fork open: let's plan meals."))
        } else if entering {
            Some(Reply::text("this text is cut short"))
        } else {
            None
        }
    });
    h.mock.push(Reply::tool_use(
        "mcp__discord__enter_fork",
        json!({"topic": "meal prep"}),
    ));
    h.exchange("let's fork this").await.unwrap();
    main_id
}

fn last_prompt(h: &AgentHarness) -> String {
    h.mock
        .main_requests()
        .last()
        .and_then(|r| r.last_user_text().map(str::to_owned))
        .unwrap_or_default()
}

#[tokio::test]
async fn enter_fork_opens_a_fork_that_takes_the_next_messages() {
    let h = AgentHarness::new().await;
    let main_id = open_fork_by_tool(&h).await;
    assert!(h.session.in_fork());
    let embeds = h.front_end.embeds.lock().unwrap().clone();
    let entry = embeds.last().expect("entry embed");
    assert_eq!(entry.title, "Forked Session");
    assert_eq!(entry.color, EmbedColor::Purple);
    assert_eq!(entry.description.as_deref(), Some("Topic: meal prep"));
    let fork_first = h.mock.main_requests().last().unwrap().clone();
    assert!(fork_first.all_text().contains("MANGO"), "forked from main");
    assert!(last_prompt(&h).contains("[fork-started]"));

    h.mock.push(Reply::text("Still in the fork."));
    let text = h.exchange("what about tuesday?").await.unwrap();
    assert_eq!(text, "Still in the fork.");
    assert!(last_prompt(&h).ends_with("what about tuesday?"));
    assert_eq!(h.stored_session().as_deref(), Some(main_id.as_str()));
    let forks: Vec<_> = h
        .history()
        .into_iter()
        .filter(|e| e.event == SessionEventKind::InteractiveFork)
        .collect();
    assert_eq!(forks.len(), 1, "interactive_fork logged once");
    assert_eq!(
        forks[0].parent_session_id.as_deref(),
        Some(main_id.as_str())
    );
    assert_ne!(forks[0].session_id, main_id);
    // The entry embed and both fork replies are recorded under the fork's id (SES-16).
    let text = std::fs::read_to_string(h.services.fork_messages.path()).unwrap();
    let records: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
    assert_eq!(records.len(), 3, "{text}");
    for record in &records {
        assert_eq!(record["fork_session_id"], forks[0].session_id.as_str());
        assert_eq!(record["parent_session_id"], main_id.as_str());
        let id = record["message_id"].as_u64().unwrap();
        assert!(matches!(
            h.services.fork_messages.lookup(id),
            ForkLookup::Live { .. }
        ));
    }
    h.close().await;
}

#[tokio::test]
async fn exit_tools_wait_for_the_owner_then_discard() {
    let h = AgentHarness::new().await;
    h.mock.push(Reply::text("Hi."));
    h.exchange("hello").await.unwrap();
    let main_id = h.stored_session().unwrap();
    // The fork's first reply tries to leave at once: refused until the owner speaks (IFK-17).
    h.mock
        .push(Reply::tool_use("mcp__discord__exit_fork", json!({})));
    h.mock.push(Reply::text("Okay, staying."));
    h.session
        .open_fork_command(Some("errands".into()), TurnPlace::Conversation)
        .await
        .unwrap();
    let results = h.mock.main_requests().last().unwrap().tool_results();
    assert!(
        results
            .iter()
            .any(|r| r.content.starts_with("Error:") && r.content.contains("hasn't said")),
        "{results:?}"
    );
    assert!(h.session.in_fork());
    h.mock
        .push(Reply::tool_use("mcp__discord__exit_fork", json!({})));
    h.mock.push(Reply::text("Dropping it."));
    h.exchange("never mind, drop it").await.unwrap();
    assert!(!h.session.in_fork());
    let last = h.front_end.embeds.lock().unwrap().last().cloned().unwrap();
    assert_eq!(last.title, "Fork Ended — discarded");
    assert_eq!(last.color, EmbedColor::Grey);
    assert_eq!(h.stored_session().as_deref(), Some(main_id.as_str()));
    // Outside a fork the exit tools are not even offered (MCP-7…9, issue 17): a call is
    // refused by the CLI.
    h.mock
        .push(Reply::tool_use("mcp__discord__exit_fork", json!({})));
    h.mock.push(Reply::text("Not in a fork."));
    h.exchange("exit the fork").await.unwrap();
    let last = h.mock.main_requests().last().unwrap().clone();
    assert!(!last.tool_names().contains(&"mcp__discord__exit_fork"));
    let results = last.tool_results();
    assert!(results.iter().all(|r| r.is_error), "{results:?}");
    assert!(!h.session.in_fork());
    h.close().await;
}

#[tokio::test]
async fn report_updates_ends_the_fork_and_the_summary_reaches_main() {
    let h = AgentHarness::new().await;
    let main_id = open_fork_by_tool(&h).await;
    h.mock.push(Reply::tool_use(
        "mcp__discord__report_updates",
        json!({"message": "Meal plan: lentils on Tuesday"}),
    ));
    h.mock.push(Reply::text("Reported."));
    h.exchange("report back and close this").await.unwrap();
    assert!(!h.session.in_fork());
    let last = h.front_end.embeds.lock().unwrap().last().cloned().unwrap();
    assert_eq!(last.title, "Fork Ended — summary queued");
    assert_eq!(last.color, EmbedColor::Blue);
    assert_eq!(
        last.description.as_deref(),
        Some("Meal plan: lentils on Tuesday")
    );
    assert_eq!(h.stored_session().as_deref(), Some(main_id.as_str()));
    h.mock.push(Reply::text("Welcome back."));
    h.exchange("back in main").await.unwrap();
    let prompt = last_prompt(&h);
    assert!(prompt.contains("RECENT BACKGROUND UPDATES"), "{prompt}");
    assert!(prompt.contains("Meal plan: lentils on Tuesday"), "{prompt}");
    assert!(h.services.pending.peek().is_empty(), "consumed by main");
    h.close().await;
}

#[tokio::test]
async fn save_context_promotes_the_fork_without_reconnecting() {
    let h = AgentHarness::new().await;
    let main_id = open_fork_by_tool(&h).await;
    h.services.pending.append("older update").unwrap();
    h.mock
        .push(Reply::tool_use("mcp__discord__save_context", json!({})));
    h.mock.push(Reply::text("Saved."));
    h.exchange("keep this, save it").await.unwrap();
    let results = h.mock.main_requests().last().unwrap().tool_results();
    assert!(
        results
            .iter()
            .any(|r| r.content.contains("new background updates")),
        "blocked by the update that arrived after the fork began: {results:?}"
    );
    h.services.pending.clear().unwrap();
    h.mock
        .push(Reply::tool_use("mcp__discord__save_context", json!({})));
    h.mock.push(Reply::text("Saved now."));
    h.exchange("save it please").await.unwrap();
    assert!(!h.session.in_fork());
    let fork_id = h.stored_session().unwrap();
    assert_ne!(fork_id, main_id);
    let history = h.history();
    let last = history.last().unwrap();
    assert_eq!(last.event, SessionEventKind::Swapped);
    assert_eq!(last.parent_session_id.as_deref(), Some(main_id.as_str()));
    assert!(
        !history
            .iter()
            .any(|e| e.event == SessionEventKind::Compacted)
    );
    let titles = h.front_end.embed_titles();
    assert_eq!(titles.last().unwrap(), "Fork Ended — saved to main");
    h.mock.push(Reply::text("Main now knows the fork."));
    h.exchange("what did we plan?").await.unwrap();
    let request = h.mock.main_requests().last().unwrap().clone();
    assert!(
        request.all_text().contains("save it please"),
        "promoted context"
    );
    h.close().await;
}

#[tokio::test]
async fn buttons_and_slash_fork_exit_directly() {
    let h = AgentHarness::new().await;
    h.mock.push(Reply::text("Hi."));
    h.exchange("hello").await.unwrap();
    let main_id = h.stored_session().unwrap();
    h.mock.push(Reply::text("Ready when you are."));
    h.session
        .open_fork_command(None, TurnPlace::Conversation)
        .await
        .unwrap();
    assert!(h.session.in_fork());
    assert!(last_prompt(&h).contains("[fork-started]"));
    h.session
        .fork_button(
            ExitAction::Exit,
            TurnPlace::Conversation,
            h.session.branch_for(Target::MainDoor),
        )
        .await
        .unwrap();
    assert!(!h.session.in_fork());
    assert_eq!(
        h.front_end.embed_titles().last().unwrap(),
        "Fork Ended — discarded"
    );
    assert_eq!(h.stored_session().as_deref(), Some(main_id.as_str()));

    h.mock.push(Reply::text("Fork two."));
    h.session
        .open_fork_command(Some("taxes".into()), TurnPlace::Conversation)
        .await
        .unwrap();
    h.mock.push(Reply::tool_use(
        "mcp__discord__report_updates",
        json!({"message": "Taxes: file by April"}),
    ));
    h.mock.push(Reply::text("Summary sent."));
    h.session
        .fork_button(
            ExitAction::Report,
            TurnPlace::Conversation,
            h.session.branch_for(Target::MainDoor),
        )
        .await
        .unwrap();
    let last = h.front_end.embeds.lock().unwrap().last().cloned().unwrap();
    assert_eq!(last.title, "Fork Ended — summary queued");
    assert_eq!(last.description.as_deref(), Some("Taxes: file by April"));
    assert_eq!(h.services.pending.peek().len(), 1);

    h.mock.push(Reply::text("Fork three."));
    h.session
        .open_fork_command(None, TurnPlace::Conversation)
        .await
        .unwrap();
    h.mock.push(Reply::text("A fork reply."));
    h.exchange("one message").await.unwrap();
    h.session
        .fork_button(
            ExitAction::Save,
            TurnPlace::Conversation,
            h.session.branch_for(Target::MainDoor),
        )
        .await
        .unwrap();
    assert_eq!(
        h.front_end.embed_titles().last().unwrap(),
        "Fork Ended — saved to main"
    );
    assert_ne!(h.stored_session().as_deref(), Some(main_id.as_str()));
    assert!(
        h.session
            .fork_button(
                ExitAction::Exit,
                TurnPlace::Conversation,
                h.session.branch_for(Target::MainDoor)
            )
            .await
            .is_err(),
        "no fork left"
    );
    h.close().await;
}

#[tokio::test]
async fn main_session_tools_send_files_and_rename_but_refuse_fork_tools() {
    let h = AgentHarness::new().await;
    let file = h.sandbox.data_dir.join("notes.txt");
    std::fs::write(&file, "shopping list").unwrap();
    h.mock.push(
        Reply::tool_use(
            "mcp__discord__send_file",
            json!({"file_path": file.display().to_string(), "message": "here it is"}),
        )
        .and_tool_use(
            "mcp__discord__update_names",
            json!({"user_name": "Jules", "bot_name": "Olli"}),
        )
        .and_tool_use(
            "mcp__discord__report_updates",
            json!({"message": "nothing"}),
        )
        .and_tool_use("mcp__discord__ping_user", json!({"message": "hey"})),
    );
    h.mock.push(Reply::text("Done."));
    h.exchange("send me my notes and call me Jules")
        .await
        .unwrap();
    let files = h.front_end.files.lock().unwrap().clone();
    assert_eq!(files, vec![(file.clone(), Some("here it is".to_owned()))]);
    let env = std::fs::read_to_string(h.sandbox.data_dir.join("project.env")).unwrap();
    assert!(env.contains("OLLIM_USER_NAME=Jules"), "{env}");
    assert!(env.contains("OLLIM_BOT_NAME=Olli"), "{env}");
    let last = h.mock.main_requests().last().unwrap().clone();
    let results = last.tool_results();
    assert_eq!(results[0].content, "File sent.");
    assert!(results[1].content.starts_with("Names saved"), "{results:?}");
    // Main is not offered the fork and background tools (issue 17); the CLI refuses them.
    for tool in ["mcp__discord__report_updates", "mcp__discord__ping_user"] {
        assert!(!last.tool_names().contains(&tool), "{tool} offered to main");
    }
    assert!(results[2].is_error && results[3].is_error, "{results:?}");
    assert!(h.texts_sent().is_empty(), "nothing pinged from main");
    assert!(
        !h.services.ping_budget.path().exists()
            || h.services.ping_budget.snapshot().unwrap().daily_used == 0,
        "main never spends the budget (PNG-1)"
    );
    h.close().await;
}
