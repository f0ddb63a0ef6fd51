//! A JSON state file read and written whole: the shape the approval and hold stores share.

use std::path::Path;

use serde::{Serialize, de::DeserializeOwned};

use super::{StateError, atomic::write_atomic, set_aside::set_aside};

/// The value in `path`; the default when the file is missing or unreadable. A file that
/// doesn't parse is set aside (the owner hears of it once) and counts as the default.
pub fn read_or_set_aside<T: DeserializeOwned + Default>(path: &Path) -> T {
    match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_else(|error| {
            tracing::warn!(%error, path = %path.display(), "state file unreadable: set aside");
            set_aside(path, &error.to_string(), chrono::Utc::now().timestamp());
            T::default()
        }),
        Err(_) => T::default(),
    }
}

/// Why [`read_or_set_aside`] would set a file with `bytes` aside as a `T`, if it would.
pub fn damage<T: DeserializeOwned>(bytes: &[u8]) -> Option<String> {
    serde_json::from_slice::<T>(bytes)
        .err()
        .map(|e| e.to_string())
}

/// Writes `value` to `path` as pretty JSON, atomically.
pub fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<(), StateError> {
    let json = serde_json::to_vec_pretty(value).map_err(|e| StateError::json(path, e))?;
    write_atomic(path, &json)
}
