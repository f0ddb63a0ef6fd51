//! One way to keep a state file (issue 25 §3): a path, a lock its clones share, a typed load
//! that sets aside what it can't read (`set_aside`: the owner hears of it once), and an atomic
//! save (`atomic`). Each store says only what its file holds, as a [`FileFormat`]; `doctor`
//! and the start-up check judge a file with the same format ([`StateFile::damage`]).

use std::{
    collections::BTreeMap,
    marker::PhantomData,
    path::{Path, PathBuf},
    sync::Arc,
};

use parking_lot::{Mutex, MutexGuard};
use serde::{Serialize, de::DeserializeOwned};

use super::{StateError, atomic, set_aside::set_aside};

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

/// A JSON array whose entries are read one by one: a malformed entry is dropped with a
/// warning, and only a file that is not an array is damaged.
pub struct JsonList<T>(PhantomData<fn() -> T>);

impl<T: Serialize + DeserializeOwned> FileFormat for JsonList<T> {
    type Value = Vec<T>;

    fn empty() -> Vec<T> {
        Vec::new()
    }

    fn decode(bytes: &[u8]) -> Result<Vec<T>, String> {
        let raw: Vec<serde_json::Value> = Json::decode(bytes)?;
        Ok(raw
            .into_iter()
            .filter_map(|value| {
                serde_json::from_value(value)
                    .inspect_err(|error| tracing::warn!(%error, "dropping a malformed entry"))
                    .ok()
            })
            .collect())
    }

    fn encode(value: &Vec<T>) -> Result<Vec<u8>, serde_json::Error> {
        serde_json::to_vec_pretty(value)
    }
}

/// A JSON object of entries by key, read one by one as [`JsonList`] reads its entries.
pub struct JsonMap<T>(PhantomData<fn() -> T>);

impl<T: Serialize + DeserializeOwned> FileFormat for JsonMap<T> {
    type Value = BTreeMap<String, T>;

    fn empty() -> BTreeMap<String, T> {
        BTreeMap::new()
    }

    fn decode(bytes: &[u8]) -> Result<BTreeMap<String, T>, String> {
        let raw: BTreeMap<String, serde_json::Value> = Json::decode(bytes)?;
        Ok(raw
            .into_iter()
            .filter_map(|(key, value)| {
                serde_json::from_value(value)
                    .inspect_err(|error| tracing::warn!(%key, %error, "dropping a malformed entry"))
                    .ok()
                    .map(|entry| (key, entry))
            })
            .collect())
    }

    fn encode(value: &BTreeMap<String, T>) -> Result<Vec<u8>, serde_json::Error> {
        serde_json::to_vec_pretty(value)
    }
}

/// A state file of format `F`. Cheap to clone; clones share one lock, which serialises the
/// read-modify-write cycles of this process ([`StateFile::update`]); reads without it rely on
/// the atomic replace.
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

    /// Holds this file's lock until the guard drops.
    pub fn lock(&self) -> MutexGuard<'_, ()> {
        self.lock.lock()
    }

    /// The value in the file, leaving it as it is: a missing, damaged or unreadable file
    /// reads as empty (the last two logged).
    pub fn peek(&self) -> F::Value {
        match std::fs::read(&self.path) {
            Ok(bytes) => F::decode(&bytes).unwrap_or_else(|reason| {
                tracing::warn!(path = %self.path.display(), %reason, "state file is damaged");
                F::empty()
            }),
            Err(error) => {
                if error.kind() != std::io::ErrorKind::NotFound {
                    tracing::warn!(path = %self.path.display(), %error, "cannot read state file");
                }
                F::empty()
            }
        }
    }

    /// The value in the file. A damaged file is set aside (its copy named after `now_secs`,
    /// the owner told) and reads as empty; a missing one reads as empty; a file that can't be
    /// read is an error, so nothing is written over it.
    pub fn load(&self, now_secs: i64) -> Result<F::Value, StateError> {
        match std::fs::read(&self.path) {
            Ok(bytes) => Ok(F::decode(&bytes).unwrap_or_else(|reason| {
                set_aside(&self.path, &reason, now_secs);
                F::empty()
            })),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(F::empty()),
            Err(error) => Err(StateError::io(&self.path, error)),
        }
    }

    /// [`StateFile::load`], with a file that can't be read logged and read as empty.
    pub fn load_or_empty(&self, now_secs: i64) -> F::Value {
        self.load(now_secs).unwrap_or_else(|error| {
            tracing::warn!(%error, "cannot read state file");
            F::empty()
        })
    }

    /// Writes `value` atomically, making the file's directory if needed.
    pub fn save(&self, value: &F::Value) -> Result<(), StateError> {
        if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| StateError::io(dir, e))?;
        }
        let bytes = F::encode(value).map_err(|e| StateError::json(&self.path, e))?;
        atomic::write_atomic(&self.path, &bytes)
    }

    /// Removes the file; whether there was one.
    pub fn remove(&self) -> Result<bool, StateError> {
        atomic::remove_if_exists(&self.path)
    }

    /// One locked read → `change` → write cycle ([`StateFile::load`] at `now_secs`); returns
    /// what `change` returned.
    pub fn update<R>(
        &self,
        now_secs: i64,
        change: impl FnOnce(&mut F::Value) -> R,
    ) -> Result<R, StateError> {
        let _guard = self.lock();
        let mut value = self.load(now_secs)?;
        let out = change(&mut value);
        self.save(&value)?;
        Ok(out)
    }

    /// Why [`StateFile::load`] would set a file with `bytes` aside, if it would.
    pub fn damage(bytes: &[u8]) -> Option<String> {
        F::decode(bytes).err()
    }
}

#[cfg(test)]
#[path = "state_file_tests.rs"]
mod tests;
