use std::sync::{Arc, Mutex};

use super::*;

fn refused() -> serenity::Error {
    serenity::Error::Other("429")
}

fn is_fake_429(error: &serenity::Error) -> bool {
    matches!(error, serenity::Error::Other("429"))
}

#[tokio::test]
async fn a_429_is_sent_again_after_growing_pauses() {
    let pauses = Arc::new(Mutex::new(Vec::new()));
    let mut calls = 0;
    let answer = retry_rate_limited(
        || {
            calls += 1;
            let result = if calls <= 2 {
                Err(refused())
            } else {
                Ok(calls)
            };
            async move { result }
        },
        is_fake_429,
        |pause| {
            pauses.lock().unwrap().push(pause);
            async {}
        },
    )
    .await;
    assert_eq!(answer.unwrap(), 3);
    assert_eq!(
        *pauses.lock().unwrap(),
        [Duration::from_secs(1), Duration::from_secs(2)]
    );
}

#[tokio::test]
async fn other_errors_are_not_retried_and_the_tries_are_bounded() {
    let mut calls = 0;
    let other = retry_rate_limited(
        || {
            calls += 1;
            async { Err::<(), _>(serenity::Error::Other("boom")) }
        },
        is_fake_429,
        |_| async {},
    )
    .await;
    assert!(other.is_err());
    assert_eq!(calls, 1);
    let mut calls = 0;
    let still = retry_rate_limited(
        || {
            calls += 1;
            async { Err::<(), _>(refused()) }
        },
        is_fake_429,
        |_| async {},
    )
    .await;
    assert!(still.is_err());
    assert_eq!(calls, 1 + RETRIES);
}
