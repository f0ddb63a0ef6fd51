//! Forks through Discord: the real binary against the fake Discord and the mock model
//! (SLC-4, SLC-9, IFK-2, IFK-5, IFK-10, IFK-14, RPL-1…4, PNG-8/9).

use crate::support;

use support::{bot::BotHarness, mock_api::Reply, wait};

async fn greeted() -> BotHarness {
    let h = BotHarness::start().await;
    h.greeted().await;
    h
}

#[tokio::test]
async fn slash_fork_routes_dms_and_its_buttons_end_it() {
    let mut h = greeted().await;
    h.mock.push(Reply::text("Hello from main."));
    h.discord.dm_from(h.owner(), "hello").await;
    h.wait_for_bot_message("main reply", |m| m.content == "Hello from main.")
        .await;
    let main_id = h.wait_stored_session().await;

    h.mock.push(Reply::text("Fork ready for meal prep."));
    let fork = h
        .discord
        .slash(
            h.owner(),
            "fork",
            serde_json::json!([{"name": "topic", "type": 3, "value": "meal prep"}]),
        )
        .await;
    let entry = h.wait_for_embed("Forked Session").await;
    assert_eq!(entry.embeds[0]["description"], "Topic: meal prep");
    assert_eq!(
        entry.custom_ids(),
        ["act:fork_save:_", "act:fork_report:_", "act:fork_exit:_"]
    );
    h.wait_for_bot_message("the fork's first reply", |m| {
        m.content == "Fork ready for meal prep."
    })
    .await;
    assert!(h.discord.interaction_acked(fork));

    h.mock.push(Reply::text("Tuesday: lentils."));
    h.discord.dm_from(h.owner(), "what about tuesday?").await;
    h.wait_for_bot_message("the fork answers", |m| m.content == "Tuesday: lentils.")
        .await;
    assert_eq!(h.stored_session().as_deref(), Some(main_id.as_str()));

    let model = h
        .discord
        .slash(
            h.owner(),
            "model",
            serde_json::json!([{"name": "name", "type": 3, "value": "haiku"}]),
        )
        .await;
    let refused = h.discord.wait_for_callback(model).await;
    assert!(
        refused.to_string().contains("exit fork first."),
        "{refused}"
    );

    h.discord
        .click_button(h.owner(), h.dm(), entry.id, "act:fork_exit:_")
        .await;
    h.wait_for_embed("Fork Ended — discarded").await;
    assert_eq!(h.stored_session().as_deref(), Some(main_id.as_str()));
    let again = h
        .discord
        .click_button(h.owner(), h.dm(), entry.id, "act:fork_exit:_")
        .await;
    let callback = h.discord.wait_for_callback(again).await;
    assert!(
        callback.to_string().contains("no active fork."),
        "{callback}"
    );

    let budget = h
        .discord
        .slash(h.owner(), "ping-budget", serde_json::json!([]))
        .await;
    let callback = h.discord.wait_for_callback(budget).await;
    assert!(
        callback.to_string().contains("ping budget: budget: 5/5."),
        "{callback}"
    );
    let set = h
        .discord
        .slash(
            h.owner(),
            "ping-budget",
            serde_json::json!([{"name": "capacity", "type": 4, "value": 8}]),
        )
        .await;
    let callback = h.discord.wait_for_callback(set).await;
    assert!(
        callback
            .to_string()
            .contains("ping budget updated: budget: 5/8"),
        "{callback}"
    );
    h.terminate().await;
}

#[tokio::test]
async fn a_reply_to_a_fork_message_resumes_it_and_an_expired_one_is_quoted() {
    let mut h = greeted().await;
    h.mock.push(Reply::text("Noted: PINEAPPLE."));
    h.discord
        .dm_from(h.owner(), "remember the word PINEAPPLE")
        .await;
    let noted = h
        .wait_for_bot_message("the reply", |m| m.content == "Noted: PINEAPPLE.")
        .await;
    let earlier = h.wait_stored_session().await;
    // That conversation becomes a finished fork session: main moves on (/clear) and the
    // message is recorded as the fork's, as a background run's ping would be.
    let clear = h
        .discord
        .slash(h.owner(), "clear", serde_json::json!([]))
        .await;
    h.discord.wait_for_callback(clear).await;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    let records = h.sandbox.data_dir.join("state/fork_messages.json");
    let write_record = |ts: f64| {
        let record = serde_json::json!([{"message_id": noted.id, "fork_session_id": earlier,
            "parent_session_id": null, "ts": ts, "origin": {"kind": "owner"}}]);
        std::fs::write(&records, record.to_string()).unwrap();
    };
    write_record(now);

    h.mock.push(Reply::text("Because of the PINEAPPLE."));
    h.discord.reply_to(h.owner(), "why?", noted.id).await;
    h.wait_for_embed("Forked Session").await;
    h.wait_for_bot_message("the resumed fork's answer", |m| {
        m.content == "Because of the PINEAPPLE."
    })
    .await;
    let request = h.mock.main_requests().pop().unwrap();
    assert!(request.all_text().contains("remember the word PINEAPPLE"));
    let prompt = request.last_user_text().unwrap();
    assert!(prompt.contains("[fork-started]"), "{prompt}");
    assert!(prompt.ends_with("why?"), "{prompt}");
    assert!(
        !prompt.contains("> Noted"),
        "a resumed fork needs no quote: {prompt}"
    );
    let history =
        std::fs::read_to_string(h.sandbox.data_dir.join("state/session_history.jsonl")).unwrap();
    assert!(history.contains("interactive_fork"), "{history}");

    // A second reply while that fork is open is quoted into it (RPL-2).
    h.mock.push(Reply::text("Still the same fork."));
    h.discord.reply_to(h.owner(), "and this?", noted.id).await;
    h.wait_for_bot_message("the already-in-a-fork note", |m| {
        m.content == "-# already in a fork — reply added as context instead."
    })
    .await;
    h.wait_for_bot_message("the fork's answer", |m| m.content == "Still the same fork.")
        .await;
    let quoted = h.mock.main_requests().pop().unwrap();
    let quoted = quoted.last_user_text().unwrap();
    assert!(quoted.contains("> Noted: PINEAPPLE."), "{quoted}");

    h.mock.push(Reply::tool_use(
        "mcp__discord__exit_fork",
        serde_json::json!({}),
    ));
    h.mock.push(Reply::text("Leaving."));
    h.discord.dm_from(h.owner(), "ok, close it").await;
    let exit = h.wait_for_embed("Fork Ended — discarded").await;
    // The bot records the exit embed as the fork's (SES-16); wait for that write before
    // rewriting the file, or the two writers race.
    wait::until_true(
        "the exit embed recorded",
        std::time::Duration::from_secs(10),
        || {
            std::fs::read_to_string(&records)
                .unwrap_or_default()
                .contains(&exit.id.to_string())
        },
        || h.log(),
    )
    .await;

    write_record(now - 8.0 * 86_400.0);
    h.mock.push(Reply::text("Starting fresh."));
    h.discord.reply_to(h.owner(), "and now?", noted.id).await;
    h.wait_for_bot_message("the expiry note", |m| {
        m.content == "-# this session has expired — starting fresh with quoted context."
    })
    .await;
    h.wait_for_bot_message("the answer", |m| m.content == "Starting fresh.")
        .await;
    let prompt = h.mock.main_requests().pop().unwrap();
    let prompt = prompt.last_user_text().unwrap();
    assert!(prompt.contains("> Noted: PINEAPPLE."), "{prompt}");
    assert!(prompt.ends_with("and now?"), "{prompt}");
    h.terminate().await;
}

/// Issue 23 §4: a background run's session, resumed by a reply in the DM, never becomes the
/// main conversation, even when a Save button of an earlier fork in the same place is clicked:
/// the fork ends as Exit would and main stays the same session.
#[tokio::test]
async fn an_old_save_button_never_saves_a_resumed_runs_session() {
    let h = greeted().await;
    h.mock.add_rule(|request| {
        let prompt = request.user_prompts().join("\n");
        if prompt.contains("make it a long one") {
            return Some(Reply::text("Resumed: a long stretch."));
        }
        if prompt.contains("[reminder-bg:") {
            return Some(if request.tool_results().is_empty() {
                Reply::tool_use(
                    "mcp__discord__ping_user",
                    serde_json::json!({"message": "Time to stretch!"}),
                )
            } else {
                Reply::text("pinged")
            });
        }
        None
    });
    h.converse("hi", "Hi!").await;
    let main_id = h.wait_stored_session().await;
    h.mock.push(Reply::text("Fork open."));
    h.discord
        .slash(h.owner(), "fork", serde_json::json!([]))
        .await;
    let old = h.wait_for_embed("Forked Session").await;
    h.wait_for_bot_message("the fork's first reply", |m| m.content == "Fork open.")
        .await;
    h.discord
        .click_button(h.owner(), h.dm(), old.id, "act:fork_exit:_")
        .await;
    h.wait_for_embed("Fork Ended — discarded").await;
    // A background run keeps quiet while a conversation is busy (BGF-2): the fork's end
    // (its CLI stopping) is over once main answers again.
    h.converse("back", "Back in main.").await;

    h.add_reminder_now("stretch").await;
    let ping = h
        .wait_for_bot_message("the ping", |m| m.content.contains("Time to stretch!"))
        .await;
    h.wait_for_log(
        "background run finished",
        std::time::Duration::from_secs(20),
    )
    .await;
    h.discord
        .reply_to(h.owner(), "make it a long one", ping.id)
        .await;
    h.wait_for_bot_message("the resumed run's answer", |m| {
        m.content == "Resumed: a long stretch."
    })
    .await;
    h.discord
        .click_button(h.owner(), h.dm(), old.id, "act:fork_save:_")
        .await;
    h.wait_for_embed("Fork Ended — discarded").await;
    wait::until_true(
        "the resumed run's fork discarded, not saved",
        std::time::Duration::from_secs(20),
        || {
            h.bot_messages().iter().any(|m| {
                m.all_text()
                    .contains("a background run's session can't become the main conversation")
            })
        },
        || h.log(),
    )
    .await;
    assert_eq!(h.stored_session().as_deref(), Some(main_id.as_str()));
}

/// BTN-4, RPL-5: an agent button on a background run's embed resumes that run as a fork — the
/// model gets the run's own context and the button's prompt; clicked again it says the fork
/// is open, and once the fork ended, that the option expired. An agent button of the main conversation whose turn asks to enter a fork
/// opens none: that request is dropped with the turn.
#[tokio::test]
#[allow(clippy::too_many_lines)] // one owner's story: the run's button, then main's
async fn a_button_on_a_runs_message_resumes_the_run_and_a_button_turn_never_forks() {
    let h = greeted().await;
    h.mock.add_rule(|request| {
        let prompts = request.user_prompts().join("\n");
        let last = request.last_user_text().unwrap_or_default().to_owned();
        if last.contains("push the dentist to tomorrow") {
            let knows_run = prompts.contains("[reminder-bg:");
            return Some(Reply::text(if knows_run {
                "Moved the dentist reminder to tomorrow."
            } else {
                "Which dentist?"
            }));
        }
        if prompts.contains("[button] open a side conversation") {
            let results = request.tool_results();
            return Some(match results.last() {
                None => Reply::tool_use("mcp__discord__enter_fork", serde_json::json!({})),
                Some(result) if result.content.contains("Not entering a fork") => {
                    Reply::text("Staying here.")
                }
                Some(_) => Reply::text("Entered after all."),
            });
        }
        if prompts.contains("[reminder-bg:") && !prompts.contains("[button]") {
            return Some(if request.tool_results().is_empty() {
                Reply::tool_use(
                    "mcp__discord__discord_embed",
                    serde_json::json!({"title": "Dentist at 3", "buttons": [
                        {"label": "Tomorrow", "action": "agent:push the dentist to tomorrow"}]}),
                )
            } else {
                Reply::text("embedded")
            });
        }
        None
    });
    h.converse("hi", "Hi!").await;
    h.add_reminder_now("dentist").await;
    let embed = h
        .wait_for_bot_message("the run's embed", |m| {
            m.embeds.iter().any(|e| e["title"] == "Dentist at 3")
        })
        .await;
    h.wait_for_log(
        "background run finished",
        std::time::Duration::from_secs(20),
    )
    .await;
    let button = embed.custom_ids()[0].clone();
    h.discord
        .click_button(h.owner(), h.dm(), embed.id, &button)
        .await;
    let entry = h.wait_for_embed("Resumed Background Session").await;
    h.wait_for_bot_message("the resumed run's answer", |m| {
        m.content
            .contains("Moved the dentist reminder to tomorrow.")
    })
    .await;
    // Clicked again while its fork is open: already in it; once it ended: the option is used.
    let again = h
        .discord
        .click_button(h.owner(), h.dm(), embed.id, &button)
        .await;
    let callback = h.discord.wait_for_callback(again).await;
    assert!(
        callback.to_string().contains("already in a fork."),
        "{callback}"
    );
    h.discord
        .click_button(h.owner(), h.dm(), entry.id, "act:fork_exit:_")
        .await;
    h.wait_for_embed("Fork Ended — discarded").await;
    let again = h
        .discord
        .click_button(h.owner(), h.dm(), embed.id, &button)
        .await;
    let callback = h.discord.wait_for_callback(again).await;
    assert!(callback.to_string().contains("expired"), "{callback}");

    // Main's own button whose turn asks for a fork: answered in main, no fork.
    h.mock.push(Reply::tool_use(
        "mcp__discord__discord_embed",
        serde_json::json!({"title": "Options", "buttons": [
            {"label": "Side", "action": "agent:open a side conversation"}]}),
    ));
    h.mock.push(Reply::text("Here are options."));
    h.discord.dm_from(h.owner(), "give me options").await;
    let options = h
        .wait_for_bot_message("the options embed", |m| {
            m.embeds.iter().any(|e| e["title"] == "Options")
        })
        .await;
    h.wait_for_bot_message("the text after it", |m| {
        m.content.contains("Here are options.")
    })
    .await;
    let forks_before = h
        .bot_messages()
        .iter()
        .filter(|m| m.embeds.iter().any(|e| e["title"] == "Forked Session"))
        .count();
    h.discord
        .click_button(h.owner(), h.dm(), options.id, &options.custom_ids()[0])
        .await;
    h.wait_for_bot_message("the button turn's answer", |m| {
        m.content.contains("Staying here.")
    })
    .await;
    let forks_after = h
        .bot_messages()
        .iter()
        .filter(|m| m.embeds.iter().any(|e| e["title"] == "Forked Session"))
        .count();
    assert_eq!(
        forks_before, forks_after,
        "no fork opened from the button turn"
    );
}
