//! One way to keep a state file (issue 25 §3, issue 40 §1; KEEP-1, KEEP-2): a path, a lock
//! its clones share, a typed read that sets aside a damaged file (`set_aside`: the owner hears
//! of it once), and [`StateFile::update`], the only way a store changes its file: one locked
//! read → change → atomic write, which fails, writing nothing, when the file exists but can't
//! be read. Each store says only what its file holds, as a [`FileFormat`]; `doctor` and the
//! start-up check judge a file with the same format ([`StateFile::damage`]). [`entries`] holds
//! the formats read entry by entry, which carry a malformed entry through untouched; [`told`]
//! tells the owner once about a file that can't be read.

use std::{
    marker::PhantomData,
    path::{Path, PathBuf},
    sync::Arc,
};

use parking_lot::Mutex;
use serde::{Serialize, de::DeserializeOwned};

use super::{
    StateError, atomic,
    set_aside::{Trouble, set_aside},
};

mod entries;
pub(crate) mod told;

pub use entries::{JsonList, JsonMap, Keyed, Listed};

/// What a state file holds and how its bytes read and write.
pub trait FileFormat {
    /// The value in the file.
    type Value;
    /// The value of a missing (or set-aside) file.
    fn empty() -> Self::Value;
    /// The value in `bytes`, or why they are damaged (one line).
    fn decode(bytes: &[u8]) -> Result<Self::Value, String>;
    /// The bytes that hold `value`.
    fn encode(value: &Self::Value) -> Result<Vec<u8>, serde_json::Error>;
    /// How many entries of `value` were kept unread (malformed), for the owner's notice.
    fn unread(_value: &Self::Value) -> usize {
        0
    }
}

/// A whole JSON value; a blank file reads as the default.
pub struct Json<T>(PhantomData<fn() -> T>);

impl<T: Serialize + DeserializeOwned + Default> FileFormat for Json<T> {
    type Value = T;

    fn empty() -> T {
        T::default()
    }

    fn decode(bytes: &[u8]) -> Result<T, String> {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(T::default());
        }
        serde_json::from_slice(bytes).map_err(|e| e.to_string())
    }

    fn encode(value: &T) -> Result<Vec<u8>, serde_json::Error> {
        serde_json::to_vec_pretty(value)
    }
}

/// A state file of format `F`. Cheap to clone; clones share one lock, which serialises this
/// process's reads and read-modify-write cycles ([`StateFile::update`]); other processes rely
/// on the atomic replace.
pub struct StateFile<F> {
    path: PathBuf,
    lock: Arc<Mutex<()>>,
    format: PhantomData<fn() -> F>,
}

impl<F> Clone for StateFile<F> {
    fn clone(&self) -> Self {
        Self {
            path: self.path.clone(),
            lock: Arc::clone(&self.lock),
            format: PhantomData,
        }
    }
}

impl<F> std::fmt::Debug for StateFile<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StateFile")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl<F: FileFormat> StateFile<F> {
    /// The file at `path`. Touches nothing yet.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self {
            path: path.into(),
            lock: Arc::new(Mutex::new(())),
            format: PhantomData,
        }
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The value in the file. A damaged file is set aside (the owner told) and reads as empty; a missing one reads as empty; a file that can't be
    /// read is an error (the owner told once), so the caller decides what it means.
    pub fn read(&self) -> Result<F::Value, StateError> {
        let _guard = self.lock.lock();
        self.load()
    }

    /// One locked read → `change` → write cycle (a [`StateFile::read`]): the only
    /// way a store changes its file. The file is written (atomically, its directory made if
    /// needed) only when `change` changed the value; a file that can't be read is an error
    /// and nothing is written over it. Returns what `change` returned.
    pub fn update<R>(&self, change: impl FnOnce(&mut F::Value) -> R) -> Result<R, StateError> {
        self.try_update(|value| Ok::<R, StateError>(change(value)))
    }

    /// [`StateFile::update`] with a `change` that may fail: on an error nothing is written.
    pub fn try_update<R, E: From<StateError>>(
        &self,
        change: impl FnOnce(&mut F::Value) -> Result<R, E>,
    ) -> Result<R, E> {
        let _guard = self.lock.lock();
        let mut value = self.load()?;
        let before = F::encode(&value).map_err(|e| StateError::json(&self.path, e))?;
        let out = change(&mut value)?;
        let after = F::encode(&value).map_err(|e| StateError::json(&self.path, e))?;
        if after != before {
            self.write(&after)?;
        }
        Ok(out)
    }

    /// Reads the value and removes the file in one locked step: each value is taken once.
    /// A file that can't be read is an error and stays.
    pub fn take(&self) -> Result<F::Value, StateError> {
        let _guard = self.lock.lock();
        let value = self.load()?;
        atomic::remove_if_exists(&self.path)?;
        Ok(value)
    }

    /// Removes the file (whatever it holds: the owner asked for it gone); whether there was
    /// one.
    pub fn remove(&self) -> Result<bool, StateError> {
        let _guard = self.lock.lock();
        atomic::remove_if_exists(&self.path)
    }

    fn load(&self) -> Result<F::Value, StateError> {
        let bytes = match std::fs::read(&self.path) {
            Ok(bytes) => bytes,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                told::cleared(&self.path, Trouble::Unreadable);
                return Ok(F::empty());
            }
            Err(error) => {
                told::trouble(&self.path, Trouble::Unreadable, &error.to_string());
                return Err(StateError::io(&self.path, error));
            }
        };
        told::cleared(&self.path, Trouble::Unreadable);
        let value = F::decode(&bytes).unwrap_or_else(|reason| {
            set_aside(&self.path, &reason);
            F::empty()
        });
        match F::unread(&value) {
            0 => told::cleared(&self.path, Trouble::EntriesKept),
            1 => told::trouble(&self.path, Trouble::EntriesKept, "1 entry"),
            n => told::trouble(&self.path, Trouble::EntriesKept, &format!("{n} entries")),
        }
        Ok(value)
    }

    fn write(&self, bytes: &[u8]) -> Result<(), StateError> {
        if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| StateError::io(dir, e))?;
        }
        atomic::write_atomic(&self.path, bytes)
    }

    /// Why [`StateFile::read`] would set a file with `bytes` aside, if it would.
    pub fn damage(bytes: &[u8]) -> Option<String> {
        F::decode(bytes).err()
    }
}

#[cfg(test)]
#[path = "state_file_tests.rs"]
mod tests;
