//! What Google's API errors become: 429 and 503 retried, and a quota or a disabled API named
//! with what to do.

use serde_json::json;

use crate::support::{
    fake_google::{FakeGoogle, Fault},
    google_cli::{connected, fails, ok},
};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rate_limits_are_retried_and_api_errors_say_what_to_do() {
    let fake = FakeGoogle::start().await;
    let (_home, dir) = connected();
    fake.connect(&dir, false);
    let limited =
        json!({"error": {"code": 429, "message": "Too many", "status": "RESOURCE_EXHAUSTED"}});
    fake.fault(Fault::new("/tasks/v1/", 429, limited.clone()).retry_after("1"));
    fake.fault(Fault::new("/tasks/v1/", 503, json!({})));
    assert_eq!(ok(&dir, &fake, &["tasks", "list"]).await, "no tasks\n");
    let tries = fake.requests_to("/tasks/v1/");
    assert_eq!(
        tries.iter().map(|r| r.status).collect::<Vec<_>>(),
        [429, 503, 200]
    );

    for _ in 0..4 {
        fake.fault(Fault::new("/gmail/v1/", 429, limited.clone()).retry_after("0"));
    }
    let line = fails(&dir, &fake, &["gmail", "labels"]).await;
    assert!(line.contains("Gmail API quota or rate limit"), "{line}");
    assert_eq!(fake.requests_to("/gmail/v1/").len(), 4);

    fake.fault(Fault::new(
        "/calendar/v3/",
        403,
        json!({"error": {"code": 403, "message": "Calendar API has not been used",
            "errors": [{"reason": "accessNotConfigured"}]}}),
    ));
    let line = fails(&dir, &fake, &["cal", "calendars"]).await;
    assert!(
        line.contains("Google Calendar API is not enabled") && line.contains("console.cloud"),
        "{line}"
    );
}
