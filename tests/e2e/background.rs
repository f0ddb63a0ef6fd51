//! Background runs end to end: the real CLI against the mock model, through the runner the
//! scheduler uses (BGF-1…9, BGF-5, HKS-1, MCP-3/4/8, PNG-5/7, PUP-2, SES-9, SES-15, CTX-3/7).

use crate::support;

use std::sync::Arc;

use ollim_bot::{
    background::BgRunner,
    domain::{
        job_options::{BgSession, UpdateMode},
        prompt_tag::PromptTag,
    },
    mcp::BUDGET_EXHAUSTED,
    scheduling::bg_job::BgJob,
    state::{fork_messages::ForkLookup, history::SessionEventKind},
};
use serde_json::json;
use support::{agent::AgentHarness, mock_api::Reply};

fn runner(h: &AgentHarness) -> BgRunner {
    BgRunner::new(
        Arc::clone(&h.services),
        h.front_end.clone(),
        Arc::new(|| false),
    )
}

fn job(id: &str, body: &str) -> BgJob {
    BgJob::new(PromptTag::RoutineBg(id.to_owned()), body)
}

/// The request of the run whose prompt carries `tag`.
fn requests_with(h: &AgentHarness, tag: &str) -> Vec<support::mock_api::RecordedRequest> {
    h.mock
        .main_requests()
        .into_iter()
        .filter(|r| r.user_prompts().iter().any(|p| p.contains(tag)))
        .collect()
}

#[tokio::test]
async fn a_forked_run_sees_main_and_an_isolated_one_does_not() {
    let h = AgentHarness::new().await;
    h.mock.push(Reply::text("Noted: KIWI."));
    h.exchange("remember the word KIWI").await.unwrap();
    let main_id = h.stored_session().unwrap();

    h.mock.push(Reply::text("forked run done"));
    let outcome = runner(&h).run(job("forked", "check things")).await.unwrap();
    let forked = requests_with(&h, "[routine-bg:forked]");
    assert!(
        forked[0].all_text().contains("KIWI"),
        "forked run sees main"
    );
    let prompt = forked[0].last_user_text().unwrap().to_owned();
    assert!(prompt.starts_with('['), "timestamp first: {prompt}");
    assert!(prompt.contains("] [routine-bg:forked] "), "{prompt}");
    assert!(prompt.ends_with("check things"), "{prompt}");
    let bg_id = outcome.session_id.unwrap();
    assert_ne!(bg_id.as_str(), main_id);

    let mut isolated = job("isolated", "check alone");
    isolated.session = BgSession::Isolated;
    h.mock.push(Reply::text("isolated run done"));
    let isolated_outcome = runner(&h).run(isolated).await.unwrap();
    let alone = requests_with(&h, "[routine-bg:isolated]");
    assert!(
        !alone[0].all_text().contains("KIWI"),
        "isolated run starts fresh"
    );

    let history = h.history();
    let bg = history
        .iter()
        .find(|e| e.event == SessionEventKind::BgFork)
        .unwrap();
    assert_eq!(bg.session_id, bg_id.as_str());
    assert_eq!(bg.parent_session_id.as_deref(), Some(main_id.as_str()));
    let iso = history
        .iter()
        .find(|e| e.event == SessionEventKind::IsolatedBg)
        .unwrap();
    assert_eq!(
        iso.session_id,
        isolated_outcome.session_id.unwrap().as_str()
    );
    assert_eq!(iso.parent_session_id, None);
    assert_eq!(h.stored_session().as_deref(), Some(main_id.as_str()));
    assert!(
        h.front_end.texts.lock().unwrap().is_empty(),
        "text is discarded"
    );
    h.close().await;
}

#[tokio::test]
async fn a_ping_posts_once_spends_a_token_and_is_tracked_for_replies() {
    let h = AgentHarness::new().await;
    h.mock.push(Reply::tool_use(
        "mcp__discord__ping_user",
        json!({"message": "Your laundry is done"}),
    ));
    h.mock.push(Reply::tool_use(
        "mcp__discord__ping_user",
        json!({"message": "Second ping"}),
    ));
    h.mock.push(Reply::tool_use(
        "mcp__discord__report_updates",
        json!({"message": "Pinged about laundry"}),
    ));
    h.mock.push(Reply::text("done"));
    let outcome = runner(&h).run(job("laundry", "ping me")).await.unwrap();
    assert_eq!(
        *h.front_end.texts.lock().unwrap(),
        vec!["[bg] Your laundry is done".to_owned()]
    );
    let results: Vec<String> = h
        .mock
        .main_requests()
        .iter()
        .flat_map(support::mock_api::RecordedRequest::tool_results)
        .map(|r| r.content)
        .collect();
    assert!(results.contains(&"Message sent.".to_owned()), "{results:?}");
    assert!(
        results.iter().any(|r| r.starts_with("Already sent 1 ping")),
        "{results:?}"
    );
    let budget = h.services.ping_budget.snapshot().unwrap();
    assert_eq!(budget.whole_available(), 4);
    assert_eq!(budget.daily_used, 1);
    assert!(outcome.reported);
    let message = outcome.messages[0];
    match h.services.fork_messages.lookup(message) {
        ForkLookup::Live {
            fork_session_id, ..
        } => assert_eq!(fork_session_id, outcome.session_id.unwrap().as_str()),
        other => panic!("not tracked: {other:?}"),
    }
    assert_eq!(h.services.pending.peek()[0].message, "Pinged about laundry");
    h.close().await;
}

#[tokio::test]
async fn an_exhausted_budget_refuses_the_ping_and_posts_nothing() {
    let h = AgentHarness::new().await;
    for _ in 0..5 {
        assert_eq!(
            h.services.ping_budget.try_spend().unwrap(),
            ollim_bot::state::ping_budget::Spend::Spent
        );
    }
    h.mock.push(Reply::tool_use(
        "mcp__discord__ping_user",
        json!({"message": "hello?"}),
    ));
    h.mock.push(Reply::text("ok, no ping"));
    runner(&h).run(job("quiet", "ping me")).await.unwrap();
    assert!(h.front_end.texts.lock().unwrap().is_empty());
    let results: Vec<String> = h
        .mock
        .main_requests()
        .iter()
        .flat_map(support::mock_api::RecordedRequest::tool_results)
        .map(|r| r.content)
        .collect();
    assert_eq!(results, vec![BUDGET_EXHAUSTED.to_owned()]);
    h.close().await;
}

#[tokio::test]
async fn the_stop_hook_makes_an_always_run_report() {
    let h = AgentHarness::new().await;
    h.mock.push(Reply::text("all quiet, nothing to say"));
    h.mock.push(Reply::tool_use(
        "mcp__discord__report_updates",
        json!({"message": "Checked the inbox: nothing new"}),
    ));
    h.mock.push(Reply::text("reported"));
    let mut always = job("inbox", "check the inbox");
    always.options.update_mode = UpdateMode::Always;
    let outcome = runner(&h).run(always).await.unwrap();
    assert!(outcome.reported);
    let all: String = h
        .mock
        .main_requests()
        .iter()
        .map(support::mock_api::RecordedRequest::all_text)
        .collect();
    assert!(
        all.contains("report_updates"),
        "the hook's reason reached the model"
    );
    assert_eq!(
        h.services.pending.peek()[0].message,
        "Checked the inbox: nothing new"
    );
    h.close().await;
}

#[tokio::test]
async fn five_runs_at_once_lose_no_update() {
    let h = AgentHarness::new().await;
    h.mock.add_rule(|request| {
        if !request.tool_results().is_empty() {
            return Some(Reply::text("done"));
        }
        let prompt = request.last_user_text()?;
        let start = prompt.find("[routine-bg:run")? + "[routine-bg:".len();
        let id: String = prompt[start..].chars().take_while(|c| *c != ']').collect();
        Some(Reply::tool_use(
            "mcp__discord__report_updates",
            json!({"message": format!("finding from {id}")}),
        ))
    });
    let runner = Arc::new(runner(&h));
    let runs: Vec<_> = (0..5)
        .map(|i| {
            let runner = Arc::clone(&runner);
            tokio::spawn(async move { runner.run(job(&format!("run{i}"), "report")).await })
        })
        .collect();
    for run in runs {
        run.await.unwrap().unwrap();
    }
    let mut messages: Vec<String> = h
        .services
        .pending
        .peek()
        .into_iter()
        .map(|u| u.message)
        .collect();
    messages.sort();
    let expected: Vec<String> = (0..5).map(|i| format!("finding from run{i}")).collect();
    assert_eq!(messages, expected);
    h.close().await;
}

#[tokio::test]
async fn a_failed_run_tells_the_owner_and_logs_nothing() {
    let h = AgentHarness::new().await;
    h.mock.set_default(Reply::error(
        400,
        "invalid_request_error",
        "prompt is broken",
    ));
    let result = runner(&h).run(job("morning-checkin", "hello")).await;
    assert!(result.is_err());
    assert_eq!(
        *h.front_end.texts.lock().unwrap(),
        vec!["morning checkin couldn't complete.".to_owned()]
    );
    assert!(
        !h.history()
            .iter()
            .any(|e| e.event == SessionEventKind::IsolatedBg || e.event == SessionEventKind::BgFork)
    );
    h.close().await;
}

#[tokio::test]
async fn a_persistent_routine_remembers_its_last_fire_and_compacts_to_a_new_id() {
    let h = AgentHarness::new().await;
    let persistent = |body: &str| {
        // The routine's session is filed under the id its tag carries (PRS-1).
        let mut job = job("f1f2f3f4", body);
        job.session = BgSession::Persistent;
        job
    };
    let sessions = ollim_bot::state::sessions::RoutineSessionStore::new(&h.services.data_dir);
    h.mock.push(Reply::text("Observed: FIG count is 7."));
    let first = runner(&h).run(persistent("count the figs")).await.unwrap();
    let first_id = first.session_id.unwrap();
    assert_eq!(sessions.load("f1f2f3f4").as_ref(), Some(&first_id));

    h.mock.push(Reply::tool_use(
        "mcp__discord__compact_session",
        json!({"instructions": "keep the fig counts"}),
    ));
    h.mock.push(Reply::text("Now 9 figs; compacting."));
    let second = runner(&h).run(persistent("count again")).await.unwrap();
    let second_run = requests_with(&h, "count again");
    assert!(
        second_run[0].all_text().contains("FIG count is 7"),
        "the second fire resumes the first one's session"
    );
    let prompt = second_run[0].last_user_text().unwrap().to_owned();
    assert!(
        prompt.contains("SESSION: Persistent — your context carries across fires."),
        "{prompt}"
    );
    let results: Vec<String> = h
        .mock
        .main_requests()
        .iter()
        .flat_map(support::mock_api::RecordedRequest::tool_results)
        .map(|r| r.content)
        .collect();
    assert!(
        results
            .iter()
            .any(|r| r.starts_with("Compaction scheduled")),
        "{results:?}"
    );
    let compaction = h
        .mock
        .model_requests()
        .into_iter()
        .find(support::mock_api::RecordedRequest::is_compaction)
        .expect("the compaction really ran");
    assert!(compaction.all_text().contains("keep the fig counts"));
    let compacted = sessions.load("f1f2f3f4").unwrap();
    assert_ne!(compacted, first_id, "a new id after compaction");
    assert_eq!(second.session_id.as_ref(), Some(&compacted));
    let persistent_events: Vec<_> = h
        .history()
        .into_iter()
        .filter(|e| e.event == SessionEventKind::PersistentBg)
        .collect();
    assert_eq!(persistent_events.len(), 2);
    assert_eq!(persistent_events[1].session_id, compacted.as_str());
    assert_eq!(persistent_events[1].parent_session_id, None);

    // Outside persistent runs the tool is not offered (MCP-15, issue 17); a call is refused.
    h.mock.push(Reply::tool_use(
        "mcp__discord__compact_session",
        json!({"instructions": "x"}),
    ));
    h.mock.push(Reply::text("fine"));
    h.exchange("compact yourself").await.unwrap();
    let last = h.mock.main_requests().last().unwrap().clone();
    assert!(!last.tool_names().contains(&"mcp__discord__compact_session"));
    assert!(last.tool_results().iter().all(|r| r.is_error));
    assert!(!last.tool_results().is_empty());
    h.close().await;
}
