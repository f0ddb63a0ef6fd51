//! `ollim-bot recall` (issue 42) on transcripts the real CLI wrote and notes in the data dir:
//! sessions driven through the pinned CLI against the mock model, then the real binary with
//! nothing but the data dir, HOME and the CLI's config dir in its environment. The passage that
//! answers comes first, with the handle that opens its session; a session that read mail is
//! marked untrusted; what is forgotten stays out of a rebuild; a damaged index is rebuilt.

use crate::{
    history::{stdout, transcript_reader},
    support,
};

use std::{fs, process::Output};

use support::{agent::AgentHarness, cli::CliSandbox, mock_api::Reply};

/// Runs `ollim-bot recall <args>` for the sandbox.
fn recall(sandbox: &CliSandbox, args: &[&str]) -> Output {
    transcript_reader(sandbox, "recall", args)
}

#[tokio::test]
async fn recall_finds_what_was_said_weeks_apart_and_forgets_for_good() {
    let h = AgentHarness::new().await;
    fs::create_dir_all(h.sandbox.data_dir.join("notes")).unwrap();
    fs::write(
        h.sandbox.data_dir.join("notes/books.md"),
        "# Books\nSam recommended The Overstory by Richard Powers.\n\n# Films\nPerfect Days.\n",
    )
    .unwrap();
    h.mock.push(Reply::text(
        "Moved: Dr. Patel's clinic on the 14th at 9:40.",
    ));
    h.send("the dentist rang, my appointment moved to the 14th")
        .await
        .unwrap();
    h.mock.push(Reply::text(
        "Noted: renewing the Elm Street lease, same rent.",
    ));
    h.send("we decided to renew the lease on the flat")
        .await
        .unwrap();
    let id = h.stored_session().expect("a session id");
    h.session.shutdown().await;

    // The answer first, with the handle that opens its session; word forms meet.
    let found = stdout(&recall(&h.sandbox, &["when is my dentist appointment?"]));
    let first = found.split("\n1. ").nth(1).expect("a first passage");
    assert!(first.contains("dentist"), "{found}");
    assert!(found.contains(&format!("session:{id}")), "{found}");
    let lease = stdout(&recall(&h.sandbox, &["lease renewal"]));
    assert!(
        lease.split("\n1. ").nth(1).unwrap().contains("renew"),
        "{lease}"
    );
    let book = stdout(&recall(
        &h.sandbox,
        &["which book did Sam recommend", "--kind", "note"],
    ));
    assert!(
        book.contains("file:notes/books.md") && book.contains("Overstory"),
        "{book}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&stdout(&recall(&h.sandbox, &["dentist", "--json"]))).unwrap();
    assert_eq!(json[0]["untrusted"], false, "{json}");

    // A session that read mail is untrusted from then on, and says so.
    let record = h.sandbox.data_dir.join("state/untrusted_sessions.json");
    fs::write(&record, format!("{{\"{id}\": 0}}")).unwrap();
    fs::remove_dir_all(h.sandbox.data_dir.join("state/recall")).unwrap();
    let marked = stdout(&recall(&h.sandbox, &["dentist"]));
    assert!(marked.contains("UNTRUSTED"), "{marked}");

    // Forgotten passages stay out of a rebuild, and of a damaged index made again.
    let forgot = stdout(&recall(&h.sandbox, &["14th", "--forget"]));
    assert!(forgot.starts_with("forgot 2 passages"), "{forgot}");
    let after = stdout(&recall(&h.sandbox, &["dentist 14th"]));
    assert!(after.starts_with("nothing found"), "{forgot}\n---\n{after}");
    stdout(&recall(&h.sandbox, &["--reindex"]));
    assert!(stdout(&recall(&h.sandbox, &["dentist 14th"])).starts_with("nothing found"));
    fs::write(
        h.sandbox.data_dir.join("state/recall/index.sqlite3"),
        "garbage",
    )
    .unwrap();
    let rebuilt = stdout(&recall(&h.sandbox, &["lease"]));
    assert!(rebuilt.contains("renew"), "{rebuilt}");
    assert!(stdout(&recall(&h.sandbox, &["dentist 14th"])).starts_with("nothing found"));

    // The owner's language is a setting: the index is made again in it, forgetting kept.
    fs::write(
        h.sandbox.data_dir.join("state/config.json"),
        r#"{"recall_language": "german"}"#,
    )
    .unwrap();
    let german = stdout(&recall(&h.sandbox, &["Overstory"]));
    assert!(german.contains("Overstory"), "{german}");
    assert!(stdout(&recall(&h.sandbox, &["dentist 14th"])).starts_with("nothing found"));

    // A typo is named, on one line.
    let typo = recall(&h.sandbox, &["x", "--kind", "notes"]);
    assert_eq!(typo.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&typo.stderr);
    assert!(stderr.contains("unknown kind \"notes\""), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
}

/// The agent, asked about something said the day before in a conversation since cleared,
/// calls `recall` through the real CLI and gets the passage back with the session that holds
/// it (issue 42 §2); the question it is answering, in its context already, is not.
#[tokio::test]
async fn the_agent_recalls_what_was_said_turns_before() {
    let h = AgentHarness::new().await;
    h.mock.push(Reply::text("Noted."));
    h.send("Sam recommended the book The Overstory by Richard Powers")
        .await
        .unwrap();
    let earlier = h.stored_session().expect("a session id");
    h.mock.push(Reply::text("Sure."));
    h.send("also, buy oat milk on friday").await.unwrap();
    h.session.clear().await.unwrap();
    said_days_ago(&h.sandbox, &earlier, 1);
    h.mock.push(Reply::tool_use(
        "mcp__discord__recall",
        serde_json::json!({"query": "novel book Sam recommended", "kinds": "said"}),
    ));
    h.mock.push(Reply::text("It was The Overstory."));
    h.send("what was that novel Sam told me about?")
        .await
        .unwrap();
    let requests = h.mock.requests();
    let result = requests
        .iter()
        .flat_map(support::mock_api::RecordedRequest::tool_results)
        .find(|result| result.content.contains("passage"))
        .expect("the recall tool's result reached the model");
    assert!(!result.is_error, "{}", result.content);
    let first = result
        .content
        .split("\n1. ")
        .nth(1)
        .expect("a first passage");
    assert!(first.contains("The Overstory"), "{}", result.content);
    assert!(
        first.contains(&format!("session:{earlier}")),
        "{}",
        result.content
    );
    assert!(!result.content.contains("oat milk"), "{}", result.content);
    assert!(!result.content.contains("that novel"), "{}", result.content);
}

/// What the bot noted for the conversation — here a reminder's outcome, left as a pending
/// update the way the reminder buttons leave it — is recalled as an update once the main
/// session's next prompt has carried it, apart from the owner's own words (issue 42 §1).
#[tokio::test]
async fn a_reminders_outcome_is_recalled_as_an_update() {
    let h = AgentHarness::new().await;
    h.services
        .pending
        .append("Reminder \"pay the water bill\": done at 09:12 after 2 nudges.")
        .unwrap();
    h.mock.push(Reply::text("Nice work on the bill."));
    h.send("morning! anything new?").await.unwrap();
    let updates = stdout(&recall(&h.sandbox, &["water bill", "--kind", "update"]));
    let first = updates.split("\n1. ").nth(1).expect("a first passage");
    assert!(first.contains("done at 09:12"), "{updates}");
    let said = stdout(&recall(&h.sandbox, &["water bill", "--kind", "said"]));
    assert!(said.starts_with("nothing found"), "{said}");
}

/// `/recall` in Discord answers the owner with the passage and where it is; `/forget` removes
/// it for good and says what went (issue 42 §2), through real serenity and the fake Discord.
#[tokio::test]
async fn the_owner_recalls_and_forgets_in_discord() {
    use serde_json::json;
    let mut h = support::bot::BotHarness::start().await;
    h.greeted().await;
    h.converse("the wifi password is heron-lantern-42", "Noted.")
        .await;
    let words = |text: &str| json!([{"name": "words", "type": 3, "value": text}]);
    let asked = h
        .discord
        .slash(h.owner(), "recall", words("what's the wifi password?"))
        .await;
    h.discord.wait_for_callback(asked).await;
    let answer = h
        .wait_for_bot_message("the /recall answer", |m| m.content.contains("for \""))
        .await;
    let first = answer
        .content
        .split("\n1. ")
        .nth(1)
        .expect("a first passage");
    assert!(first.contains("heron-lantern-42"), "{}", answer.content);
    assert!(first.contains("session:"), "{}", answer.content);

    let forget = h
        .discord
        .slash(h.owner(), "forget", words("wifi password"))
        .await;
    h.discord.wait_for_callback(forget).await;
    let gone = h
        .wait_for_bot_message("the /forget answer", |m| m.content.starts_with("forgot "))
        .await;
    assert!(
        gone.content.contains("heron-lantern-42"),
        "{}",
        gone.content
    );
    let again = h
        .discord
        .slash(h.owner(), "recall", words("wifi password heron"))
        .await;
    h.discord.wait_for_callback(again).await;
    let none = h
        .wait_for_bot_message("the second /recall answer", |m| {
            m.content.starts_with("nothing found")
        })
        .await;
    assert!(!none.content.contains("lantern-42"), "{}", none.content);
    h.terminate().await;
}

/// The daemon keeps the index current off the turn's path (issue 42 §1): once a turn has
/// ended, the index under `state/recall/` holds what was said without anyone asking recall
/// first — read here straight from the index, with no catch-up of its own.
#[tokio::test]
async fn the_daemon_catches_the_index_up_after_a_turn() {
    use ollim_bot::recall::{index::Index, query::Query, words::Words};
    let mut h = support::bot::BotHarness::greeted_fast_sync(CliSandbox::new()).await;
    h.converse("the bike lock code is 7391, don't let me forget", "Noted.")
        .await;
    let dir = h.sandbox.data_dir.join("state/recall");
    let now = chrono::Utc::now() + chrono::Duration::minutes(1);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let found = loop {
        let hits = Index::open(&dir, Words::new("english").unwrap())
            .and_then(|index| index.search(&Query::new("bike lock code"), now))
            .unwrap_or_default();
        if let Some(hit) = hits.into_iter().find(|hit| hit.entry.text.contains("7391")) {
            break Some(hit);
        }
        if std::time::Instant::now() > deadline {
            break None;
        }
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    };
    let hit = found.unwrap_or_else(|| panic!("the index never caught up\n{}", h.log()));
    assert_eq!(hit.entry.kind.name(), "said");
    h.terminate().await;
}

/// Moves every time stamp of the transcript of session `id` (wherever the CLI wrote it under
/// the sandbox's HOME) `days` back, as if it had been said then.
fn said_days_ago(sandbox: &CliSandbox, id: &str, days: i64) {
    let name = format!("{id}.jsonl");
    let file = walkdir::WalkDir::new(sandbox.claude_dir().parent().unwrap())
        .into_iter()
        .flatten()
        .find(|entry| entry.file_name().to_str() == Some(name.as_str()))
        .unwrap_or_else(|| panic!("no transcript for {id}"))
        .into_path();
    let shifted: Vec<String> = fs::read_to_string(&file)
        .unwrap()
        .lines()
        .map(|line| {
            let mut value: serde_json::Value = serde_json::from_str(line).unwrap();
            if let Some(at) = value["timestamp"]
                .as_str()
                .and_then(|at| at.parse::<chrono::DateTime<chrono::Utc>>().ok())
            {
                value["timestamp"] = (at - chrono::Duration::days(days)).to_rfc3339().into();
            }
            value.to_string()
        })
        .collect();
    fs::write(&file, shifted.join("\n") + "\n").unwrap();
}

/// Facts told in different sessions weeks apart — the conversation before a `/clear`, the one
/// after, and a background routine's run — are found by the agent's `recall` through the real
/// CLI: the right one first, with its own session and its own date, a newer look-alike
/// behind it, and a window narrowing to the run (issue 42 tests).
#[tokio::test]
async fn the_agent_recalls_facts_from_sessions_weeks_apart() {
    let h = AgentHarness::new().await;
    h.mock.push(Reply::text("Noted."));
    h.send("my dentist appointment with Dr Patel got moved to the 14th at 9:40")
        .await
        .unwrap();
    let march = h.stored_session().expect("the first session");
    h.session.clear().await.unwrap();
    h.mock.push(Reply::text("Sure."));
    h.send("booked the dentist for a cleaning next month")
        .await
        .unwrap();
    let lately = h.stored_session().expect("the second session");
    assert_ne!(march, lately);
    h.session.clear().await.unwrap();
    h.mock.push(Reply::text(
        "Renewed the car insurance with Admiral: 512 a year.",
    ));
    h.run_routine_bg("insurance", "renew the car insurance")
        .await
        .unwrap();
    let run = walkdir::WalkDir::new(h.sandbox.claude_dir().parent().unwrap())
        .into_iter()
        .flatten()
        .find_map(|entry| {
            let name = entry
                .file_name()
                .to_str()?
                .strip_suffix(".jsonl")?
                .to_owned();
            (entry.path().to_string_lossy().contains("projects") && name != march && name != lately)
                .then_some(name)
        })
        .expect("the routine's run has a transcript");
    said_days_ago(&h.sandbox, &march, 70);
    said_days_ago(&h.sandbox, &lately, 7);
    said_days_ago(&h.sandbox, &run, 28);

    h.mock.push(Reply::tool_use(
        "mcp__discord__recall",
        serde_json::json!({"query": "dentist appointment Patel moved"}),
    ));
    h.mock.push(Reply::tool_use(
        "mcp__discord__recall",
        serde_json::json!({"query": "car insurance renewal cost price", "since": "60d"}),
    ));
    h.mock.push(Reply::text(
        "Dr Patel: the 14th at 9:40. The insurance is 512 a year.",
    ));
    h.send("when was Dr Patel seeing me again? and what did the car insurance cost?")
        .await
        .unwrap();
    let results: Vec<String> = h
        .mock
        .requests()
        .iter()
        .flat_map(support::mock_api::RecordedRequest::tool_results)
        .filter(|result| result.content.contains("passage"))
        .map(|result| result.content)
        .collect();
    assert_eq!(results.len(), 2, "{results:#?}");
    let first = |result: &str| result.split("\n1. ").nth(1).unwrap_or_default().to_owned();
    // The passage's date in the owner's zone: that day in UTC or the one before.
    let on_day = |passage: &str, days: i64| {
        [days, days + 1].iter().any(|days| {
            let day = chrono::Utc::now() - chrono::Duration::days(*days);
            passage.contains(&day.format("%Y-%m-%d").to_string())
        })
    };
    let dentist = first(&results[0]);
    assert!(dentist.contains("Dr Patel"), "{}", results[0]);
    assert!(
        dentist.contains(&format!("session:{march}")),
        "{}",
        results[0]
    );
    assert!(on_day(&dentist, 70), "{}", results[0]);
    assert!(
        results[0].contains(&format!("session:{lately}")),
        "{}",
        results[0]
    );
    let insurance = first(&results[1]);
    assert!(insurance.contains("512 a year"), "{}", results[1]);
    assert!(
        insurance.contains(&format!("session:{run}")),
        "{}",
        results[1]
    );
    assert!(on_day(&insurance, 28), "{}", results[1]);
    assert!(!results[1].contains("Dr Patel"), "{}", results[1]);
}
