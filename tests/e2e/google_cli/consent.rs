//! `ollim-bot google auth`: the consent flow completed by the browser redirect or by a
//! pasted URL, and a wrong `state` refused.

use std::path::Path;
use std::process::Stdio;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt};

use crate::support::{
    fake_google::FakeGoogle,
    google_cli::{command, connected, ok},
};

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
