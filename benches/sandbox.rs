//! What the agent's sandbox (issue 23, BOX-1) costs a CLI start; prints figures, asserts
//! nothing about their size.
//!
//! `cargo bench --bench sandbox` (release profile):
//!
//! - (1) building the grants for the harness's data dir (listing its top-level entries,
//!   checking each broad path) and (2) the whole confinement of one start (its CLI home,
//!   the grants, the container's and the launcher's arguments), in this process, 200 times;
//! - (3) one CLI turn (start, one prompt, read to the `Result`, stop) through the driver
//!   with the bot's confinement against (4) the same turn without it; interleaved, 15 of each
//!   after 3 warm-up pairs. The difference of the medians is what the box adds per start.
//!
//! Needs the pinned CLI for (3)/(4): `OLLIM_TEST_CLAUDE_CLI`, else
//! `.ci/claude-cli/node_modules/.bin/claude`; without it they are skipped. The confined turn
//! runs in a container (bubblewrap) with the Landlock domain inside, where the machine has
//! them; the first lines say which.
// Figures printed for a person: durations are far below 2^52, so these casts lose nothing.
#![allow(
    clippy::cast_precision_loss,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss
)]

use ollim_test_support as support;

use std::time::{Duration, Instant};

use ollim_bot::claude::{
    ClaudeClient, ClientOptions, ControlHandlers, Invocation, Message, UserContent,
};
use ollim_bot::sandbox::{Confinement, Gate};
use support::agent::AgentHarness;
use support::cli::pinned_cli;
use support::mock_api::Reply;

const IN_PROCESS_RUNS: u32 = 200;
const WARM_UP_RUNS: usize = 3;
const MEASURED_RUNS: usize = 15;

fn main() {
    if !std::env::args().any(|arg| arg == "--bench") {
        println!("benches/sandbox.rs prints figures only under `cargo bench --bench sandbox`");
        return;
    }
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
    runtime.block_on(async {
        let h = AgentHarness::new().await;
        println!("Landlock here: {:?}", h.services.sandbox.support());
        println!("Containers here: {:?}", h.services.sandbox.containers());
        in_process(&h);
        if pinned_cli().is_some() {
            start_overhead(&h).await;
        } else {
            println!("(3)/(4) skipped: no pinned Claude Code CLI (see the header of this file)");
        }
        h.close().await;
    });
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn in_process(h: &AgentHarness) {
    let sandbox = &h.services.sandbox;
    let started = Instant::now();
    let mut count = 0;
    for _ in 0..IN_PROCESS_RUNS {
        count = ollim_bot::sandbox::grants(
            sandbox.layout(),
            Confinement::Owner,
            &sandbox.layout().homes_dir,
        )
        .len();
    }
    let grants = started.elapsed() / IN_PROCESS_RUNS;
    let started = Instant::now();
    for _ in 0..IN_PROCESS_RUNS {
        let mut invocation = Invocation {
            program: "true".into(),
            args: Vec::new(),
            cwd: h.sandbox.data_dir.clone(),
            env: std::collections::BTreeMap::new(),
            resume: None,
            fork_session: false,
            config_dir: None,
            cgroups: Vec::new(),
        };
        drop(
            sandbox
                .confine(&mut invocation, Confinement::Owner, None)
                .expect("confine a command"),
        );
    }
    let confine = started.elapsed() / IN_PROCESS_RUNS;
    println!(
        "(1) grants for the data dir ({count} grants):        {:8.3} ms",
        ms(grants)
    );
    println!(
        "(2) confining one start (home, grants, args):  {:8.3} ms",
        ms(confine)
    );
}

/// One turn through the driver: start, one prompt, read to the `Result`, stop.
async fn timed_turn(options: &ClientOptions) -> Duration {
    let started = Instant::now();
    let mut client = ClaudeClient::connect(options, ControlHandlers::default())
        .await
        .expect("start the CLI");
    client
        .send(&UserContent::Text("hello".to_owned()))
        .expect("send a prompt");
    loop {
        let next = tokio::time::timeout(Duration::from_secs(60), client.recv()).await;
        match next.expect("the turn ends within a minute") {
            Some(Message::Result(result)) => {
                assert!(!result.is_error, "the turn failed: {result:?}");
                break;
            }
            Some(_) => {}
            None => panic!("the CLI exited: {}", client.exit_error().await),
        }
    }
    client.disconnect(Duration::from_secs(5)).await;
    started.elapsed()
}

fn median(samples: &mut [Duration]) -> Duration {
    samples.sort();
    samples[(samples.len() - 1) / 2]
}

async fn start_overhead(h: &AgentHarness) {
    h.mock.set_default(Reply::text("hi"));
    let sandbox = h.services.sandbox.clone();
    let confined = ClientOptions {
        cli_path: h.services.config.claude_cli.clone(),
        cwd: h.sandbox.data_dir.clone(),
        setting_sources: Some(Vec::new()),
        env: h.sandbox.env(&h.mock).into_iter().collect(),
        // A conversation's container: its own network, the model API through its proxy.
        confine: Some(std::sync::Arc::new(move |invocation| {
            let confined = sandbox
                .confine(
                    invocation,
                    Confinement::Owner,
                    Some(Gate::conversation(false)),
                )
                .map_err(std::io::Error::other)?;
            Ok(Some(Box::new(confined) as ollim_bot::claude::Attachment))
        })),
        ..ClientOptions::default()
    };
    let open = ClientOptions {
        confine: None,
        ..confined.clone()
    };
    let (mut with_box, mut without) = (Vec::new(), Vec::new());
    for n in 0..WARM_UP_RUNS + MEASURED_RUNS {
        let (a, b) = if n % 2 == 0 {
            let a = timed_turn(&confined).await;
            (a, timed_turn(&open).await)
        } else {
            let b = timed_turn(&open).await;
            (timed_turn(&confined).await, b)
        };
        if n >= WARM_UP_RUNS {
            with_box.push(a);
            without.push(b);
        }
    }
    let (a, b) = (median(&mut with_box), median(&mut without));
    println!(
        "(3) CLI turn in the box, median of {MEASURED_RUNS}:        {:8.1} ms",
        ms(a)
    );
    println!(
        "(4) the same turn without it, median:         {:8.1} ms",
        ms(b)
    );
    println!("    the box adds per CLI start: {:+.1} ms", ms(a) - ms(b));
}
