use std::{
    sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    },
    time::Duration,
};

use super::*;

/// Runs `count` jobs through a gate of `limit`, each holding its slot a moment; returns the
/// most that ran at once and the order they got in.
async fn burst(gate: Arc<RunGate>, limit: usize, count: usize) -> (usize, Vec<usize>) {
    let running = Arc::new(AtomicUsize::new(0));
    let peak = Arc::new(AtomicUsize::new(0));
    let order = Arc::new(Mutex::new(Vec::new()));
    let mut tasks = Vec::new();
    for n in 0..count {
        let (gate, running, peak, order) = (
            Arc::clone(&gate),
            Arc::clone(&running),
            Arc::clone(&peak),
            Arc::clone(&order),
        );
        tasks.push(tokio::spawn(async move {
            let _slot = gate.enter(limit).await;
            order.lock().push(n);
            let now = running.fetch_add(1, Ordering::SeqCst) + 1;
            peak.fetch_max(now, Ordering::SeqCst);
            tokio::time::sleep(Duration::from_millis(20)).await;
            running.fetch_sub(1, Ordering::SeqCst);
        }));
        // Arrivals in a known order.
        tokio::task::yield_now().await;
    }
    for task in tasks {
        task.await.unwrap();
    }
    let order = order.lock().clone();
    (peak.load(Ordering::SeqCst), order)
}

#[tokio::test(start_paused = true)]
async fn ten_at_once_run_two_at_a_time_in_arrival_order() {
    let gate = Arc::new(RunGate::new(2));
    let (peak, order) = burst(Arc::clone(&gate), 2, 10).await;
    assert_eq!(peak, 2);
    assert_eq!(
        order,
        (0..10).collect::<Vec<_>>(),
        "every run, first come first served"
    );
    assert!(!gate.is_full());
}

#[tokio::test(start_paused = true)]
async fn the_limit_follows_the_setting() {
    let gate = Arc::new(RunGate::new(3));
    let (peak, _) = burst(Arc::clone(&gate), 1, 5).await;
    assert_eq!(peak, 1, "lowered to one");
    let (peak, _) = burst(Arc::clone(&gate), 4, 8).await;
    assert_eq!(peak, 4, "raised to four");
    let (peak, _) = burst(gate, 0, 3).await;
    assert_eq!(peak, 1, "never below one");
}
