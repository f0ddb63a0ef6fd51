//! Scheduling through the real binary: the CLI writes files, the bot's scheduler fires them
//! against the fake Discord and the mock model (RTN-1…6, REM-1…9, SCH-2, SCH-7, CMD-2…5,
//! MCP-13, GIT-2). The sync interval is shortened to 1 s (`OLLIM_SCHEDULER_SYNC_SECS`).

use crate::support;

use std::time::Duration;

use serde_json::json;
use support::{
    bot::{BotHarness, ollim_command},
    cli::CliSandbox,
    mock_api::Reply,
};

async fn cli(h: &BotHarness, args: &[&str]) -> (i32, String, String) {
    let output = ollim_command(&h.sandbox, &h.mock)
        .args(args)
        .output()
        .await
        .expect("run ollim-bot");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

async fn greeted(sandbox: CliSandbox) -> BotHarness {
    BotHarness::greeted_fast_sync(sandbox).await
}

fn scheduled_id(stdout: &str) -> String {
    stdout
        .strip_prefix("scheduled ")
        .and_then(|rest| rest.split(':').next())
        .unwrap_or_else(|| panic!("unexpected output: {stdout}"))
        .to_owned()
}

fn git_log(h: &BotHarness) -> String {
    let output = std::process::Command::new("git")
        .args(["log", "--format=%s"])
        .current_dir(&h.sandbox.data_dir)
        .output()
        .unwrap();
    String::from_utf8_lossy(&output.stdout).into_owned()
}

async fn wait_until(what: &str, within: Duration, mut check: impl FnMut() -> bool) {
    let deadline = tokio::time::Instant::now() + within;
    while !check() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn a_cli_reminder_fires_within_its_minute_and_pings_in_the_background() {
    let mut h = greeted(CliSandbox::new()).await;
    h.mock.add_rule(|request| {
        let prompt = request.user_prompts().join("\n");
        if !prompt.contains("[reminder-bg:") {
            return None;
        }
        if request.tool_results().is_empty() {
            Some(Reply::tool_use(
                "mcp__discord__ping_user",
                json!({"message": "time to stretch"}),
            ))
        } else {
            Some(Reply::text("pinged"))
        }
    });
    let (code, stdout, stderr) = cli(
        &h,
        &[
            "reminder",
            "add",
            "-m",
            "Remind Julia to stretch",
            "--delay",
            "1",
        ],
    )
    .await;
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains(": [bg] at "), "{stdout}");
    assert!(
        stdout.trim_end().ends_with(" -- Remind Julia to stretch"),
        "{stdout}"
    );
    let id = scheduled_id(&stdout);
    let (_, listed, _) = cli(&h, &["reminder", "list"]).await;
    assert!(listed.contains(&id), "{listed}");
    let ping = h
        .wait_for_bot_message_within("the background ping", Duration::from_secs(90), |m| {
            m.content == "[bg] time to stretch"
        })
        .await;
    assert!(ping.content.starts_with("[bg] "));
    let reminders = h.sandbox.data_dir.join("reminders");
    wait_until(
        "the fired reminder's removal",
        Duration::from_secs(10),
        || std::fs::read_dir(&reminders).map_or(true, |mut d| d.next().is_none()),
    )
    .await;
    let prompt = h
        .mock
        .main_requests()
        .into_iter()
        .find(|r| r.user_prompts().iter().any(|p| p.contains("[reminder-bg:")))
        .unwrap();
    assert!(
        prompt
            .user_prompts()
            .iter()
            .any(|p| p.contains(&format!("[reminder-bg:{id}]")))
    );
    wait_until("the removal commit", Duration::from_secs(10), || {
        git_log(&h).contains(&format!("remove reminder {id}"))
    })
    .await;
    assert!(git_log(&h).contains(&format!("add reminder {id}")));
    let (_, listed, _) = cli(&h, &["reminder", "list"]).await;
    assert_eq!(listed.trim(), "no pending reminders");
    h.terminate().await;
}

#[tokio::test]
async fn a_foreground_reminder_answers_in_the_main_session() {
    let mut h = greeted(CliSandbox::new()).await;
    h.mock.push(Reply::text("Time to drink some water!"));
    let (code, stdout, stderr) = cli(
        &h,
        &[
            "reminder",
            "add",
            "-m",
            "Tell Julia to drink water",
            "--delay",
            "0",
            "--foreground",
        ],
    )
    .await;
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains(": [fg] at "), "{stdout}");
    let id = scheduled_id(&stdout);
    h.wait_for_bot_message("the foreground answer", |m| {
        m.content == "Time to drink some water!"
    })
    .await;
    let prompt = h.mock.main_requests().pop().unwrap();
    let prompt = prompt.last_user_text().unwrap().to_owned();
    assert!(prompt.contains(&format!("[reminder:{id}]")), "{prompt}");
    assert!(prompt.ends_with("Tell Julia to drink water"), "{prompt}");
    assert!(
        h.sandbox.data_dir.join("state/sessions.json").exists(),
        "main session"
    );
    h.terminate().await;
}

#[tokio::test]
async fn an_edited_routine_reregisters_and_a_broken_file_is_reported_once() {
    let sandbox = CliSandbox::new();
    let routines = sandbox.data_dir.join("routines");
    std::fs::create_dir_all(&routines).unwrap();
    std::fs::write(
        routines.join("broken.md"),
        "---\nid: [unclosed\n---\nbody\n",
    )
    .unwrap();
    let mut h = greeted(sandbox).await;
    let (code, stdout, stderr) = cli(
        &h,
        &[
            "routine",
            "add",
            "-m",
            "Say PLUM to Julia",
            "--cron",
            "0 3 1 1 *",
            "-d",
            "Plum check",
        ],
    )
    .await;
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains(": cron '0 3 1 1 *' -- Plum check"),
        "{stdout}"
    );
    let id = scheduled_id(&stdout);
    let (_, listed, _) = cli(&h, &["routine", "list"]).await;
    assert!(
        listed.contains(&format!("  {id}  cron '0 3 1 1 *'")),
        "{listed}"
    );
    // Edit the cron to every minute: the next minute boundary fires it.
    let path = std::fs::read_dir(&routines)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| std::fs::read_to_string(p).unwrap().contains(&id))
        .unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace("0 3 1 1 *", "* * * * *")).unwrap();
    h.mock.add_rule(|request| {
        request
            .last_user_text()
            .is_some_and(|t| t.contains("[routine:"))
            .then(|| Reply::text("PLUM!"))
    });
    h.wait_for_bot_message_within("the edited routine's fire", Duration::from_secs(75), |m| {
        m.content == "PLUM!"
    })
    .await;
    let fired = h
        .mock
        .main_requests()
        .into_iter()
        .filter_map(|r| r.last_user_text().map(str::to_owned))
        .find(|t| t.contains("[routine:"))
        .unwrap();
    assert!(
        fired.contains(&format!("[routine:{id}] Say PLUM to Julia")),
        "{fired}"
    );
    assert!(
        fired.contains("Couldn't load routines/broken.md"),
        "the broken file reached the main session: {fired}"
    );
    let (code, stdout, _) = cli(&h, &["routine", "cancel", &id]).await;
    assert_eq!(
        (code, stdout.trim()),
        (0, format!("cancelled {id}").as_str())
    );
    let (code, _, stderr) = cli(&h, &["routine", "cancel", &id]).await;
    assert_eq!(
        (code, stderr.trim()),
        (1, format!("routine {id} not found").as_str())
    );
    let (code, _, stderr) = cli(&h, &["routine", "add", "-m", "x", "--cron", "0 9 * *"]).await;
    assert_eq!(code, 1);
    assert_eq!(
        stderr.trim(),
        "error: cron must be 5 fields (minute hour day month weekday)"
    );
    h.terminate().await;
}

#[tokio::test]
async fn a_chain_runs_three_links_and_ends_at_the_limit() {
    let mut h = greeted(CliSandbox::new()).await;
    h.mock.add_rule(|request| {
        let prompt = request.user_prompts().join("\n");
        if !prompt.contains("[reminder-bg:") {
            return None;
        }
        if request.tool_results().is_empty() {
            Some(Reply::tool_use(
                "mcp__discord__follow_up_chain",
                json!({"minutes_from_now": 1}),
            ))
        } else {
            Some(Reply::text("checked"))
        }
    });
    let (code, stdout, stderr) = cli(
        &h,
        &[
            "reminder",
            "add",
            "-m",
            "Is the CI green yet?",
            "--delay",
            "0",
            "--max-chain",
            "2",
        ],
    )
    .await;
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("(chain 0/2)"), "{stdout}");
    let root = scheduled_id(&stdout);
    let reminders = h.sandbox.data_dir.join("reminders");
    for check in 1..=3 {
        let marker = format!("check {check} of 3");
        let seen = |h: &BotHarness| {
            h.mock
                .main_requests()
                .iter()
                .any(|r| r.user_prompts().iter().any(|p| p.contains(&marker)))
        };
        wait_until(&marker, Duration::from_secs(30), || seen(&h)).await;
        if check == 3 {
            break;
        }
        // The follow-up is due in a minute: bring it forward instead of waiting.
        let mut follow_up = None;
        wait_until("the follow-up file", Duration::from_secs(30), || {
            follow_up = std::fs::read_dir(&reminders).ok().and_then(|dir| {
                dir.filter_map(Result::ok).map(|e| e.path()).find(|p| {
                    std::fs::read_to_string(p)
                        .is_ok_and(|t| t.contains(&format!("chain-depth: {check}")))
                })
            });
            follow_up.is_some()
        })
        .await;
        let path = follow_up.unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.contains(&format!("chain-parent: \"{root}\"")),
            "{text}"
        );
        let now = chrono::Utc::now().to_rfc3339();
        let moved: String = text
            .lines()
            .map(|line| {
                if line.starts_with("run-at:") {
                    format!("run-at: \"{now}\"")
                } else {
                    line.to_owned()
                }
            })
            .collect::<Vec<_>>()
            .join("\n");
        std::fs::write(&path, moved + "\n").unwrap();
    }
    let limit = "Error: follow-up limit reached — this was the last check. If the task still \
                 needs attention, ping the user now.";
    wait_until("the limit error", Duration::from_secs(30), || {
        h.mock
            .main_requests()
            .iter()
            .flat_map(support::mock_api::RecordedRequest::tool_results)
            .any(|r| r.content == limit)
    })
    .await;
    let finals: Vec<String> = h
        .mock
        .main_requests()
        .iter()
        .flat_map(|r| r.user_prompts().into_iter().map(str::to_owned))
        .filter(|p| p.contains("check 3 of 3"))
        .collect();
    assert!(finals[0].contains("FINAL"), "{}", finals[0]);
    h.terminate().await;
}

#[tokio::test]
async fn a_restart_fires_an_overdue_reminder_late_and_reports_missed_routines() {
    let sandbox = CliSandbox::new();
    let state = sandbox.data_dir.join("state");
    std::fs::create_dir_all(&state).unwrap();
    std::fs::create_dir_all(sandbox.data_dir.join("reminders")).unwrap();
    std::fs::create_dir_all(sandbox.data_dir.join("routines")).unwrap();
    let now = chrono::Utc::now();
    let ten_ago = (now - chrono::Duration::minutes(10)).to_rfc3339();
    std::fs::write(
        sandbox.data_dir.join("reminders/overdue.md"),
        format!(
            "---\nid: \"0a0b0c0d\"\nrun-at: \"{ten_ago}\"\nbackground: false\n---\nCall the dentist\n"
        ),
    )
    .unwrap();
    std::fs::write(
        sandbox.data_dir.join("routines/hourly.md"),
        "---\nid: \"1a1b1c1d\"\ncron: \"0 * * * *\"\ndescription: \"Hourly stretch\"\n---\nStretch\n",
    )
    .unwrap();
    let three_hours_ago = (now - chrono::Duration::hours(3)).to_rfc3339();
    std::fs::write(
        state.join("scheduler.json"),
        json!({"last_tick": three_hours_ago}).to_string(),
    )
    .unwrap();
    let mut h = greeted(sandbox).await;
    h.mock
        .push(Reply::text("You asked me to remind you: call the dentist."));
    h.wait_for_bot_message("the late reminder", |m| {
        m.content.contains("call the dentist")
    })
    .await;
    let prompt = h.mock.main_requests().pop().unwrap();
    let prompt = prompt.last_user_text().unwrap().to_owned();
    assert!(
        prompt.contains("[reminder:0a0b0c0d]\n[late: was scheduled for "),
        "{prompt}"
    );
    assert!(
        prompt.contains("Missed while offline: routine \"Hourly stretch\""),
        "{prompt}"
    );
    h.terminate().await;
}
