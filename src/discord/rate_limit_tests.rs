use std::sync::{Arc, Mutex as StdMutex};

use super::*;

fn refused() -> serenity::Error {
    serenity::Error::Other("429")
}

fn is_fake_429(error: &serenity::Error) -> bool {
    matches!(error, serenity::Error::Other("429"))
}

#[tokio::test(start_paused = true)]
async fn a_429_is_sent_again_after_growing_pauses() {
    let gate = PauseGate::new();
    let started = Instant::now();
    let tries = Arc::new(StdMutex::new(Vec::new()));
    let answer = retry_rate_limited(
        &gate,
        || {
            let mut tries = tries.lock().unwrap();
            tries.push(started.elapsed());
            let result = if tries.len() <= 2 {
                Err(refused())
            } else {
                Ok(tries.len())
            };
            async move { result }
        },
        is_fake_429,
    )
    .await;
    assert_eq!(answer.unwrap(), 3);
    assert_eq!(
        *tries.lock().unwrap(),
        [
            Duration::ZERO,
            Duration::from_secs(1),
            Duration::from_secs(1 + 2)
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn other_errors_are_not_retried_and_the_tries_are_bounded() {
    let gate = PauseGate::new();
    let mut calls = 0;
    let other = retry_rate_limited(
        &gate,
        || {
            calls += 1;
            async { Err::<(), _>(serenity::Error::Other("boom")) }
        },
        is_fake_429,
    )
    .await;
    assert!(other.is_err());
    assert_eq!(calls, 1);
    let started = Instant::now();
    let mut calls = 0;
    let still = retry_rate_limited(
        &gate,
        || {
            calls += 1;
            async { Err::<(), _>(refused()) }
        },
        is_fake_429,
    )
    .await;
    assert!(still.is_err());
    assert_eq!(calls, 1 + RETRIES);
    assert_eq!(started.elapsed(), Duration::from_secs(1 + 2 + 4 + 8));
}

/// A 429 met by one caller holds back every other caller's sends until the pause is over: a
/// global limit gets no burst from the others (issue 16).
#[tokio::test(start_paused = true)]
async fn a_429_pauses_every_caller_not_only_the_refused_one() {
    let gate = Arc::new(PauseGate::new());
    let started = Instant::now();
    let refused_once = retry_rate_limited(
        &gate,
        {
            let mut first = true;
            move || {
                let result = if std::mem::take(&mut first) {
                    Err(refused())
                } else {
                    Ok(())
                };
                async move { result }
            }
        },
        is_fake_429,
    );
    let other = {
        let gate = Arc::clone(&gate);
        async move {
            // Starts just after the 429 above was met.
            tokio::time::sleep(Duration::from_millis(10)).await;
            retry_rate_limited(
                &gate,
                || async { Ok::<_, serenity::Error>(started.elapsed()) },
                is_fake_429,
            )
            .await
        }
    };
    let (refused_once, other) = tokio::join!(refused_once, other);
    refused_once.unwrap();
    assert_eq!(
        other.unwrap(),
        Duration::from_secs(1),
        "waited for the pause"
    );
}

#[tokio::test(start_paused = true)]
async fn a_shorter_pause_does_not_cut_a_longer_one() {
    let gate = PauseGate::new();
    let started = Instant::now();
    gate.pause_for(Duration::from_secs(4));
    gate.pause_for(Duration::from_secs(1));
    gate.wait_open().await;
    assert_eq!(started.elapsed(), Duration::from_secs(4));
}

/// A call made while another caller waits out a 429 goes after that caller's call, not
/// before it: a reply's status line cannot overtake an embed refused a moment earlier.
#[tokio::test(start_paused = true)]
async fn calls_made_during_a_429_go_out_after_the_refused_one() {
    let gate = Arc::new(PauseGate::new());
    let sent = Arc::new(StdMutex::new(Vec::new()));
    let embed = {
        let (gate, sent) = (Arc::clone(&gate), Arc::clone(&sent));
        async move {
            let mut tries = 0;
            retry_rate_limited(
                &gate,
                || {
                    tries += 1;
                    let result = if tries <= 2 {
                        Err(refused())
                    } else {
                        sent.lock().unwrap().push("embed");
                        Ok(())
                    };
                    async move { result }
                },
                is_fake_429,
            )
            .await
        }
    };
    let status_lines = {
        let (gate, sent) = (Arc::clone(&gate), Arc::clone(&sent));
        async move {
            tokio::time::sleep(Duration::from_millis(500)).await;
            for line in ["status", "text"] {
                retry_rate_limited(
                    &gate,
                    || {
                        sent.lock().unwrap().push(line);
                        async { Ok::<_, serenity::Error>(()) }
                    },
                    is_fake_429,
                )
                .await
                .unwrap();
            }
        }
    };
    let (embed, ()) = tokio::join!(embed, status_lines);
    embed.unwrap();
    assert_eq!(*sent.lock().unwrap(), ["embed", "status", "text"]);
}
