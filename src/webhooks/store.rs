//! The spec folder, `<data>/webhooks/*.md`, read on every request (WHK-2: a new or edited spec
//! works without a restart) but parsed only when a file's modification time or size changed.
//! A broken file is reported once, when it is parsed, and never hides the other specs.

use std::{
    collections::HashMap,
    path::{Path, PathBuf},
    sync::Arc,
    time::SystemTime,
};

use parking_lot::Mutex;

use super::spec::{WebhookSpec, declared_id, file_name};

/// A spec file that can't be used, with the reason.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("webhook spec {} is broken: {reason}", file_name(file))]
pub struct SpecError {
    /// The file.
    pub file: PathBuf,
    /// The `id` it declares, when its frontmatter still names one.
    pub id: Option<String>,
    /// Why it can't be used.
    pub reason: String,
}

/// What identifies a file's version without reading it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    modified: Option<SystemTime>,
    len: u64,
}

type Parsed = Result<Arc<WebhookSpec>, SpecError>;

/// The webhook specs of one folder, cached by path, modification time and size.
#[derive(Debug)]
pub struct SpecStore {
    dir: PathBuf,
    cache: Mutex<HashMap<PathBuf, (Stamp, Parsed)>>,
}

impl SpecStore {
    /// A store over `dir` (usually `DataDir::webhooks_dir()`); the folder may not exist yet.
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self {
            dir: dir.into(),
            cache: Mutex::new(HashMap::new()),
        }
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Every `*.md` file in the folder (but `README.md`), by file name: the spec or why it is
    /// broken. A missing folder has no specs.
    pub fn scan(&self) -> Vec<Parsed> {
        let mut files: Vec<(PathBuf, Stamp)> = match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries
                .filter_map(Result::ok)
                .map(|entry| entry.path())
                .filter(|path| is_spec_file(path))
                .filter_map(|path| {
                    let meta = std::fs::metadata(&path).ok()?;
                    meta.is_file().then(|| {
                        let stamp = Stamp {
                            modified: meta.modified().ok(),
                            len: meta.len(),
                        };
                        (path, stamp)
                    })
                })
                .collect(),
            Err(_) => Vec::new(),
        };
        files.sort_by(|a, b| a.0.cmp(&b.0));
        let mut cache = self.cache.lock();
        cache.retain(|path, _| files.iter().any(|(p, _)| p == path));
        files
            .into_iter()
            .map(|(path, stamp)| match cache.get(&path) {
                Some((cached, parsed)) if *cached == stamp => parsed.clone(),
                _ => {
                    let parsed = load(&path);
                    cache.insert(path, (stamp, parsed.clone()));
                    parsed
                }
            })
            .collect()
    }

    /// The spec whose `id` is `id` (WHK-2: matched by id, not file name; the first file by
    /// name wins a tie). When no usable spec has it, a broken file that declares it, or that
    /// declares no id and is named `<id>.md`, is the error (so the sender learns which file to
    /// fix); otherwise `Ok(None)`.
    pub fn find(&self, id: &str) -> Result<Option<Arc<WebhookSpec>>, SpecError> {
        let mut broken = None;
        for parsed in self.scan() {
            match parsed {
                Ok(spec) if spec.id == id => return Ok(Some(spec)),
                Err(error) if broken.is_none() && claims(&error, id) => broken = Some(error),
                Ok(_) | Err(_) => {}
            }
        }
        broken.map_or(Ok(None), Err)
    }
}

fn is_spec_file(path: &Path) -> bool {
    path.extension().is_some_and(|ext| ext == "md")
        && !path
            .file_name()
            .is_some_and(|name| name.eq_ignore_ascii_case("README.md"))
}

fn claims(error: &SpecError, id: &str) -> bool {
    match &error.id {
        Some(declared) => declared == id,
        None => error.file.file_stem().is_some_and(|stem| stem == id),
    }
}

fn load(path: &Path) -> Parsed {
    let broken = |id: Option<String>, reason: String| {
        let error = SpecError {
            file: path.to_path_buf(),
            id,
            reason,
        };
        tracing::warn!("{error}");
        error
    };
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) => return Err(broken(None, format!("can't be read: {error}"))),
    };
    let spec =
        WebhookSpec::parse(path, &text).map_err(|reason| broken(declared_id(&text), reason))?;
    for note in &spec.notes {
        tracing::warn!("webhook spec {}: {note}", spec.file_name());
    }
    Ok(Arc::new(spec))
}

#[cfg(test)]
#[path = "store_tests.rs"]
mod tests;
