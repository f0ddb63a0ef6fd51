//! The one handle through which the process reads and writes `state/config.json` (CFG-1 …
//! CFG-5, issue 12).
//!
//! [`RuntimeSettings`] keeps the path and a cached [`RuntimeConfig`]; every
//! [`RuntimeSettings::current`] call compares the file's modification time, size and inode
//! with those seen at the last read and re-reads only when they differ. A change saved by
//! `/config` (written atomically, so always a new inode) or made by hand in an editor is
//! therefore seen by the next reader, while unchanged files are not parsed again.

use std::{
    os::unix::fs::MetadataExt,
    path::{Path, PathBuf},
    sync::Arc,
    time::SystemTime,
};

use parking_lot::Mutex;

use super::{ConfigFile, ConfigKey, ConfigUpdateError, RuntimeConfig};
use crate::state::{StateError, state_file::StateFile};

/// What identifies one version of the file on disk; `None` when there is no file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FileStamp {
    modified: Option<SystemTime>,
    len: u64,
    inode: u64,
}

impl FileStamp {
    /// The stamp of `path` now, or `None` when it cannot be inspected (usually: missing).
    fn of(path: &Path) -> Option<Self> {
        let meta = std::fs::metadata(path).ok()?;
        Some(Self {
            modified: meta.modified().ok(),
            len: meta.len(),
            inode: meta.ino(),
        })
    }
}

/// The cache: nothing read yet, or the configuration read from a file version.
#[derive(Debug)]
enum Cached {
    Unread,
    Read {
        stamp: Option<FileStamp>,
        config: Arc<RuntimeConfig>,
    },
}

/// `state/config.json` behind one handle, stored once in `Services::runtime`.
#[derive(Debug)]
pub struct RuntimeSettings {
    file: StateFile<ConfigFile>,
    cached: Mutex<Cached>,
}

impl RuntimeSettings {
    /// A handle on the file at `path`; nothing is read until [`Self::current`].
    pub fn new(path: PathBuf) -> Self {
        Self {
            file: StateFile::new(path),
            cached: Mutex::new(Cached::Unread),
        }
    }

    /// The file this handle reads and writes.
    pub fn path(&self) -> &Path {
        self.file.path()
    }

    /// The settings as the file says now (defaults when it is missing or broken, see
    /// [`RuntimeConfig::load`]), re-read only when the file changed since the last call.
    pub fn current(&self) -> Arc<RuntimeConfig> {
        let mut cached = self.cached.lock();
        // Stamped before reading: a change racing the read shows as a new stamp next time.
        let stamp = FileStamp::of(self.file.path());
        if let Cached::Read {
            stamp: seen,
            config,
        } = &*cached
            && *seen == stamp
        {
            return Arc::clone(config);
        }
        let config = Arc::new(RuntimeConfig::read(&self.file));
        *cached = Cached::Read {
            stamp,
            config: Arc::clone(&config),
        };
        config
    }

    /// Saves `config` (see [`RuntimeConfig::save`]); the next [`Self::current`] returns it.
    pub fn save(&self, config: &RuntimeConfig) -> Result<(), StateError> {
        let mut cached = self.cached.lock();
        let result = config.write(&self.file);
        *cached = match &result {
            Ok(()) => Cached::Read {
                stamp: FileStamp::of(self.file.path()),
                config: Arc::new(config.clone()),
            },
            Err(_) => Cached::Unread,
        };
        result
    }

    /// `/config <key> <value>` (CFG-4): sets `key` from `raw` on the current settings, saves
    /// and returns the new settings; on a refused value nothing is written.
    pub fn update(
        &self,
        key: ConfigKey,
        raw: &str,
    ) -> Result<Arc<RuntimeConfig>, ConfigUpdateError> {
        let mut config = RuntimeConfig::clone(&self.current());
        config
            .set(key, raw)
            .map_err(|reason| ConfigUpdateError::Invalid { key, reason })?;
        self.save(&config)?;
        Ok(Arc::new(config))
    }
}
