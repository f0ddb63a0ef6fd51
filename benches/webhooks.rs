//! Figures for the webhook server; prints them, asserts nothing about their size.
//!
//! `cargo bench --bench webhooks [-- rejected|accepted]` (release profile; both by default)
//! starts the real axum edge (`WebhookServer` + `serve`) on 127.0.0.1:0 over spec files in a
//! temp dir, with a sink that records each accepted request's arrival and drops it at once (so
//! its in-flight permit is free again; screening and the run are the runtime's and are left
//! out). The client is reqwest with keep-alive, in the same process and runtime.
//!
//! - `rejected` requests per second for bodies refused early and late: 401 (no bearer, refused
//!   before the spec is looked up) and 400 (authenticated, spec looked up from the cache, body
//!   read, JSON parsed, schema failed), 4 concurrent clients × 1,000 requests each after 200
//!   warm-up requests; wall time over all of them;
//! - `accepted` latency of 500 accepted requests one at a time (after 50 warm-ups), from
//!   `send()` to the whole 202 read, for a 3-field payload and for a ~8 KB one near the cap:
//!   median, p90, p99, min, max.
// Figures for a person; percentiles index sorted samples.
#![allow(
    clippy::cast_precision_loss,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss
)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use ollim_bot::config::WebhookSecret;
use ollim_bot::webhooks::{AcceptedHook, HookSink, SpecStore, WebhookServer, serve};

const SECRET: &str = "bench-secret";
const BEARER: &str = "Bearer bench-secret";
const CLIENTS: usize = 4;
const PER_CLIENT: usize = 1_000;
const WARM_UP: usize = 200;
const ACCEPTED: usize = 500;
const ACCEPTED_WARM_UP: usize = 50;

const SPEC: &str = "---\nid: github-ci\nfields:\n  type: object\n  required: [repo, status]\n  \
    properties:\n    repo: {type: string, maxLength: 200}\n    status: {type: string, enum: \
    [success, failure]}\n    log: {type: string, maxLength: 9000}\n  additionalProperties: \
    false\n---\nCI for {repo}: {status}\n";

/// Counts what was accepted and lets it go at once.
#[derive(Default)]
struct CountingSink {
    accepted: AtomicUsize,
}

impl HookSink for CountingSink {
    fn accept(&self, hook: AcceptedHook) {
        self.accepted.fetch_add(1, Ordering::Relaxed);
        drop(hook);
    }
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches/--all-targets` does not: stay quick.
    if !std::env::args().any(|arg| arg == "--bench") {
        println!("benches/webhooks.rs prints figures only under `cargo bench --bench webhooks`");
        return;
    }
    let picked: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let run = |section: &str| picked.is_empty() || picked.iter().any(|p| p == section);
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
    runtime.block_on(async {
        let dir = tempfile::tempdir().expect("a temp dir");
        std::fs::write(dir.path().join("ci.md"), SPEC).expect("write the spec");
        let sink = Arc::new(CountingSink::default());
        let server = WebhookServer::new(
            WebhookSecret::new(SECRET),
            Arc::new(SpecStore::new(dir.path())),
            sink.clone(),
            1_024,
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let url = format!(
            "http://{}/hook/github-ci",
            listener.local_addr().expect("addr")
        );
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(serve(listener, server, async {
            let _ = stopped.await;
        }));
        let client = reqwest::Client::new();
        if run("rejected") {
            rejected(&client, &url, "401 no bearer", None, r#"{"repo": "r"}"#).await;
            rejected(
                &client,
                &url,
                "400 validation",
                Some(BEARER),
                r#"{"repo": 1}"#,
            )
            .await;
            rejected(&client, &url, "400 invalid json", Some(BEARER), "{nope").await;
        }
        if run("accepted") {
            let small = r#"{"repo": "ollim-bot", "status": "failure", "log": "step 3 failed"}"#;
            accepted(&client, &url, "3 fields", small).await;
            let big = format!(
                r#"{{"repo": "ollim-bot", "status": "failure", "log": "{}"}}"#,
                "x".repeat(8_000)
            );
            accepted(&client, &url, "~8 KB", &big).await;
            println!(
                "  ({} requests reached the sink)",
                sink.accepted.load(Ordering::Relaxed)
            );
        }
        let _ = stop.send(());
        let _ = task.await;
    });
}

async fn post(client: &reqwest::Client, url: &str, auth: Option<&str>, body: &str) -> u16 {
    let mut request = client.post(url).body(body.to_owned());
    if let Some(auth) = auth {
        request = request.header("authorization", auth);
    }
    let response = request.send().await.expect("a response");
    let status = response.status().as_u16();
    let _ = response.bytes().await;
    status
}

async fn rejected(
    client: &reqwest::Client,
    url: &str,
    label: &str,
    auth: Option<&str>,
    body: &str,
) {
    let expected = if auth.is_some() { 400 } else { 401 };
    for _ in 0..WARM_UP {
        assert_eq!(post(client, url, auth, body).await, expected);
    }
    let started = Instant::now();
    let workers: Vec<_> = (0..CLIENTS)
        .map(|_| {
            let (client, url) = (client.clone(), url.to_owned());
            let (auth, body) = (auth.map(str::to_owned), body.to_owned());
            tokio::spawn(async move {
                for _ in 0..PER_CLIENT {
                    assert_eq!(post(&client, &url, auth.as_deref(), &body).await, expected);
                }
            })
        })
        .collect();
    for worker in workers {
        worker.await.expect("a client task");
    }
    let elapsed = started.elapsed();
    let total = CLIENTS * PER_CLIENT;
    println!(
        "rejected {label:<18} {total} requests, {CLIENTS} clients: {:8.0} requests/s ({:.1} ms)",
        total as f64 / elapsed.as_secs_f64(),
        ms(elapsed)
    );
}

async fn accepted(client: &reqwest::Client, url: &str, label: &str, body: &str) {
    for _ in 0..ACCEPTED_WARM_UP {
        assert_eq!(post(client, url, Some(BEARER), body).await, 202);
    }
    let mut samples = Vec::with_capacity(ACCEPTED);
    for _ in 0..ACCEPTED {
        let started = Instant::now();
        assert_eq!(post(client, url, Some(BEARER), body).await, 202);
        samples.push(started.elapsed());
    }
    println!(
        "accepted {label:<10} {ACCEPTED} one at a time: {}",
        percentiles(&samples)
    );
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The `q` quantile (nearest rank) of `samples`.
fn quantile(samples: &[Duration], q: f64) -> Duration {
    let mut sorted = samples.to_vec();
    sorted.sort();
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

fn percentiles(samples: &[Duration]) -> String {
    let at = |q| ms(quantile(samples, q));
    format!(
        "median {:6.2} ms   p90 {:6.2} ms   p99 {:6.2} ms   min {:6.2} ms   max {:6.2} ms",
        at(0.5),
        at(0.9),
        at(0.99),
        at(0.0),
        at(1.0)
    )
}
