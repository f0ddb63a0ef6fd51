//! The status line while a subagent works (STR-12), on the virtual clock.

use std::time::Duration;

use super::{
    StreamOptions,
    fake::{RecordingSink, Script, VirtualClock},
    machine,
};
use crate::front_end::TurnEvent;

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// STR-12: the `Agent` call's status line turns into `<agent>(<description>) · <tool>` as the
/// subagent calls tools, its seconds counting from the `Agent` call, never from the tool.
#[tokio::test]
async fn a_subagents_tools_relabel_the_status_without_resetting_its_timer() {
    let clock = VirtualClock::new();
    let sink = RecordingSink::new(&clock);
    let activity = |label: &str| TurnEvent::SubagentActivity(label.to_owned());
    let script = Script::new(&clock)
        .at(
            1000,
            TurnEvent::ToolUse {
                id: "1".to_owned(),
                label: "Agent(check mail)".to_owned(),
            },
        )
        .at(3500, activity("gmail-reader(check mail) · gmail"))
        .at(6200, activity("gmail-reader(check mail) · Read"))
        .text(9000, "One email needs you.")
        .end(9500);
    machine::run(&sink, script, StreamOptions::default()).await;

    let edits = sink.edits();
    let shown = |text: &str| edits.iter().any(|(_, _, content)| content == text);
    assert!(shown("-# *Agent(check mail)... (2s)*"), "{edits:?}");
    assert!(
        shown("-# *gmail-reader(check mail) · gmail... (3s)*"),
        "{edits:?}"
    );
    assert!(
        shown("-# *gmail-reader(check mail) · Read... (5s)*"),
        "the timer runs on from the Agent call: {edits:?}"
    );
    assert!(
        !edits
            .iter()
            .any(|(_, _, c)| c.contains("gmail-reader") && c.ends_with("...*")),
        "a relabel never shows the timer reset: {edits:?}"
    );
    assert!(
        !shown("-# *gmail-reader(check mail) · Read... (1s)*"),
        "{edits:?}"
    );
    let first_relabel = edits
        .iter()
        .find(|(_, _, content)| content.contains("gmail-reader"))
        .map(|(at, ..)| *at);
    assert!(first_relabel.is_some_and(|at| at >= ms(3500) && at < ms(4100)));
    assert_eq!(
        sink.contents(),
        vec!["-# *Agent(check mail)*\nOne email needs you.".to_owned()]
    );
}
