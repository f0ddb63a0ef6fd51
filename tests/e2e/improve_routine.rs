//! The bundled `improve-routine` skill (SKL-8) as the agent and the owner use it: `ollim-bot
//! chat` on pipes and the real daemon in the fake Discord, the real binary installing it, and
//! the pinned CLI loading it when the mock model calls the `Skill` tool or when the owner types
//! `/improve-routine <file>`, with the `routine-critic` subagent it asks for offered beside it.

use crate::support;

use std::time::Duration;

use serde_json::json;
use support::{
    bot::BotHarness,
    chat::Chat,
    cli::CliSandbox,
    mock_api::{MockApi, RecordedRequest, Reply},
};

/// SKL-8: asked why a routine keeps failing, the agent loads `improve-routine` for the file:
/// the skill is installed, trusted as shipped, and its two phases reach the model with the
/// file named; the critic subagent is offered.
#[tokio::test]
async fn improve_routine_starts_a_read_only_diagnosis_of_the_named_routine() {
    let mock = MockApi::start().await;
    let sandbox = CliSandbox::new();
    let answer = "Looking at the morning routine first; nothing changes until you say so.";
    mock.push(Reply::tool_use(
        "Skill",
        json!({"skill": "improve-routine", "args": "routines/morning.md"}),
    ));
    mock.push(Reply::text(answer));
    let mut chat = Chat::start(&sandbox, &mock);
    chat.expect("you> ").await;
    chat.say("why does my morning routine keep failing?", answer)
        .await;
    chat.eof();
    let status = chat.exit(Duration::from_secs(20)).await;
    assert_eq!(status.code(), Some(0), "{}", chat.transcript());

    assert!(
        sandbox
            .data_dir
            .join("skills/improve-routine/SKILL.md")
            .is_file(),
        "the bundled skill is installed"
    );
    let requests = mock.main_requests();
    assert!(
        requests[0].all_text().contains("- routine-critic: "),
        "the critic subagent is offered"
    );
    let loaded = requests
        .iter()
        .map(support::mock_api::RecordedRequest::all_text)
        .find(|text| text.contains("Phase 1 changes nothing"))
        .expect("the skill's text reached the model");
    for part in ["routines/morning.md", "reflections/<id>/", "routine-critic"] {
        assert!(loaded.contains(part), "{part:?} not in the loaded skill");
    }
}

/// The CLI's record of the skill it ran for a typed `/improve-routine`, as the model gets it.
const RAN_IMPROVE_ROUTINE: &str = "<command-name>/ollim:improve-routine</command-name>";

/// The request that carries the CLI's run of `improve-routine`: the skill's text and the
/// owner's words after it as the command's arguments, the time after those.
fn ran_the_skill(requests: &[RecordedRequest]) -> Option<String> {
    requests
        .iter()
        .map(|r| r.user_prompts().join("\n"))
        .find(|prompts| prompts.contains(RAN_IMPROVE_ROUTINE))
}

fn assert_ran_for_the_file(prompts: &str) {
    assert!(prompts.contains("Phase 1 changes nothing"), "{prompts}");
    let args = prompts
        .split("<command-args>")
        .nth(1)
        .expect("the command's arguments");
    assert!(
        args.starts_with("routines/morning.md\n\n["),
        "the owner's words, then the time: {args}"
    );
}

/// SKL-8, CTX-11 for the owner's words: typed in the terminal, `/improve-routine
/// routines/morning.md` is a command the CLI runs (the skill's text reaches the model with
/// the file), not words after a time stamp; `/nonsense` names nothing approved and is sent
/// as typed, after the time.
#[tokio::test]
async fn typed_in_chat_the_skill_runs_and_an_unknown_name_stays_text() {
    let mock = MockApi::start().await;
    let sandbox = CliSandbox::new();
    let answer = "Phase 1 first: I'll read the morning routine's runs.";
    mock.push(Reply::text(answer));
    mock.push(Reply::text("No such command; what did you mean?"));
    let mut chat = Chat::start(&sandbox, &mock);
    chat.expect("you> ").await;
    chat.say("/improve-routine routines/morning.md", answer)
        .await;
    chat.say("/nonsense hello", "No such command; what did you mean?")
        .await;
    chat.eof();
    let status = chat.exit(Duration::from_secs(20)).await;
    assert_eq!(status.code(), Some(0), "{}", chat.transcript());

    let requests = mock.main_requests();
    assert_ran_for_the_file(&ran_the_skill(&requests).expect("the CLI ran the skill"));
    let last = requests.last().unwrap().user_prompts().join("\n");
    let typed = last
        .lines()
        .find(|line| line.contains("/nonsense hello"))
        .expect("the unknown name as typed");
    assert!(typed.starts_with('['), "after the time: {typed}");
    assert!(typed.ends_with("] /nonsense hello"), "{typed}");
}

/// The same in the DM, through the real daemon and the fake Discord: the owner's
/// `/improve-routine routines/morning.md` runs the skill in the main session and the answer
/// comes back in the DM.
#[tokio::test]
async fn typed_in_the_dm_the_skill_runs_in_the_main_session() {
    let h = BotHarness::greeted_fast_sync(CliSandbox::new()).await;
    let answer = "Looking at routines/morning.md; nothing changes until you say so.";
    h.mock.add_rule(move |request| {
        let ran = request
            .user_prompts()
            .iter()
            .any(|p| p.contains(RAN_IMPROVE_ROUTINE));
        (request.is_main() && ran).then(|| Reply::text(answer))
    });
    h.discord
        .dm_from(h.owner(), "/improve-routine routines/morning.md")
        .await;
    h.wait_for_bot_message_within("with the answer", Duration::from_secs(60), |m| {
        m.content.contains(answer)
    })
    .await;
    let prompts = ran_the_skill(&h.mock.main_requests()).expect("the CLI ran the skill");
    assert_ran_for_the_file(&prompts);
}
