//! Writing records off the turn's path (USE-1, USE-2): a turn hands its record to a
//! [`UsageWriter`] and goes on; one owned task appends them in order (each append is synced),
//! and [`UsageWorker::shutdown`] writes what is queued before the process ends.

use std::sync::Arc;

use tokio::{
    sync::{Notify, mpsc, oneshot},
    task::JoinHandle,
};

use super::{UsageLedger, UsageRecord};

/// A queued request for the worker.
enum Job {
    Append(Box<UsageRecord>),
    Flush(oneshot::Sender<()>),
    Shutdown,
}

/// Cloneable handle that queues records for the one writer task; never blocks.
#[derive(Debug, Clone)]
pub struct UsageWriter {
    tx: mpsc::UnboundedSender<Job>,
    /// Told each time a record is queued: a turn or a run has just ended (recall catches up
    /// on what it wrote).
    ended: Arc<Notify>,
}

impl std::fmt::Debug for Job {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Append(record) => write!(f, "Append({:?} at {})", record.kind, record.at),
            Self::Flush(_) => f.write_str("Flush"),
            Self::Shutdown => f.write_str("Shutdown"),
        }
    }
}

/// Owner of the writer task; [`UsageWorker::shutdown`] writes what is queued and stops it.
#[derive(Debug)]
pub struct UsageWorker {
    tx: mpsc::UnboundedSender<Job>,
    handle: JoinHandle<()>,
}

impl UsageWriter {
    /// Starts the writer task for `ledger`. Must be called inside a tokio runtime.
    pub fn spawn(ledger: UsageLedger) -> (UsageWriter, UsageWorker) {
        let (tx, rx) = mpsc::unbounded_channel();
        let handle = tokio::spawn(worker(ledger, rx));
        (
            UsageWriter {
                tx: tx.clone(),
                ended: Arc::new(Notify::new()),
            },
            UsageWorker { tx, handle },
        )
    }

    /// Queues `record` for the ledger.
    pub fn record(&self, record: UsageRecord) {
        if let Err(error) = self.tx.send(Job::Append(Box::new(record))) {
            tracing::warn!(job = ?error.0, "the usage writer has stopped; a record is lost");
        }
        self.ended.notify_one();
    }

    /// Resolves after the next record is queued (at once if one was queued since the last
    /// wait): a turn or a run has ended. One waiter.
    pub async fn turn_ended(&self) {
        self.ended.notified().await;
    }

    /// Resolves once every record queued before this call is written (at once if the writer
    /// has stopped).
    pub async fn flush(&self) {
        let (done_tx, done_rx) = oneshot::channel();
        if self.tx.send(Job::Flush(done_tx)).is_ok() {
            let _ = done_rx.await;
        }
    }
}

impl UsageWorker {
    /// Writes everything queued before this call and waits for the task to end (on exit,
    /// once the turns are over).
    pub async fn shutdown(self) {
        if self.tx.send(Job::Shutdown).is_err() {
            tracing::debug!("the usage writer is already gone");
        }
        if let Err(error) = self.handle.await {
            tracing::warn!(%error, "the usage writer ended abnormally");
        }
    }
}

async fn worker(ledger: UsageLedger, mut rx: mpsc::UnboundedReceiver<Job>) {
    while let Some(job) = rx.recv().await {
        match job {
            Job::Append(record) => {
                let ledger = ledger.clone();
                let written = tokio::task::spawn_blocking(move || ledger.append(&record)).await;
                match written {
                    Ok(Ok(())) => {}
                    Ok(Err(error)) => tracing::warn!(%error, "could not write a usage record"),
                    Err(error) => tracing::warn!(%error, "the usage append task failed"),
                }
            }
            Job::Flush(done) => {
                let _ = done.send(());
            }
            Job::Shutdown => break,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::usage::UsageKind;

    fn record(cost: f64) -> UsageRecord {
        UsageRecord::example(chrono::Utc::now(), UsageKind::Main, None, cost)
    }

    #[tokio::test]
    async fn records_are_written_in_order_and_shutdown_drains_the_queue() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = UsageLedger::new(dir.path().join("usage"));
        let (writer, worker) = UsageWriter::spawn(ledger.clone());
        writer.record(record(0.5));
        writer.flush().await;
        let since = chrono::Utc::now() - chrono::Duration::hours(1);
        assert_eq!(ledger.read_since(since).unwrap().records.len(), 1);
        for cost in [1.0, 2.0, 3.0] {
            writer.record(record(cost));
        }
        worker.shutdown().await;
        let costs: Vec<f64> = ledger
            .read_since(since)
            .unwrap()
            .records
            .iter()
            .map(|r| r.cost_usd)
            .collect();
        assert_eq!(costs, [0.5, 1.0, 2.0, 3.0]);
    }
}
