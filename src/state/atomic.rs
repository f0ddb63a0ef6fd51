//! Crash-safe file replacement (D.4: "temp file in the same directory, then rename").
//!
//! Every JSON or bare-string state file (SES-3, PUP-2, PRS-2, ...) goes through
//! [`write_atomic`], so a reader sees either the old or the new content, never a torn write.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::Path;

use super::StateError;

/// The directory holding `path` (`.` for a bare file name).
fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Replaces `path` with `bytes` atomically.
///
/// The bytes go to a temporary file created next to the target, are flushed to disk
/// (`sync_all`), and the temporary file is renamed over the target; finally the parent
/// directory is synced so the rename itself survives a crash. If any step fails the target
/// keeps its previous content and the temporary file is removed. The parent directory must
/// already exist.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), StateError> {
    let outcome = replace(path, bytes);
    super::disk_space::SPACE.note_write(path, &outcome);
    outcome
}

fn replace(path: &Path, bytes: &[u8]) -> Result<(), StateError> {
    let dir = parent_dir(path);
    let mut tmp = tempfile::Builder::new()
        .prefix(TEMP_PREFIX)
        .tempfile_in(dir)
        .map_err(|e| StateError::io(dir, e))?;
    tmp.write_all(bytes)
        .map_err(|e| StateError::io(tmp.path(), e))?;
    tmp.as_file()
        .sync_all()
        .map_err(|e| StateError::io(tmp.path(), e))?;
    // On failure the returned error still owns the temp file; dropping it deletes it.
    tmp.persist(path)
        .map_err(|e| StateError::io(path, e.error))?;
    if let Err(e) = sync_dir(dir) {
        // The new content is in place; only its durability across a power cut is uncertain.
        tracing::warn!(dir = %dir.display(), error = %e, "could not fsync directory after rename");
    }
    Ok(())
}

/// Flushes a directory entry table to disk (no-op where directories cannot be opened).
fn sync_dir(dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        File::open(dir)?.sync_all()
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        Ok(())
    }
}

/// The name prefix of [`write_atomic`]'s temporary files, so what a killed writer left behind
/// is told apart from everything else.
pub const TEMP_PREFIX: &str = ".ollim-tmp-";

/// Removes the temporary files [`write_atomic`] left in `dir` when a process died mid-write
/// (kill -9, power loss): never read, only litter. Files younger than `min_age` are kept, as
/// a live writer's are. Returns how many were removed.
pub fn remove_stale_temp_files(dir: &Path, min_age: std::time::Duration) -> usize {
    let Ok(entries) = fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .filter(|entry| entry.file_name().to_string_lossy().starts_with(TEMP_PREFIX))
        .filter(|entry| {
            entry
                .metadata()
                .and_then(|meta| meta.modified())
                .ok()
                .and_then(|modified| modified.elapsed().ok())
                .is_some_and(|age| age >= min_age)
        })
        .filter(|entry| fs::remove_file(entry.path()).is_ok())
        .count()
}

/// Deletes `path` if it exists. Returns `true` when a file was removed, `false` when there was
/// nothing to remove.
pub fn remove_if_exists(path: &Path) -> Result<bool, StateError> {
    match fs::remove_file(path) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(StateError::io(path, e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn creates_and_replaces_without_leftovers() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("sessions.json");
        write_atomic(&target, b"first").unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"first");
        write_atomic(&target, b"second-longer").unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"second-longer");
        assert_eq!(entries(dir.path()), vec!["sessions.json".to_owned()]);
    }

    #[test]
    fn failed_rename_leaves_target_and_no_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        // A directory in the target's place makes the final rename fail.
        let target = dir.path().join("pending_updates.json");
        fs::create_dir(&target).unwrap();
        fs::write(target.join("keep"), b"old").unwrap();
        let err = write_atomic(&target, b"new").unwrap_err();
        assert!(matches!(err, StateError::Io { ref path, .. } if path == &target));
        assert_eq!(fs::read(target.join("keep")).unwrap(), b"old");
        assert_eq!(entries(dir.path()), vec!["pending_updates.json".to_owned()]);
    }

    #[test]
    fn missing_parent_dir_is_an_error_and_creates_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("nope").join("x.json");
        assert!(write_atomic(&target, b"x").is_err());
        assert!(entries(dir.path()).is_empty());
    }

    #[test]
    fn readers_never_see_a_torn_file() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("big.json");
        let a = vec![b'a'; 256 * 1024];
        let b = vec![b'b'; 256 * 1024];
        write_atomic(&target, &a).unwrap();
        let writer = {
            let (target, a, b) = (target.clone(), a.clone(), b.clone());
            std::thread::spawn(move || {
                for i in 0..40 {
                    write_atomic(&target, if i % 2 == 0 { &b } else { &a }).unwrap();
                }
            })
        };
        for _ in 0..200 {
            let seen = fs::read(&target).unwrap();
            assert!(seen == a || seen == b, "torn read of {} bytes", seen.len());
        }
        writer.join().unwrap();
    }

    #[test]
    fn remove_if_exists_reports_whether_it_removed() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("bot.pid");
        assert!(!remove_if_exists(&target).unwrap());
        fs::write(&target, b"123").unwrap();
        assert!(remove_if_exists(&target).unwrap());
        assert!(!target.exists());
    }
}
