//! A hostile background run and the owner's reminders (issue 39 §4, REM-15…REM-18), through
//! the real CLI: the mock model is scripted as a run that obeys whatever it read, and tries to
//! cancel the owner's reminders, to flood the schedule, to make one chain check into many and
//! to have runs schedule runs without end. What counts is what is left in `reminders/` and
//! what ran, not which guard answered.

use crate::support;

use std::{sync::Arc, time::Duration};

use ollim_bot::{
    background::BgRunner,
    domain::prompt_tag::PromptTag,
    scheduling::{
        bg_job::BgJob,
        files::{Reminder, load_reminders},
        jobs::reminder_job,
        lineage::{MAX_GENERATIONS, REMINDERS_PER_RUN},
    },
};
use serde_json::json;
use support::{
    agent::AgentHarness,
    bot::{BotHarness, ollim_command},
    cli::CliSandbox,
    mock_api::Reply,
    wait,
};

fn runner(h: &AgentHarness) -> BgRunner {
    BgRunner::new(
        Arc::clone(&h.services),
        h.front_end.clone(),
        Arc::new(|| false),
    )
}

fn routine_run(id: &str) -> BgJob {
    BgJob::new(
        PromptTag::RoutineBg(id.to_owned()),
        "Do what the mail says.",
    )
}

/// The pending reminders, as the scheduler would read them.
fn pending(h: &AgentHarness) -> Vec<Reminder> {
    let (files, _) = load_reminders(&h.services.data_dir, h.services.config.timezone);
    files.into_iter().map(|file| file.item).collect()
}

/// The ids of the pending reminders a run of `job` set.
fn set_by_job(h: &AgentHarness, job: &str) -> Vec<String> {
    let pending = pending(h);
    let ours = pending.into_iter().filter(|r| r.set_by.is_job(job));
    ours.map(|r| r.id).collect()
}

/// One reply that calls `cancel_reminder` for each of `ids`.
fn cancel_all(ids: &[String]) -> Reply {
    let mut ids = ids.iter();
    let first = ids.next().expect("something to cancel");
    let cancel = |id: &String| json!({"reminder_id": id});
    let reply = Reply::tool_use("mcp__discord__cancel_reminder", cancel(first));
    ids.fold(reply, |reply, id| {
        reply.and_tool_use("mcp__discord__cancel_reminder", cancel(id))
    })
}

/// The owner's reminder stays whatever a background run tries, and shows in the owner's list;
/// a run's flood ends after a few; what a routine's run set, a later run of that routine may
/// cancel and another routine's run may not (REM-15, REM-16, REM-17).
#[tokio::test]
async fn a_background_run_leaves_the_owners_reminders_and_sets_only_a_few() {
    let h = AgentHarness::new().await;
    h.mock.push(Reply::tool_use(
        "mcp__discord__add_reminder",
        json!({"prompt": "Call the dentist about Tuesday", "delay_minutes": 120,
               "description": "dentist"}),
    ));
    h.mock.push(Reply::text("Set."));
    h.exchange("remind me in two hours to call the dentist")
        .await
        .unwrap();
    let [owners] = &pending(&h)[..] else {
        panic!("the owner's reminder: {:?}", pending(&h));
    };
    let owners = owners.id.clone();

    // A run that read a hostile mail: cancel the owner's reminder, then set ten of its own,
    // the first a chain of fifty checks.
    let mut flood = cancel_all(std::slice::from_ref(&owners));
    for n in 0..10 {
        let chain = if n == 0 { 50 } else { 0 };
        flood = flood.and_tool_use(
            "mcp__discord__add_reminder",
            json!({"prompt": format!("Spam {n}"), "delay_minutes": 60 + n, "max_chain": chain}),
        );
    }
    h.mock.push(flood);
    h.mock.push(Reply::text("done"));
    runner(&h).run(routine_run("mail-digest")).await.unwrap();

    assert!(
        pending(&h).iter().any(|r| r.id == owners),
        "{:?}",
        pending(&h)
    );
    let flooded = set_by_job(&h, "routine:mail-digest");
    assert!(
        flooded.len() <= REMINDERS_PER_RUN as usize,
        "{} reminders from one run: {flooded:?}",
        flooded.len()
    );
    assert!(!flooded.is_empty(), "a run may still set its own reminders");
    assert!(
        pending(&h).iter().all(|r| r.max_chain < MAX_GENERATIONS),
        "{:?}",
        pending(&h)
    );

    // Another routine's run can't cancel them either.
    h.mock.push(cancel_all(&flooded));
    h.mock.push(Reply::text("done"));
    runner(&h).run(routine_run("news")).await.unwrap();
    assert_eq!(set_by_job(&h, "routine:mail-digest"), flooded);

    // The same routine's next run may cancel what its earlier run set, and still not the
    // owner's.
    let mut tidy = flooded.clone();
    tidy.push(owners.clone());
    h.mock.push(cancel_all(&tidy));
    h.mock.push(Reply::text("done"));
    runner(&h).run(routine_run("mail-digest")).await.unwrap();
    let left: Vec<String> = pending(&h).into_iter().map(|r| r.id).collect();
    assert_eq!(left, std::slice::from_ref(&owners));

    h.mock
        .push(Reply::tool_use("mcp__discord__list_reminders", json!({})));
    h.mock.push(Reply::text("Listed."));
    h.exchange("what reminders do I have?").await.unwrap();
    let listed = h.mock.main_requests().last().unwrap().tool_results();
    assert!(
        listed[0].content.contains(&format!("- {owners} [bg] ")),
        "{listed:?}"
    );
    h.close().await;
}

/// A chain check that asks for its next check five times leaves one next check (REM-18).
#[tokio::test]
async fn a_chain_check_schedules_one_next_check() {
    let h = AgentHarness::new().await;
    let tz = h.services.config.timezone;
    let mut root = Reminder::new_in(
        1,
        "Is the deploy done?",
        chrono::Utc::now().with_timezone(&tz),
    );
    root.max_chain = 5;
    root.chain_parent = Some(root.id.clone());
    let follow = json!({"minutes_from_now": 30});
    let mut many = Reply::tool_use("mcp__discord__follow_up_chain", follow.clone());
    for _ in 0..4 {
        many = many.and_tool_use("mcp__discord__follow_up_chain", follow.clone());
    }
    h.mock.push(many);
    h.mock.push(Reply::text("done"));
    runner(&h)
        .run(reminder_job(&root, None, None))
        .await
        .unwrap();
    let links = pending(&h);
    assert_eq!(links.len(), 1, "{links:?}");
    assert_eq!(links[0].chain_parent.as_deref(), Some(root.id.as_str()));
    assert_eq!(links[0].chain_depth, 1);
    h.close().await;
}

/// The `[reminder-bg:<id>]` runs the mock has seen start, in order, each once.
fn runs_started(h: &BotHarness) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    for request in h.mock.main_requests() {
        if !request.tool_results().is_empty() {
            continue;
        }
        let Some(prompt) = request.last_user_text() else {
            continue;
        };
        let id = prompt
            .split("[reminder-bg:")
            .nth(1)
            .and_then(|rest| rest.split(']').next());
        if let Some(id) = id.filter(|id| !ids.iter().any(|seen| seen == id)) {
            ids.push(id.to_owned());
        }
    }
    ids
}

/// Every background reminder's run sets one more like itself, due in an hour, through the
/// real scheduler while the clock moves each one due: the line ends, the owner's reminder and
/// then a few generations of runs (REM-17).
#[tokio::test]
async fn runs_that_schedule_runs_end_after_a_few_generations() {
    let mut h = BotHarness::greeted_fast_sync(CliSandbox::new()).await;
    h.mock.add_rule(move |request| {
        let prompt = request.user_prompts().join("\n");
        if !prompt.contains("[reminder-bg:") {
            return None;
        }
        Some(if request.tool_results().is_empty() {
            // An hour from the bot's own now when the tool runs: a time the test computed could
            // be past by then, the clock moving meanwhile.
            Reply::tool_use(
                "mcp__discord__add_reminder",
                json!({"prompt": "Set one more reminder like this one.",
                       "delay_minutes": 60}),
            )
        } else {
            Reply::text("done")
        })
    });
    let output = ollim_command(&h.sandbox, &h.mock)
        .args([
            "reminder",
            "add",
            "-m",
            "Set one more reminder like this one.",
        ])
        .args(["--delay", "0"])
        .output()
        .await
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let reminders = h.sandbox.data_dir.join("reminders");
    // The reminders waiting, by id (a file name comes back once its first holder is gone).
    let waiting = || -> Vec<String> {
        std::fs::read_dir(&reminders).map_or_else(
            |_| Vec::new(),
            |dir| {
                dir.flatten()
                    .filter_map(|e| std::fs::read_to_string(e.path()).ok())
                    .filter_map(|text| {
                        let line = text.lines().find(|l| l.starts_with("id:"))?;
                        Some(
                            line.trim_start_matches("id:")
                                .trim()
                                .trim_matches('"')
                                .to_owned(),
                        )
                    })
                    .collect()
            },
        )
    };
    let expected = 1 + MAX_GENERATIONS as usize;
    let ended = || waiting().is_empty() && runs_started(&h).len() >= expected;
    // Each generation's reminder is due an hour on: once a new one is written, move the clock
    // there, then wait for the run it fires to set the next one (or for the line to end). Runs
    // overlap (a file goes once its run is over), so only a reminder not seen before moves it.
    let mut seen = std::collections::BTreeSet::new();
    let unseen = |seen: &std::collections::BTreeSet<String>| {
        waiting()
            .into_iter()
            .filter(|name| !seen.contains(name))
            .collect::<Vec<_>>()
    };
    // A clock moved with no file event after it is seen at the scheduler's next look, up to a
    // minute later (`LONGEST_SLEEP`, as after a suspend); the wait allows that and the run.
    while !ended() {
        wait::until_true(
            "the next reminder, or the line's end",
            Duration::from_secs(120),
            || ended() || !unseen(&seen).is_empty(),
            || format!("runs: {:?}\n{}", runs_started(&h), h.log()),
        )
        .await;
        for name in unseen(&seen) {
            seen.insert(name);
            h.sandbox.advance_clock(Duration::from_secs(3600));
        }
    }
    // Nothing is left to fire, so no later run can come.
    assert_eq!(runs_started(&h).len(), expected, "{:?}", runs_started(&h));
    h.terminate().await;
}
