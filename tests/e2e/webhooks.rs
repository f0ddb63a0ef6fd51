//! Webhooks through the real binary, the real CLI, the fake Discord and the mock model
//! (WHK-1…13, issue 13): the exact status codes and bodies, a valid request becoming a fenced
//! background run that pings the owner, screening that refuses flagged payloads and holds the
//! request (failing closed) when its answer can't be read or doesn't come, the owner's button
//! that dispatches a held request, and a flood of bad requests that leaves the bot answering.

use crate::support;

use std::time::Duration;

use serde_json::json;
use support::{
    bot::BotHarness,
    cli::CliSandbox,
    fake_discord::{FakeConfig, FakeDiscord, FakeMessage},
    http::{HttpReply, post_hook, request},
    mock_api::{MockApi, RecordedRequest, Reply},
};

mod bindings;
mod budget;
mod resilience;
mod screening;
mod signed;

const SECRET: &str = "test-webhook-secret-0123456789";

/// The spec of E.3's example, with an optional field the template doesn't use.
const CI_SPEC: &str = "---\nid: ci\nfields:\n  type: object\n  required: [repo, status]\n  \
    properties:\n    repo: {type: string, maxLength: 200}\n    status: {type: string, enum: \
    [success, failure, cancelled]}\n    note: {type: string}\n  additionalProperties: false\n\
    ---\nCI result for {repo}: {status}. Ping me if it failed.\n";

/// A spec whose template names an optional field (WHK-8, F-26).
const OPTIONAL_SPEC: &str = "---\nid: deploy\nfields:\n  type: object\n  properties:\n    \
    env: {type: string, enum: [prod, staging]}\n    branch: {type: string}\n---\n\
    Deploy to {env} from {branch}.\n";

struct Hooks {
    h: BotHarness,
    port: u16,
}

impl Hooks {
    /// A greeted bot with the webhook server on a port the OS picked (`WEBHOOK_PORT=0`, read
    /// back from its start-up line) and the two specs installed.
    async fn start() -> Self {
        Self::start_in(CliSandbox::new()).await
    }

    /// [`Self::start`] in `sandbox`, prepared by the caller.
    async fn start_in(sandbox: CliSandbox) -> Self {
        let dir = sandbox.data_dir.join("webhooks");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("ci.md"), CI_SPEC).unwrap();
        std::fs::write(dir.join("deploy.md"), OPTIONAL_SPEC).unwrap();
        let h = BotHarness::start_parts(
            FakeDiscord::start(FakeConfig::default()).await,
            MockApi::start().await,
            sandbox,
            &[
                ("WEBHOOK_PORT", "0"),
                ("WEBHOOK_SECRET", SECRET),
                ("OLLIM_SCHEDULER_SYNC_SECS", "1"),
            ],
        )
        .await;
        h.greeted().await;
        let port = h.webhook_port().await;
        Self { h, port }
    }

    async fn post(&self, id: &str, body: &str) -> HttpReply {
        post_hook(self.port, id, Some(SECRET), &[], body).await
    }

    /// Posts `body` to `ci`, expects 202 and returns the hold notice the bot then posts.
    async fn held(&self, body: &str) -> FakeMessage {
        assert_eq!(self.post("ci", body).await.status, 202);
        self.h
            .wait_for_bot_message_within("the hold notice", Duration::from_secs(60), |m| {
                hold_notice(m, "ci")
            })
            .await
    }

    /// The model requests of the screening session.
    fn screenings(&self) -> Vec<String> {
        self.h
            .mock
            .model_requests()
            .into_iter()
            .filter(|r| is_screening(&r.system_text()))
            .map(|r| r.user_prompts().join("\n"))
            .collect()
    }

    /// The prompts of background runs for webhook `id`.
    fn runs_of(&self, id: &str) -> Vec<String> {
        let tag = format!("[webhook:{id}]");
        self.h
            .mock
            .model_requests()
            .into_iter()
            .map(|r| r.user_prompts().join("\n"))
            .filter(|p| p.contains(&tag))
            .collect()
    }

    async fn wait_run(&self, id: &str) -> String {
        let tag = format!("[webhook:{id}]");
        let is_run =
            |r: &RecordedRequest| r.is_model_call() && r.user_prompts().join("\n").contains(&tag);
        let what = format!("a run of {id}");
        let requests = self
            .h
            .mock
            .wait_for(&what, Duration::from_secs(60), |requests| {
                requests.iter().any(is_run)
            })
            .await;
        let run = requests
            .into_iter()
            .find(is_run)
            .expect("the run waited for");
        run.user_prompts().join("\n")
    }
}

fn is_screening(system: &str) -> bool {
    system.contains("security filter")
}

/// The mock answers screening requests with `verdict` and webhook runs with a ping.
fn script(mock: &MockApi, verdict: Reply) {
    mock.add_rule(move |request| is_screening(&request.system_text()).then(|| verdict.clone()));
    mock.add_rule(|request| {
        let prompt = request.user_prompts().join("\n");
        if !prompt.contains("[webhook:") {
            return None;
        }
        Some(if request.tool_results().is_empty() {
            Reply::tool_use(
                "mcp__discord__ping_user",
                json!({"message": "CI failed on ollim"}),
            )
        } else {
            Reply::text("done")
        })
    });
}

fn assert_reply(reply: &HttpReply, status: u16, body: &serde_json::Value) {
    assert_eq!(reply.status, status, "{reply:?}");
    assert_eq!(&reply.json(), body, "{reply:?}");
}

#[tokio::test]
async fn every_status_code_has_its_exact_body() {
    let hooks = Hooks::start().await;
    let port = hooks.port;
    let ok = r#"{"repo": "ollim", "status": "failure"}"#;
    // WHK-3: auth first, even for unknown ids.
    assert_reply(
        &post_hook(port, "ci", None, &[], ok).await,
        401,
        &json!({"error": "unauthorized"}),
    );
    assert_reply(
        &post_hook(port, "ci", Some("wrong"), &[], ok).await,
        401,
        &json!({"error": "unauthorized"}),
    );
    assert_reply(
        &post_hook(port, "nope", None, &[], ok).await,
        401,
        &json!({"error": "unauthorized"}),
    );
    // WHK-4.
    assert_reply(
        &hooks.post("nope", ok).await,
        404,
        &json!({"error": "webhook not found: nope"}),
    );
    // WHK-5: one byte over the cap.
    let big = format!(
        r#"{{"repo": "{}", "status": "failure"}}"#,
        "x".repeat(10_241)
    );
    assert_eq!(hooks.post("ci", &big).await.status, 413);
    // WHK-6.
    assert_reply(
        &hooks.post("ci", "{not json").await,
        400,
        &json!({"error": "invalid json"}),
    );
    // WHK-7: schema failures, and the default maxLength of 500 on `note`.
    let extra = hooks
        .post(
            "ci",
            r#"{"repo": "ollim", "status": "failure", "extra": 1}"#,
        )
        .await;
    assert_eq!(extra.status, 400, "{extra:?}");
    assert_eq!(extra.json()["error"], "validation failed");
    assert!(!extra.json()["details"].as_array().unwrap().is_empty());
    let long_note = format!(
        r#"{{"repo": "ollim", "status": "failure", "note": "{}"}}"#,
        "n".repeat(501)
    );
    let long = hooks.post("ci", &long_note).await;
    assert_eq!(long.json()["error"], "validation failed", "{long:?}");
    // WHK-8: the template names a field the payload lacks.
    let missing = hooks.post("deploy", r#"{"env": "prod"}"#).await;
    assert_eq!(missing.status, 400, "{missing:?}");
    let error = missing.json()["error"].as_str().unwrap().to_owned();
    assert!(
        error.starts_with("payload missing fields referenced in template: ")
            && error.contains("branch"),
        "{error}"
    );
    // WHK-2: other methods and paths.
    assert_eq!(
        request(port, "GET", "/hook/ci", &[], b"")
            .await
            .unwrap()
            .status,
        405
    );
    assert_eq!(
        request(port, "POST", "/other", &[], b"")
            .await
            .unwrap()
            .status,
        404
    );
    // A broken spec answers 500 naming its file, never the secret; the others keep working.
    std::fs::write(
        hooks.h.sandbox.data_dir.join("webhooks/broken.md"),
        "---\nid: broken\nfields: [not, a, mapping\n---\nx\n",
    )
    .unwrap();
    let broken = hooks.post("broken", ok).await;
    assert_eq!(broken.status, 500, "{broken:?}");
    assert!(broken.body.contains("broken.md"), "{broken:?}");
    assert!(!broken.body.contains(SECRET));
    // WHK-9.
    script(
        &hooks.h.mock,
        Reply::text(r#"{"safe": true, "flagged": []}"#),
    );
    assert_reply(
        &hooks.post("ci", ok).await,
        202,
        &json!({"status": "accepted"}),
    );
    assert!(
        !hooks.h.log().contains(SECRET),
        "the secret reached the log"
    );
}

/// The bot's hold notice for webhook `id`.
fn hold_notice(message: &FakeMessage, id: &str) -> bool {
    serde_json::to_string(&message.embeds)
        .unwrap()
        .contains(&format!("`{id}`"))
        && serde_json::to_string(&message.components)
            .unwrap()
            .contains("act:hook_run:")
}
