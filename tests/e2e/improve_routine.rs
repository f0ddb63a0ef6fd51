//! The bundled `improve-routine` skill (SKL-8) as the agent uses it: `ollim-bot chat` on pipes,
//! the real binary installing it, and the pinned CLI loading it when the mock model calls the
//! `Skill` tool, with the `routine-critic` subagent it asks for offered beside it.

use crate::support;

use std::time::Duration;

use serde_json::json;
use support::{
    chat::Chat,
    cli::CliSandbox,
    mock_api::{MockApi, Reply},
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
