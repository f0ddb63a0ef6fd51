//! The file-backed services every session shares, opened once per process.

use std::sync::Arc;

use super::system_prompt::bootstrap_identity;
use crate::{
    config::Config,
    state::{
        StateError,
        git::{self, GitRecorder, GitWorker},
        history::SessionHistory,
        paths::DataDir,
        pending::PendingUpdates,
        sessions::SessionStore,
    },
};

/// Configuration plus the stores under the data dir.
#[derive(Clone)]
pub struct AgentServices {
    /// Static configuration.
    pub config: Config,
    /// The data dir layout.
    pub data_dir: DataDir,
    /// The main session id and its lifecycle log.
    pub sessions: SessionStore,
    /// Updates left for the main session by forks.
    pub pending: PendingUpdates,
    /// The data-dir git recorder.
    pub git: GitRecorder,
}

/// The result of [`AgentServices::open`]: the services and the git worker the caller owns and
/// shuts down last.
pub struct OpenedServices {
    /// The shared services.
    pub services: Arc<AgentServices>,
    /// The git worker; call [`GitWorker::shutdown`] on exit so queued commits land.
    pub git_worker: GitWorker,
    /// Whether the data dir was just made a git repository (GIT-1).
    pub initialised_git: bool,
}

impl AgentServices {
    /// Prepares the data dir (layout, git repository, `IDENTITY.md`) and opens the stores.
    pub fn open(config: Config) -> Result<OpenedServices, StateError> {
        let data_dir = DataDir::new(&config.data_dir);
        data_dir.ensure_layout()?;
        let initialised_git = git::init_repo(data_dir.root())?;
        if let Err(source) = bootstrap_identity(data_dir.root(), &config.user_name) {
            return Err(StateError::Io {
                path: data_dir.root().join("IDENTITY.md"),
                source,
            });
        }
        let (recorder, git_worker) = GitRecorder::spawn(data_dir.root().to_path_buf());
        let history = SessionHistory::new(&data_dir, config.timezone, Some(recorder.clone()));
        let sessions = SessionStore::new(&data_dir, history);
        let pending = PendingUpdates::new(&data_dir, config.timezone);
        Ok(OpenedServices {
            services: Arc::new(Self {
                config,
                data_dir,
                sessions,
                pending,
                git: recorder,
            }),
            git_worker,
            initialised_git,
        })
    }
}
