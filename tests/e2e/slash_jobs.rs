//! Jobs whose body is a slash command (CTX-11), through the real runner or the real daemon,
//! the pinned CLI (which runs the command: it expands the skill for the model) and the mock
//! model. Only a skill or command the CLI loads as approved goes first; a built-in such as
//! `/clear` stays text after the tag.

use crate::support;

use std::time::Duration;

use support::{
    agent::AgentHarness,
    bot::{BotHarness, ollim_command},
    cli::CliSandbox,
    mock_api::{RecordedRequest, Reply},
    wait,
};

/// A line of the bundled `job-config` skill: the CLI expanded it for the model.
const JOB_CONFIG_LINE: &str = "# Configuring a routine or reminder";

/// The CLI's record of the command it ran, as the model gets it.
const RAN_JOB_CONFIG: &str = "<command-name>/ollim:job-config</command-name>";

fn asked_with(requests: &[RecordedRequest], marker: &str) -> Option<RecordedRequest> {
    requests
        .iter()
        .find(|r| r.user_prompts().iter().any(|p| p.contains(marker)))
        .cloned()
}

/// CTX-11: a background routine whose body starts with the approved `job-config` skill: the
/// CLI runs the skill (its text reaches the model), and the time, the tag and the preamble
/// follow the body as the command's arguments. A body starting with `/clear` is not run: the
/// run's prompt starts with the time and the tag as always, the words after it.
#[tokio::test]
async fn a_background_job_led_by_a_skill_runs_it_and_a_built_in_stays_text() {
    let h = AgentHarness::new().await;
    h.mock.set_default(Reply::text("done"));
    h.run_routine_bg("cfg", "/job-config what does allow-ping do?")
        .await
        .unwrap();
    let requests = h.mock.model_requests();
    let ran = asked_with(&requests, RAN_JOB_CONFIG).expect("the CLI ran the skill");
    let prompts = ran.user_prompts().join("\n");
    assert!(prompts.contains(JOB_CONFIG_LINE), "{prompts}");
    let args = prompts
        .split("<command-args>")
        .nth(1)
        .expect("the command's arguments");
    assert!(
        args.starts_with("what does allow-ping do?\n\n["),
        "the body's words, then the time: {args}"
    );
    assert!(args.contains("] [routine-bg:cfg] "), "{args}");

    h.run_routine_bg("tidy", "/clear then tidy the notes folder")
        .await
        .unwrap();
    let requests = h.mock.model_requests();
    let tidy = asked_with(&requests, "[routine-bg:tidy]").expect("the run's prompt");
    let prompt = tidy
        .user_prompts()
        .into_iter()
        .find(|p| p.contains("[routine-bg:tidy]"))
        .unwrap()
        .to_owned();
    assert!(prompt.starts_with('['), "{prompt}");
    assert!(
        prompt.ends_with("\n\n/clear then tidy the notes folder"),
        "{prompt}"
    );
    assert!(!tidy.all_text().contains("<command-name>"), "nothing ran");
    h.close().await;
}

/// CTX-11 in the main session: the owner sets a foreground reminder from their shell whose
/// text starts with `/job-config`; when the daemon fires it, the main session's CLI runs the
/// skill, the reminder's tag follows the time after the body, and the answer reaches the DM.
#[tokio::test]
async fn a_foreground_reminder_led_by_a_skill_runs_it_in_the_main_session() {
    let h = BotHarness::greeted_fast_sync(CliSandbox::new()).await;
    let answer = "allow-ping: false keeps a job from messaging you.";
    h.mock.add_rule(move |request| {
        let ran = request
            .user_prompts()
            .iter()
            .any(|p| p.contains(RAN_JOB_CONFIG));
        (request.is_main() && ran).then(|| Reply::text(answer))
    });
    let output = ollim_command(&h.sandbox, &h.mock)
        .args(["reminder", "add", "--delay", "0", "--foreground"])
        .args(["-m", "/job-config which key keeps a job quiet?"])
        .output()
        .await
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    h.wait_for_bot_message_within("with the answer", Duration::from_secs(60), |m| {
        m.content.contains(answer)
    })
    .await;
    let ran = wait::eventually(
        "the main session's request that ran the skill",
        Duration::from_secs(10),
        || asked_with(&h.mock.model_requests(), RAN_JOB_CONFIG),
        || h.log(),
    )
    .await;
    let prompts = ran.user_prompts().join("\n");
    assert!(prompts.contains(JOB_CONFIG_LINE), "{prompts}");
    let args = prompts.split("<command-args>").nth(1).unwrap();
    assert!(
        args.starts_with("which key keeps a job quiet?\n\n["),
        "{args}"
    );
    assert!(args.contains("[reminder:"), "{args}");
}
