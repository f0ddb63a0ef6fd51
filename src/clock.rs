//! One clock for the whole process (issue 40 §2, CLK-1): wall time and monotonic time, read through
//! [`Clock`] and never ad hoc, so a test can move both. In production it is the system's clock. The
//! end-to-end harness runs the real binary with `OLLIM_TEST_CLOCK` naming a file that holds how far
//! ahead (in milliseconds) the clock runs; the file is watched, and every wait taken through
//! [`Clock::sleep_until`] wakes at once when the clock is moved past it. Moving only goes forward;
//! wall and monotonic time move together.

use std::{
    path::{Path, PathBuf},
    sync::{
        Arc, Weak,
        atomic::{AtomicU64, Ordering},
    },
    time::Duration,
};

use chrono::{DateTime, Utc};
use tokio::{sync::Notify, time::Instant};

/// The process's clock. Cheap to clone; clones read and move one clock.
#[derive(Debug, Clone, Default)]
pub struct Clock {
    inner: Arc<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    /// How far ahead of the system clock this clock runs, in milliseconds.
    ahead_ms: AtomicU64,
    /// Woken each time the clock moves.
    moved: Notify,
}

impl Clock {
    /// The system's clock.
    pub fn system() -> Self {
        Self::default()
    }

    /// The process's clock: the system's, or the test clock `file` (`OLLIM_TEST_CLOCK`) moves.
    pub fn from_test_file(file: Option<PathBuf>) -> Self {
        file.map_or_else(Self::system, Self::ahead_by_file)
    }

    /// A clock that runs ahead of the system's by the milliseconds written in `file` (a test
    /// clock; absent or unreadable means not ahead). A thread looks at the file every 20 ms
    /// for as long as the clock is in use.
    pub fn ahead_by_file(file: PathBuf) -> Self {
        let clock = Self::default();
        clock.inner.catch_up(&file);
        let weak = Arc::downgrade(&clock.inner);
        let watched = std::thread::Builder::new()
            .name("ollim-test-clock".to_owned())
            .spawn(move || follow(&file, &weak));
        if let Err(error) = watched {
            tracing::warn!(%error, "the test clock can't be moved");
        }
        clock
    }

    /// Wall time now.
    pub fn now(&self) -> DateTime<Utc> {
        Utc::now() + self.ahead()
    }

    /// Wall time now in unix seconds, as some state files keep it.
    pub fn unix_secs(&self) -> f64 {
        #[allow(clippy::cast_precision_loss)] // milliseconds since 1970 fit an f64 exactly
        let millis = self.now().timestamp_millis() as f64;
        millis / 1000.0
    }

    /// Monotonic time now.
    pub fn instant(&self) -> Instant {
        Instant::now() + self.ahead()
    }

    /// How far this clock was moved ahead of the system's.
    fn ahead(&self) -> Duration {
        Duration::from_millis(self.inner.ahead_ms.load(Ordering::Acquire))
    }

    /// Moves the clock `by` ahead (tests), waking every wait it passes.
    pub fn advance(&self, by: Duration) {
        let by = u64::try_from(by.as_millis()).unwrap_or(u64::MAX);
        self.inner.ahead_ms.fetch_add(by, Ordering::AcqRel);
        self.inner.moved.notify_waiters();
    }

    /// Waits until the monotonic `deadline` (as [`Clock::instant`] reads time).
    pub async fn sleep_until(&self, deadline: Instant) {
        loop {
            let moved = self.inner.moved.notified();
            tokio::pin!(moved);
            moved.as_mut().enable();
            let ahead = self.ahead();
            let Some(real) = deadline.checked_sub(ahead) else {
                return;
            };
            if real <= Instant::now() {
                return;
            }
            tokio::select! {
                () = tokio::time::sleep_until(real) => return,
                () = &mut moved => {}
            }
        }
    }

    /// Waits for `wait` of this clock's time.
    pub async fn sleep(&self, wait: Duration) {
        self.sleep_until(self.instant() + wait).await;
    }

    /// Waits until the wall time `at` (at once when it passed).
    pub async fn sleep_until_time(&self, at: DateTime<Utc>) {
        let wait = (at - self.now()).to_std().unwrap_or(Duration::ZERO);
        self.sleep(wait).await;
    }
}

impl Inner {
    /// Moves the clock to what `file` says, if that is ahead of it.
    fn catch_up(&self, file: &Path) {
        let wanted = std::fs::read_to_string(file)
            .ok()
            .and_then(|text| text.trim().parse::<u64>().ok());
        if let Some(wanted) = wanted
            && wanted > self.ahead_ms.load(Ordering::Acquire)
        {
            self.ahead_ms.store(wanted, Ordering::Release);
            self.moved.notify_waiters();
        }
    }
}

/// Follows `file` while the clock lives: each new value moves the clock to it.
fn follow(file: &Path, clock: &Weak<Inner>) {
    loop {
        let Some(inner) = clock.upgrade() else {
            return;
        };
        inner.catch_up(file);
        drop(inner);
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_wait_wakes_when_the_clock_is_moved_past_it() {
        let clock = Clock::system();
        let start = clock.now();
        let waiting = {
            let clock = clock.clone();
            tokio::spawn(async move { clock.sleep(Duration::from_secs(3600)).await })
        };
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(!waiting.is_finished());
        clock.advance(Duration::from_secs(1800));
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(!waiting.is_finished(), "half way is not there yet");
        clock.advance(Duration::from_secs(1800));
        tokio::time::timeout(Duration::from_secs(5), waiting)
            .await
            .expect("woken by the move")
            .unwrap();
        assert!(clock.now() - start >= chrono::Duration::hours(1));
    }

    #[tokio::test]
    async fn the_test_clock_follows_its_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("clock");
        let clock = Clock::ahead_by_file(file.clone());
        let wall = clock.now();
        let waiting = {
            let clock = clock.clone();
            tokio::spawn(async move {
                clock
                    .sleep_until_time(wall + chrono::Duration::days(1))
                    .await;
            })
        };
        std::fs::write(&file, (25 * 3600 * 1000).to_string()).unwrap();
        tokio::time::timeout(Duration::from_secs(5), waiting)
            .await
            .expect("woken by the file")
            .unwrap();
        assert!(clock.now() - wall >= chrono::Duration::hours(25));
    }
}
