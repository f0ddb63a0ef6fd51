//! A webhook spec that names a skill or a subagent that isn't there (WHK-13, BGF-21): the
//! request is accepted, no run starts, the log says `Webhook <id>: …, skipping`, and the
//! owner hears why on their next turn; the spec's other requests are unaffected.

use std::time::Duration;

use super::{Hooks, script};
use crate::support::{cli::CliSandbox, mock_api::Reply, wait};

/// A spec binding the skill `no-such-skill`.
const SKILL_SPEC: &str = "---\nid: digest\nskills: [no-such-skill]\nfields:\n  type: object\n  \
    properties:\n    topic: {type: string, enum: [news, mail]}\n---\nDigest the {topic}.\n";

/// A spec binding the subagent `no-such-agent`.
const SUBAGENT_SPEC: &str = "---\nid: triage\nsubagent: no-such-agent\nfields:\n  type: object\n  \
    properties:\n    topic: {type: string, enum: [news, mail]}\n---\nTriage the {topic}.\n";

/// WHK-13, BGF-21: the two specs' requests are accepted and skipped, each with its log line
/// and a pending update; the working spec beside them runs.
#[tokio::test]
async fn a_spec_naming_an_unknown_skill_or_subagent_is_skipped_and_the_owner_told() {
    let sandbox = CliSandbox::new();
    let dir = sandbox.data_dir.join("webhooks");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("digest.md"), SKILL_SPEC).unwrap();
    std::fs::write(dir.join("triage.md"), SUBAGENT_SPEC).unwrap();
    let hooks = Hooks::start_in(sandbox).await;
    script(
        &hooks.h.mock,
        Reply::text(r#"{"safe": true, "flagged": []}"#),
    );
    for id in ["digest", "triage"] {
        assert_eq!(hooks.post(id, r#"{"topic": "news"}"#).await.status, 202);
    }
    let log = wait::eventually(
        "both skips in the log",
        Duration::from_secs(60),
        || {
            let log = hooks.h.log();
            (log.contains("Webhook digest: skill \"no-such-skill\" not found")
                && log.contains("Webhook triage: unknown subagent 'no-such-agent'"))
            .then_some(log)
        },
        || hooks.h.log(),
    )
    .await;
    assert!(log.matches(", skipping").count() >= 2, "{log}");
    assert!(hooks.runs_of("digest").is_empty() && hooks.runs_of("triage").is_empty());

    // The owner's next turn carries why, as pending updates.
    hooks
        .h
        .converse("anything new?", "Two webhooks didn't run.")
        .await;
    let prompt = hooks
        .h
        .mock
        .model_requests()
        .into_iter()
        .filter(crate::support::mock_api::RecordedRequest::is_main)
        .map(|r| r.user_prompts().join("\n"))
        .find(|p| p.contains("anything new?"))
        .expect("the owner's turn");
    for line in ["Did not run webhook:digest", "Did not run webhook:triage"] {
        assert!(prompt.contains(line), "{line:?} in {prompt}");
    }
    // A working spec beside them still runs.
    assert_eq!(
        hooks
            .post("ci", r#"{"repo": "ollim", "status": "failure"}"#)
            .await
            .status,
        202
    );
    hooks.wait_run("ci").await;
}

/// BOOT-11: `WEBHOOK_BIND=0.0.0.0` (a container publishing the port) listens on every address:
/// the start-up line says so, and a request reaches it.
#[tokio::test]
async fn webhook_bind_sets_the_address_the_server_listens_on() {
    use crate::support::{
        bot::BotHarness,
        fake_discord::{FakeConfig, FakeDiscord},
        http::post_hook,
        mock_api::MockApi,
    };
    let h = BotHarness::start_parts(
        FakeDiscord::start(FakeConfig::default()).await,
        MockApi::start().await,
        CliSandbox::new(),
        &[
            ("WEBHOOK_PORT", "0"),
            ("WEBHOOK_SECRET", super::SECRET),
            ("WEBHOOK_BIND", "0.0.0.0"),
        ],
    )
    .await;
    h.greeted().await;
    let port = h.webhook_port().await;
    assert!(
        h.log()
            .contains(&format!("Webhook server started on 0.0.0.0:{port}")),
        "{}",
        h.log()
    );
    let reply = post_hook(port, "nope", Some(super::SECRET), &[], "{}").await;
    assert_eq!(reply.status, 404, "{reply:?}");
}
