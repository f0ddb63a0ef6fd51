//! What each kind of session is offered (issue 17), read from the requests the real CLI sends
//! to the mock Messages API — not from our own argv: the built-in tools follow the session's
//! allowed-tools policy (AGT-5, BGF-6, PRM-2, PRM-4), the `discord` tools the availability
//! matrix (MCP-16, BGF-7), the screening session gets none (WHK-12), a subagent picks from
//! its session's offer (SUB-4), and the system prompt is byte-identical across turns and a
//! restart (AGT-3, SYS-1).

use crate::support;

use std::{collections::BTreeSet, sync::Arc, time::Duration};

use ollim_bot::{
    agent::screening::screen,
    background::BgRunner,
    claude::PermissionMode,
    domain::{
        job_options::{BgSession, UpdateMode},
        prompt_tag::PromptTag,
    },
    front_end::FrontEnd,
    mcp::availability::{ToolScope, listed_tools},
    scheduling::bg_job::BgJob,
};
use serde_json::json;
use support::{
    agent::AgentHarness,
    mock_api::{RecordedRequest, Reply},
};

/// What the main session's rules name (AGT-5), as the CLI offers them (`Task` is `Agent`).
const MAIN_BUILTINS: [&str; 10] = [
    "Agent",
    "Bash",
    "Edit",
    "Glob",
    "Grep",
    "Read",
    "Skill",
    "WebFetch",
    "WebSearch",
    "Write",
];

/// Tools of the CLI's default set that no policy of the bot ever permits without asking.
const NEVER_PERMITTED: [&str; 5] = [
    "CronCreate",
    "ScheduleWakeup",
    "EnterWorktree",
    "Workflow",
    "NotebookEdit",
];

fn builtins(request: &RecordedRequest) -> BTreeSet<String> {
    request
        .tool_names()
        .into_iter()
        .filter(|name| !name.starts_with("mcp__"))
        .map(str::to_owned)
        .collect()
}

fn discord(request: &RecordedRequest) -> BTreeSet<String> {
    request
        .tool_names()
        .into_iter()
        .filter_map(|name| name.strip_prefix("mcp__discord__"))
        .map(str::to_owned)
        .collect()
}

fn set(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|name| (*name).to_owned()).collect()
}

fn last_main(h: &AgentHarness) -> RecordedRequest {
    h.mock.main_requests().pop().expect("a main request")
}

fn runner(h: &AgentHarness) -> BgRunner {
    BgRunner::new(
        Arc::clone(&h.services),
        h.front_end.clone(),
        Arc::new(|| false),
    )
}

fn job(id: &str, session: BgSession) -> BgJob {
    let mut job = BgJob::new(PromptTag::RoutineBg(id.to_owned()), format!("run {id}"));
    job.session = session;
    job
}

fn request_of(h: &AgentHarness, id: &str) -> RecordedRequest {
    let tag = format!("[routine-bg:{id}]");
    h.mock
        .main_requests()
        .into_iter()
        .find(|r| r.user_prompts().iter().any(|p| p.contains(&tag)))
        .unwrap_or_else(|| panic!("no request of {id}"))
}

/// Main in `dontAsk` is offered the ten built-ins its rules name and main's `discord` tools;
/// after `/permissions default` the owner may approve anything (PRM-4), so the next turn is
/// offered the CLI's whole set; back in `dontAsk` a tool outside the rules is refused.
#[tokio::test]
async fn the_main_session_is_offered_what_its_mode_permits() {
    let h = AgentHarness::new().await;
    h.mock.push(Reply::text("hi"));
    h.exchange("hello").await.unwrap();
    let request = last_main(&h);
    assert_eq!(builtins(&request), set(&MAIN_BUILTINS));
    assert_eq!(discord(&request), set(&listed_tools(ToolScope::Main, None)));
    assert!(!discord(&request).contains("ping_user"));

    h.session
        .set_permission_mode(PermissionMode::Default)
        .await
        .unwrap();
    h.mock.push(Reply::text("asking now"));
    h.exchange("hello again").await.unwrap();
    let asking = builtins(&last_main(&h));
    for tool in NEVER_PERMITTED {
        assert!(asking.contains(tool), "{tool} may be approved: {asking:?}");
    }
    assert!(last_main(&h).all_text().contains("hello"), "same session");

    h.session
        .set_permission_mode(PermissionMode::DontAsk)
        .await
        .unwrap();
    h.mock.push(Reply::tool_use(
        "CronCreate",
        json!({"cron": "* * * * *", "prompt": "run forever", "recurring": true}),
    ));
    h.mock.push(Reply::text("quiet again"));
    h.exchange("and again").await.unwrap();
    let requests = h.mock.main_requests();
    let narrowed = builtins(&requests[requests.len() - 2]);
    // CLI 2.1.197 narrows the offer again; 2.1.332 keeps a conversation's departed tools
    // declared (for its prompt cache) until it is compacted. Either way none of them runs.
    assert!(narrowed.is_superset(&set(&MAIN_BUILTINS)), "{narrowed:?}");
    assert!(narrowed.is_subset(&asking), "{narrowed:?}");
    let refused = &requests[requests.len() - 1].tool_results()[0];
    assert!(
        refused.is_error,
        "CronCreate ran in dontAsk: {}",
        refused.content
    );
    h.close().await;
}

/// A tool `tool-policy.yaml` adds while main runs (PRM-11) is offered from the next turn on,
/// in the same conversation.
#[tokio::test]
async fn a_tool_the_policy_file_adds_is_offered_from_the_next_turn() {
    let h = AgentHarness::new().await;
    h.mock.push(Reply::text("noted"));
    h.exchange("remember PLUM").await.unwrap();
    assert!(!builtins(&last_main(&h)).contains("TaskList"));
    std::fs::write(
        h.sandbox.data_dir.join("tool-policy.yaml"),
        "main_session:\n  additional_allowed: [\"TaskList\"]\n",
    )
    .unwrap();
    h.mock.push(Reply::text("ok"));
    h.exchange("next").await.unwrap();
    let request = last_main(&h);
    assert!(builtins(&request).contains("TaskList"));
    assert!(request.all_text().contains("PLUM"), "same conversation");
    h.close().await;
}

/// An interactive fork lists its own tools and main's (it may be promoted, SES-10), never the
/// background ones.
#[tokio::test]
async fn an_interactive_fork_lists_fork_and_main_tools() {
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
    h.exchange("let's fork").await.unwrap();
    assert!(h.session.in_fork());
    let fork = h
        .mock
        .main_requests()
        .into_iter()
        .find(|r| {
            r.last_user_text()
                .is_some_and(|t| t.contains("[fork-started]"))
        })
        .expect("the fork's first request");
    let listed = discord(&fork);
    assert_eq!(listed, set(&listed_tools(ToolScope::InteractiveFork, None)));
    for tool in ["exit_fork", "save_context", "report_updates", "enter_fork"] {
        assert!(listed.contains(tool), "{tool}: {listed:?}");
    }
    assert!(!listed.contains("ping_user") && !listed.contains("compact_session"));
    assert_eq!(builtins(&fork), set(&MAIN_BUILTINS));

    // `/permissions default` inside the fork: the fork alone (PRM-7) is now offered what the
    // owner may approve, in the same fork session.
    h.session
        .set_permission_mode(PermissionMode::Default)
        .await
        .unwrap();
    h.mock.push(Reply::text("asking in the fork"));
    h.exchange("still forking").await.unwrap();
    assert!(h.session.in_fork());
    let asking = last_main(&h);
    assert!(builtins(&asking).contains("CronCreate"), "{asking:?}");
    assert!(
        asking.all_text().contains("[fork-started]"),
        "same fork session"
    );
    h.close().await;
}

/// A background run is offered the tool names of its set (BGF-6; `google_tasks` among them)
/// and only the gated tools its options open (BGF-7); a persistent routine also
/// `compact_session` (MCP-15).
#[tokio::test]
async fn background_runs_are_offered_their_set_and_open_gates_only() {
    let h = AgentHarness::new().await;
    let mut quiet = job("quiet", BgSession::Isolated);
    quiet.options.allow_ping = false;
    quiet.options.update_mode = UpdateMode::Blocked;
    h.mock.push(Reply::text("done quietly"));
    runner(&h).run(quiet).await.unwrap();
    let request = request_of(&h, "quiet");
    assert_eq!(builtins(&request), set(&["Bash", "Read", "Glob", "Grep"]));
    assert_eq!(
        discord(&request),
        set(&[
            "add_reminder",
            "list_reminders",
            "cancel_reminder",
            "spend_report",
            "google_tasks"
        ])
    );

    h.mock.push(Reply::text("done loudly"));
    runner(&h)
        .run(job("loud", BgSession::Forked))
        .await
        .unwrap();
    let loud = discord(&request_of(&h, "loud"));
    for tool in ["ping_user", "discord_embed", "send_file", "report_updates"] {
        assert!(loud.contains(tool), "{tool}: {loud:?}");
    }
    assert!(!loud.contains("follow_up_chain"), "no chain in this run");
    assert!(!loud.contains("enter_fork") && !loud.contains("compact_session"));
    assert!(!loud.contains("gmail") && !loud.contains("google_calendar"));

    h.mock.push(Reply::text("done persistently"));
    runner(&h)
        .run(job("a1b2c3d4", BgSession::Persistent))
        .await
        .unwrap();
    let persistent = request_of(&h, "a1b2c3d4");
    assert!(discord(&persistent).contains("compact_session"));
    for tool in NEVER_PERMITTED {
        assert!(!builtins(&persistent).contains(tool), "{tool}");
    }
    h.close().await;
}

/// The screening session reads untrusted text with no tools at all (WHK-12).
#[tokio::test]
async fn the_screening_session_is_offered_no_tools() {
    let h = AgentHarness::new().await;
    h.mock.push(Reply::text(r#"{"safe": true, "flagged": []}"#));
    let front_end: Arc<dyn FrontEnd> = h.front_end.clone();
    let answer = screen(
        &h.services,
        &front_end,
        "SCREEN-ME".to_owned(),
        Duration::from_secs(60),
    )
    .await
    .unwrap();
    assert!(answer.contains("safe"));
    let request = h
        .mock
        .main_requests()
        .into_iter()
        .find(|r| r.all_text().contains("SCREEN-ME"))
        .unwrap();
    assert!(
        request.tool_names().is_empty(),
        "{:?}",
        request.tool_names()
    );
    assert!(
        request.token_estimate() < 2000,
        "{}",
        request.token_estimate()
    );
    h.close().await;
}

/// A subagent called through `Agent` gets the tools its spec names, out of its session's
/// offer: `history-reviewer` only `Bash` (SUB-4).
#[tokio::test]
async fn a_subagent_is_offered_its_own_tools() {
    let h = AgentHarness::new().await;
    let requests = h.call_history_reviewer().await;
    let subagent = requests.first().expect("the subagent's request");
    assert_eq!(builtins(subagent), set(&["Bash"]));
    h.close().await;
}

/// The system prompt as the API caches it: the CLI's attribution block (a per-request
/// `x-anthropic-billing-header` line, not part of the prompt) left out.
fn cached_system(request: &RecordedRequest) -> String {
    let blocks = request.body["system"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    blocks
        .iter()
        .filter_map(|block| block["text"].as_str())
        .filter(|text| !text.starts_with("x-anthropic-billing-header"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The system prompt of the main session is the same bytes on every turn and after a
/// restart, and carries no per-machine or per-day section (issue 17).
#[tokio::test]
async fn the_system_prompt_is_byte_identical_across_turns_and_a_restart() {
    // One configured model: the CLI's default one falls back from its 1M-context variant after
    // the first answer of the mock, which changes the model line of its prompt.
    let h = AgentHarness::with_cli_env(&[("ANTHROPIC_MODEL", "sonnet")]).await;
    for text in ["first", "second"] {
        h.mock.push(Reply::text("ok"));
        h.exchange(text).await.unwrap();
    }
    let h = h.restart().await;
    h.mock.push(Reply::text("ok"));
    h.exchange("third").await.unwrap();
    let prompts: Vec<String> = h.mock.main_requests().iter().map(cached_system).collect();
    assert_eq!(prompts.len(), 3);
    for prompt in &prompts[1..] {
        let at = prompt
            .char_indices()
            .zip(prompts[0].chars())
            .find(|((_, a), b)| a != b)
            .map_or(prompt.len().min(prompts[0].len()), |((i, _), _)| i);
        assert!(
            *prompt == prompts[0],
            "differs at byte {at}: {:?} vs {:?}",
            prompts[0].get(at.saturating_sub(80)..(at + 80).min(prompts[0].len())),
            prompt.get(at.saturating_sub(80)..(at + 80).min(prompt.len())),
        );
    }
    let today = chrono::Utc::now().format("%Y-%m-%d").to_string();
    assert!(!prompts[0].contains(&today), "no date in the system prompt");
    assert!(!prompts[0].contains("Primary working directory"));
    h.close().await;
}
