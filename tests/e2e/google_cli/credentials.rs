//! Credentials and tokens: the setup steps without credentials, an expired token refreshed
//! and rewritten, and a revoked refresh token removed with the marker left.

use std::os::unix::fs::PermissionsExt;

use serde_json::Value;

use crate::support::{
    fake_google::FakeGoogle,
    google_cli::{connected, fails, ok, run},
};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_credentials_the_setup_steps_are_printed() {
    let fake = FakeGoogle::start().await;
    let (_home, dir) = connected();
    let output = run(&dir, &fake, &["tasks", "list"]).await;
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    let path = dir.join("state/credentials.json");
    assert!(
        stderr.starts_with(&format!(
            "Google credentials not found at {}\n",
            path.display()
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains("https://console.cloud.google.com/"),
        "{stderr}"
    );
    assert!(stderr.contains("Desktop app"), "{stderr}");
    // The step newcomers miss (issue 24 §8).
    assert!(
        stderr.contains("consent screen") && stderr.contains("test user"),
        "{stderr}"
    );
    assert!(output.stdout.is_empty());
    assert!(fake.requests().is_empty());

    // `google status` says what connecting needs: first the setup steps, then the command.
    let status = run(&dir, &fake, &["google", "status"]).await;
    assert_eq!(status.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&status.stdout),
        "google not connected.\n"
    );
    assert!(
        String::from_utf8_lossy(&status.stderr).contains("Desktop app"),
        "{status:?}"
    );

    // Credentials but no token, no terminal (the agent's shell, a script): one line, no wait.
    fake.write_credentials(&dir);
    let status = run(&dir, &fake, &["google", "status"]).await;
    let said = String::from_utf8_lossy(&status.stdout);
    assert!(
        said.contains("Connect it with `ollim-bot google auth`"),
        "{said}"
    );
    let line = fails(&dir, &fake, &["cal", "today"]).await;
    assert!(line.starts_with("error: Google is not connected"), "{line}");
    assert!(line.contains("/google-auth"), "{line}");
    // A Web-application client file is refused saying which kind to create.
    std::fs::write(
        dir.join("state/credentials.json"),
        r#"{"web":{"client_id":"x"}}"#,
    )
    .unwrap();
    let line = fails(&dir, &fake, &["gmail", "labels"]).await;
    assert!(line.contains("Desktop app"), "{line}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_token_is_refreshed_and_rewritten() {
    let fake = FakeGoogle::start().await;
    let (_home, dir) = connected();
    let (old_access, refresh) = fake.connect(&dir, true);
    assert_eq!(ok(&dir, &fake, &["tasks", "list"]).await, "no tasks\n");
    assert_eq!(fake.requests_to("/token").len(), 1);
    let token: Value =
        serde_json::from_slice(&std::fs::read(dir.join("state/token.json")).unwrap()).unwrap();
    assert_ne!(token["token"], old_access.as_str());
    assert_eq!(token["refresh_token"], refresh.as_str());
    let expiry = chrono::DateTime::parse_from_rfc3339(token["expiry"].as_str().unwrap()).unwrap();
    assert!(expiry > chrono::Utc::now() + chrono::Duration::minutes(50));
    let mode = std::fs::metadata(dir.join("state/token.json"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
    // The fresh token is used as is next time: no second refresh.
    ok(&dir, &fake, &["tasks", "list"]).await;
    assert_eq!(fake.requests_to("/token").len(), 1);

    // A 401 on a call (token revoked server-side, refresh token still good) refreshes once.
    fake.with(|d| d.access.clear());
    assert_eq!(ok(&dir, &fake, &["tasks", "list"]).await, "no tasks\n");
    assert_eq!(fake.requests_to("/token").len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_revoked_refresh_token_removes_the_token_and_leaves_the_marker() {
    let fake = FakeGoogle::start().await;
    let (_home, dir) = connected();
    let (_, refresh) = fake.connect(&dir, true);
    fake.revoke(&refresh);
    let line = fails(&dir, &fake, &["tasks", "list"]).await;
    assert!(line.contains("revoked"), "{line}");
    assert!(line.contains("/google-auth"), "{line}");
    assert!(!dir.join("state/token.json").exists());
    assert!(dir.join("state/google_auth_revoked").exists());
    // Now simply not connected.
    let line = fails(&dir, &fake, &["tasks", "list"]).await;
    assert!(line.starts_with("error: Google is not connected"), "{line}");
}
