//! The background commit worker behind [`GitRecorder`]: one task, strictly ordered jobs, so
//! concurrent writers never race on `.git/index.lock` (GIT-2).

use std::path::{Path, PathBuf};

use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use super::{Action, ExtraEnv, record_logged};

/// A queued request for the worker.
enum Job {
    Record {
        rel: PathBuf,
        message: String,
        action: Action,
    },
    Flush(oneshot::Sender<()>),
    Shutdown,
}

/// Cloneable handle that queues auto-commits for the single background worker.
///
/// Enqueuing never blocks. Requests are executed strictly in order.
#[derive(Debug, Clone)]
pub struct GitRecorder {
    tx: mpsc::UnboundedSender<Job>,
}

impl std::fmt::Debug for Job {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Record { rel, action, .. } => write!(f, "Record({action:?} {})", rel.display()),
            Self::Flush(_) => f.write_str("Flush"),
            Self::Shutdown => f.write_str("Shutdown"),
        }
    }
}

/// Owner of the background worker task; [`GitWorker::shutdown`] drains the queue.
#[derive(Debug)]
pub struct GitWorker {
    tx: mpsc::UnboundedSender<Job>,
    handle: JoinHandle<()>,
}

impl GitRecorder {
    /// Starts the worker for the repository at `root`. Must be called inside a tokio runtime.
    pub fn spawn(root: PathBuf) -> (GitRecorder, GitWorker) {
        Self::spawn_with_env(root, Vec::new())
    }

    /// [`GitRecorder::spawn`] with extra environment for every git call.
    pub(in crate::state) fn spawn_with_env(
        root: PathBuf,
        env: ExtraEnv,
    ) -> (GitRecorder, GitWorker) {
        let (tx, rx) = mpsc::unbounded_channel();
        let handle = tokio::spawn(worker(root, env, rx));
        (GitRecorder { tx: tx.clone() }, GitWorker { tx, handle })
    }

    /// Queues `git add -- <rel>` + a commit of only that path.
    pub fn commit(&self, rel: PathBuf, message: String) {
        self.send(Job::Record {
            rel,
            message,
            action: Action::Add,
        });
    }

    /// Queues `git rm -f -- <rel>` + a commit of only that path.
    pub fn remove(&self, rel: PathBuf, message: String) {
        self.send(Job::Record {
            rel,
            message,
            action: Action::Remove,
        });
    }

    /// Resolves once every request queued before this call has been processed (immediately if
    /// the worker has stopped).
    pub async fn flush(&self) {
        let (done_tx, done_rx) = oneshot::channel();
        if self.tx.send(Job::Flush(done_tx)).is_ok() {
            let _ = done_rx.await;
        }
    }

    fn send(&self, job: Job) {
        if let Err(e) = self.tx.send(job) {
            tracing::warn!(job = ?e.0, "git recorder already stopped; dropping commit");
        }
    }
}

impl GitWorker {
    /// Stops accepting new requests, finishes everything already queued, and waits for the
    /// worker to exit (called on SIGTERM before the process ends).
    pub async fn shutdown(self) {
        if self.tx.send(Job::Shutdown).is_err() {
            tracing::debug!("git worker already gone");
        }
        if let Err(e) = self.handle.await {
            tracing::warn!(error = %e, "git worker ended abnormally");
        }
    }
}

async fn worker(root: PathBuf, env: ExtraEnv, mut rx: mpsc::UnboundedReceiver<Job>) {
    while let Some(job) = rx.recv().await {
        match job {
            Job::Record {
                rel,
                message,
                action,
            } => run_job(&root, &env, rel, message, action).await,
            Job::Flush(done) => {
                let _ = done.send(());
            }
            Job::Shutdown => {
                // Refuse new work, then drain whatever is already queued.
                rx.close();
            }
        }
    }
}

async fn run_job(root: &Path, env: &ExtraEnv, rel: PathBuf, message: String, action: Action) {
    let (root, env) = (root.to_path_buf(), env.clone());
    let result = tokio::task::spawn_blocking(move || {
        record_logged(&root, &rel, &message, action, &env);
    })
    .await;
    if let Err(e) = result {
        tracing::warn!(error = %e, "git auto-commit task failed");
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{git_out, temp_repo as setup};
    use super::*;

    #[tokio::test]
    async fn recorder_runs_in_order_and_shutdown_drains() {
        let (repo, _home, env) = setup();
        let root = repo.path().to_path_buf();
        let (recorder, worker) = GitRecorder::spawn_with_env(root.clone(), env.clone());
        for i in 0..5 {
            std::fs::write(root.join(format!("n{i}.md")), "x").unwrap();
            recorder
                .clone()
                .commit(PathBuf::from(format!("n{i}.md")), format!("add n{i}"));
        }
        recorder.flush().await;
        assert_eq!(
            git_out(&root, &env, &["rev-list", "--count", "HEAD"]),
            "5\n"
        );
        std::fs::write(root.join("last.md"), "x").unwrap();
        recorder.commit(PathBuf::from("last.md"), "add last".into());
        recorder.remove(PathBuf::from("n0.md"), "remove n0".into());
        worker.shutdown().await;
        assert_eq!(
            git_out(&root, &env, &["log", "--format=%s"]),
            "remove n0\nadd last\nadd n4\nadd n3\nadd n2\nadd n1\nadd n0\n"
        );
        // After shutdown the handle degrades gracefully.
        recorder.commit(PathBuf::from("late.md"), "late".into());
        recorder.flush().await;
    }
}
