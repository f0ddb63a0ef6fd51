//! State files corrupted by hand (issue 16), through the real binary, the fake Discord and the
//! real CLI against the mock model: the bot starts, sets each unreadable file aside under a
//! timestamped name (the bytes kept), starts that store fresh, tells the owner once in one DM,
//! and answers the next message.

use crate::support;

use std::time::Duration;

use support::{bot::BotHarness, cli::CliSandbox, mock_api::Reply, wait};

#[tokio::test]
async fn damaged_state_files_are_set_aside_and_the_owner_is_told_once() {
    let sandbox = CliSandbox::new();
    let state = sandbox.data_dir.join("state");
    std::fs::create_dir_all(&state).unwrap();
    let damaged: [(&str, &[u8]); 5] = [
        ("sessions.json", b"not a session id!"),
        ("pending_updates.json", b"[{\"message\": \"cut off"),
        ("ping_budget.json", b"\x00\xff\xfe binary garbage"),
        ("config.json", b"{\"model_main\": "),
        ("tool_approvals.json", b"[1, 2"),
    ];
    for (name, bytes) in damaged {
        std::fs::write(state.join(name), bytes).unwrap();
    }
    let mut h = BotHarness::greeted_fast_sync(sandbox).await;
    h.mock.push(Reply::text("still here"));
    h.discord.dm_from(h.owner(), "are you ok?").await;
    h.wait_for_bot_message("the answer after the damage", |m| {
        m.content.contains("still here")
    })
    .await;
    // The ping budget is read by `/ping-budget`, which answers from a fresh one.
    let budget = h
        .discord
        .slash(h.owner(), "ping-budget", serde_json::json!([]))
        .await;
    let answer = h.discord.wait_for_callback(budget).await;
    assert!(
        answer["data"]["content"]
            .as_str()
            .unwrap_or_default()
            .starts_with("ping budget: budget: 5/5"),
        "{answer}"
    );
    // The tool approvals are read when the scheduler checks declared tools; a routine that
    // declares one makes sure of it.
    std::fs::create_dir_all(h.sandbox.data_dir.join("routines")).unwrap();
    std::fs::write(
        h.sandbox.data_dir.join("routines/tidy.md"),
        "---\nid: tidy\ncron: \"0 3 * * *\"\nbackground: true\nallowed-tools: [\"Bash(git status)\"]\n---\nTidy up.\n",
    )
    .unwrap();

    h.wait_for_bot_message_within("the set-aside notice", Duration::from_secs(30), |m| {
        m.content
            .starts_with("heads-up: some of my files were damaged")
            && m.content.contains("tool_approvals.json")
    })
    .await;
    // Told once. Every notice goes through `set_aside.jsonl`: a read that sets a file aside
    // appends to it, and the watcher forgets what it told only after the DM went out. So once
    // the file is gone, the notice was told and forgotten. Then the stores are read again
    // (the scheduler checks the routine's tools against the approvals, a turn of the owner's
    // reads the session and its pending updates): the file still gone and one notice in the
    // DM after that say no second one is on its way.
    let notices_file = state.join("set_aside.jsonl");
    wait::until_true(
        "the set-aside notice forgotten once told",
        Duration::from_secs(10),
        || !notices_file.exists(),
        || h.log(),
    )
    .await;
    h.wait_for_log(
        "asking the owner to approve new tools",
        Duration::from_secs(30),
    )
    .await;
    h.converse("and now?", "all good").await;
    let notices = h
        .bot_messages()
        .iter()
        .filter(|m| {
            m.content
                .starts_with("heads-up: some of my files were damaged")
        })
        .count();
    assert!(
        !notices_file.exists(),
        "a notice is waiting to be told again"
    );
    assert_eq!(notices, 1, "told once\n{}", h.log());
    let told: String = h
        .bot_messages()
        .iter()
        .filter(|m| {
            m.content
                .starts_with("heads-up: some of my files were damaged")
        })
        .map(|m| m.content.clone())
        .collect::<Vec<_>>()
        .join("\n");
    for (name, bytes) in damaged {
        let line = format!("`state/{name}` couldn't be read (");
        assert_eq!(told.matches(&line).count(), 1, "{name} told once: {told}");
        let kept = std::fs::read_dir(&state)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .find(|path| {
                path.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with(&format!("{name}.corrupt-"))
            })
            .unwrap_or_else(|| panic!("{name} not kept aside"));
        assert_eq!(std::fs::read(&kept).unwrap(), bytes, "{name}'s bytes kept");
    }
    assert!(!state.join("set_aside.jsonl").exists());
    // Fresh stores work: the session id was rewritten by the turn above.
    let id = std::fs::read_to_string(state.join("sessions.json")).unwrap();
    assert!(!id.contains("not a session id"), "{id}");
    h.terminate().await;
}
