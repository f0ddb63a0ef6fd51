//! `ollim-bot tasks | cal | gmail | google auth` through the real binary against the fake
//! Google on 127.0.0.1 (GOO-1…7): every subcommand's exact output, the setup instructions
//! without credentials, a refreshed token rewritten, a revoked refresh token turned into the
//! marker, retries on 429, and both ways of completing the consent flow. No network.

use crate::support;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Stdio;

use serde_json::{Value, json};
use support::fake_google::{FakeGoogle, Fault};
use support::google_cli::{command, connected, fails, ok, run};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt};

fn task(id: &str, title: &str, due: Option<&str>, notes: Option<&str>, done: bool) -> Value {
    let mut task = json!({"id": id, "title": title,
        "status": if done { "completed" } else { "needsAction" }});
    if let Some(due) = due {
        task["due"] = json!(format!("{due}T00:00:00.000Z"));
    }
    if let Some(notes) = notes {
        task["notes"] = json!(notes);
    }
    task
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[allow(clippy::too_many_lines)] // every subcommand in turn, on one fake account
async fn tasks_subcommands_print_their_exact_lines() {
    let fake = FakeGoogle::start().await;
    let (_home, dir) = connected();
    fake.connect(&dir, false);
    fake.with(|d| {
        let tasks = d.tasks("@default");
        tasks.push(task(
            "t1",
            "Buy groceries",
            Some("2026-03-01"),
            Some("Milk"),
            false,
        ));
        tasks.push(task("t2", "Call dentist", None, None, false));
        tasks.push(task("t3", "Old thing", Some("2026-01-02"), None, true));
        tasks.push(task("t4", "Pay rent", None, Some("  "), false));
    });

    // Three incomplete tasks over two pages (page size 2).
    assert_eq!(
        ok(&dir, &fake, &["tasks", "list"]).await,
        "  t1  2026-03-01    [ ]  Buy groceries [+]\n  t2  (no due)      [ ]  Call dentist\n  \
         t4  (no due)      [ ]  Pay rent\n"
    );
    let pages = fake.requests_to("/tasks/v1/lists/@default/tasks");
    assert_eq!(pages.len(), 2);
    assert_eq!(pages[1].param("pageToken"), Some("2"));
    assert_eq!(pages[0].param("showCompleted"), Some("false"));
    let all = ok(&dir, &fake, &["tasks", "list", "--all"]).await;
    assert!(
        all.contains("  t3  2026-01-02    [x]  Old thing\n"),
        "{all}"
    );
    let listed: Value =
        serde_json::from_str(&ok(&dir, &fake, &["tasks", "list", "--json"]).await).unwrap();
    assert_eq!(listed.as_array().unwrap().len(), 3);
    assert_eq!(listed[0]["title"], "Buy groceries");

    assert_eq!(
        ok(&dir, &fake, &["tasks", "show", "t1"]).await,
        "title:     Buy groceries\nstatus:    needs action\ndue:       2026-03-01\nnotes:     \
         Milk\nid:        t1\n"
    );
    let added = ok(
        &dir,
        &fake,
        &[
            "tasks",
            "add",
            "Fix bike",
            "--due",
            "2026-04-05",
            "--notes",
            "tyre",
        ],
    )
    .await;
    let id = added
        .strip_prefix("added ")
        .and_then(|rest| rest.split(':').next())
        .unwrap()
        .to_owned();
    assert_eq!(added, format!("added {id}: 2026-04-05 -- Fix bike\n"));
    let stored = fake.with(|d| d.tasks("@default").last().cloned().unwrap());
    assert_eq!(stored["due"], "2026-04-05T00:00:00.000Z");
    assert_eq!(stored["notes"], "tyre");
    assert_eq!(
        ok(&dir, &fake, &["tasks", "add", "No date"])
            .await
            .split(':')
            .nth(1),
        Some(" (no due) -- No date\n")
    );

    assert_eq!(
        ok(&dir, &fake, &["tasks", "done", "t2"]).await,
        "completed t2\n"
    );
    assert_eq!(
        fake.with(|d| d.tasks("@default")[1]["status"].clone()),
        "completed"
    );
    assert_eq!(
        ok(
            &dir,
            &fake,
            &[
                "tasks",
                "update",
                "t1",
                "--title",
                "Buy food",
                "--due",
                "2026-03-02"
            ]
        )
        .await,
        "updated t1\n"
    );
    let shown = ok(&dir, &fake, &["tasks", "show", "t1"]).await;
    assert!(shown.starts_with("title:     Buy food\n"), "{shown}");
    assert!(shown.contains("due:       2026-03-02\n"), "{shown}");
    assert_eq!(
        fails(&dir, &fake, &["tasks", "update", "t1"]).await,
        "error: provide at least one of --title, --due, --notes"
    );
    assert_eq!(
        ok(&dir, &fake, &["tasks", "delete", "t4"]).await,
        "deleted t4\n"
    );
    assert_eq!(
        fails(&dir, &fake, &["tasks", "show", "t4"]).await,
        "error: task t4 not found"
    );
    assert_eq!(
        fails(&dir, &fake, &["tasks", "list", "--list", "nope"]).await,
        "error: task list 'nope' not found"
    );

    // The configured list is the default; `--list` overrides it.
    fake.with(|d| {
        d.tasks("work")
            .push(task("w1", "Ship it", None, None, false));
    });
    std::fs::write(
        dir.join("state/config.json"),
        r#"{"google_task_list": "work"}"#,
    )
    .unwrap();
    assert_eq!(
        ok(&dir, &fake, &["tasks", "list"]).await,
        "  w1  (no due)      [ ]  Ship it\n"
    );
    std::fs::write(dir.join("state/config.json"), "{}").unwrap();
    fake.with(|d| d.tasks("@default").clear());
    assert_eq!(ok(&dir, &fake, &["tasks", "list"]).await, "no tasks\n");

    // No subcommand: the help, exit 1.
    let bare = run(&dir, &fake, &["tasks"]).await;
    assert_eq!(bare.status.code(), Some(1));
}

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

    // Credentials but no token, no terminal (the agent's shell, a script): one line, no wait.
    fake.write_credentials(&dir);
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

/// Spawns `ollim-bot google auth` and returns it with the consent URL it printed.
async fn start_auth(
    dir: &Path,
    fake: &FakeGoogle,
) -> (
    tokio::process::Child,
    String,
    tokio::io::Lines<tokio::io::BufReader<tokio::process::ChildStderr>>,
) {
    let mut child = command(dir, fake, &["google", "auth"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = tokio::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let url = loop {
        let line = lines.next_line().await.unwrap().expect("a consent URL");
        if let Some(url) = line.trim().strip_prefix("http") {
            break format!("http{url}");
        }
    };
    (child, url, lines)
}

fn no_redirects() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .build()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn google_auth_completes_by_the_browser_redirect() {
    let fake = FakeGoogle::start().await;
    let (_home, dir) = connected();
    fake.write_credentials(&dir);
    let (child, url, _stderr) = start_auth(&dir, &fake).await;
    assert!(
        url.starts_with(&format!("{}/o/oauth2/auth?", fake.base_url())),
        "{url}"
    );
    assert!(
        url.contains("code_challenge_method=S256") && url.contains("state="),
        "{url}"
    );
    // The "browser": the consent screen redirects to the loopback listener.
    let http = no_redirects();
    let consent = http.get(&url).send().await.unwrap();
    assert_eq!(consent.status(), 302);
    let location = consent.headers()["location"].to_str().unwrap().to_owned();
    assert!(location.starts_with("http://127.0.0.1:"), "{location}");
    let page = http.get(&location).send().await.unwrap();
    assert_eq!(page.status(), 200);
    assert!(page.text().await.unwrap().contains("close this window"));
    let output = child.wait_with_output().await.unwrap();
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "google connected.\n"
    );
    assert!(output.status.success());
    let token: Value =
        serde_json::from_slice(&std::fs::read(dir.join("state/token.json")).unwrap()).unwrap();
    assert!(
        token["refresh_token"]
            .as_str()
            .is_some_and(|t| t.starts_with("1//"))
    );
    // The exchange carried the verifier the fake checked against the challenge.
    let exchange = &fake.requests_to("/token")[0];
    assert_eq!(exchange.status, 200);
    assert!(exchange.body.contains("code_verifier="));
    // Connected now: the commands work and `google auth` says so.
    assert_eq!(ok(&dir, &fake, &["tasks", "list"]).await, "no tasks\n");
    assert_eq!(
        ok(&dir, &fake, &["google", "auth"]).await,
        "google already connected.\n"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn google_auth_completes_by_a_pasted_url_and_refuses_a_wrong_state() {
    let fake = FakeGoogle::start().await;
    let (_home, dir) = connected();
    fake.write_credentials(&dir);
    let (mut child, url, mut stderr) = start_auth(&dir, &fake).await;
    let http = no_redirects();
    let location = http.get(&url).send().await.unwrap().headers()["location"]
        .to_str()
        .unwrap()
        .to_owned();
    // A forged answer at the listener is refused and changes nothing.
    let (origin, _) = location.split_once('?').unwrap();
    let forged = http
        .get(format!("{origin}?code=stolen&state=forged"))
        .send()
        .await
        .unwrap();
    assert_eq!(forged.status(), 400);
    // So is a pasted URL from another sign-in.
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(format!("{origin}?code=x&state=other\n").as_bytes())
        .await
        .unwrap();
    loop {
        let line = stderr.next_line().await.unwrap().expect("a refusal line");
        if line.contains("not from this sign-in") {
            break;
        }
    }
    assert!(!dir.join("state/token.json").exists());
    // The real redirect URL, pasted (as from another device), completes it.
    stdin
        .write_all(format!("{location}\n").as_bytes())
        .await
        .unwrap();
    let output = child.wait_with_output().await.unwrap();
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "google connected.\n"
    );
    assert!(dir.join("state/token.json").exists());
}
