//! First run (GRT-3, SLC-14, SKL-8) through the real binary, the fake Discord and the real
//! CLI against the mock model: the welcome carries **Get started — 3 questions**; a click
//! starts the bundled `setup` skill's quick path in the main session; accepting the morning
//! check-in leaves a routine the scheduler reads; `/setup` starts the skill without arguments.

use crate::support;

use serde_json::json;
use support::{bot::BotHarness, mock_api::Reply};

#[tokio::test]
async fn get_started_runs_the_setup_skill_and_a_routine_can_come_of_it() {
    let mut h = BotHarness::start().await;
    let welcome = h
        .wait_for_bot_message("the first-run greeting", |m| {
            m.content.contains("plate today")
        })
        .await;
    assert_eq!(welcome.custom_ids(), ["act:setup:quick"]);
    let shown = serde_json::to_string(&welcome.components).unwrap();
    assert!(shown.contains("Get started — 3 questions"), "{shown}");
    assert!(
        h.sandbox.data_dir.join("skills/setup/SKILL.md").is_file(),
        "the bundled skill is installed into the data dir"
    );

    h.mock
        .push(Reply::text("First one: what should I call you?"));
    h.discord
        .click_button(h.owner(), h.dm(), welcome.id, "act:setup:quick")
        .await;
    h.wait_for_bot_message("the first set-up question", |m| {
        m.content.contains("what should I call you?")
    })
    .await;
    let asked = h.mock.main_requests().pop().unwrap();
    let prompt = asked.user_prompts().join("\n");
    assert!(
        prompt.contains("[setup] The owner started the `setup` skill. Follow it:"),
        "{prompt}"
    );
    assert!(prompt.contains("Arguments: `quick`"), "{prompt}");
    assert!(
        prompt.contains("three questions, one at a time"),
        "{prompt}"
    );

    // The owner says yes to the check-in; the agent writes the routine (SLC-14).
    let routine = "---\nid: morning-check-in\ncron: \"0 9 * * 1-5\"\n\
                   description: Weekday morning check-in\n---\n\
                   Look at today's calendar and tasks and ask Julia for the one thing that matters most.\n";
    h.mock.push(Reply::tool_use(
        "Write",
        json!({"file_path": "routines/morning-check-in.md", "content": routine}),
    ));
    h.mock.push(Reply::text("Saved: weekdays at 9."));
    h.discord
        .dm_from(h.owner(), "yes, 9 is good for the check-in")
        .await;
    h.wait_for_bot_message("the confirmation", |m| {
        m.content.contains("Saved: weekdays at 9.")
    })
    .await;
    let listed = support::bot::ollim_command(&h.sandbox, &h.mock)
        .args(["routine", "list"])
        .output()
        .await
        .unwrap();
    let listed = String::from_utf8_lossy(&listed.stdout).into_owned();
    assert!(
        listed.contains("morning-check-in  cron '0 9 * * 1-5'"),
        "{listed}"
    );

    // `/setup` later: the same skill, no arguments; the reply goes to the DM.
    h.mock
        .push(Reply::text("Here's what's set up so far: one routine."));
    h.discord.slash(h.owner(), "setup", json!([])).await;
    h.wait_for_bot_message("the set-up summary", |m| {
        m.content.contains("what's set up so far")
    })
    .await;
    let asked = h.mock.main_requests().pop().unwrap();
    let prompt = asked.user_prompts().join("\n");
    assert!(prompt.contains("Arguments: `(none)`"), "{prompt}");
    h.terminate().await;
}
