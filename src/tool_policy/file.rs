//! `tool-policy.yaml` in the data dir (PRM-11, E.6): the owner's own additions to the tool
//! sets, re-read whenever the file changes.

use std::{
    path::{Path, PathBuf},
    sync::Arc,
    time::SystemTime,
};

use parking_lot::Mutex;

use serde::Deserialize;

use super::{Source, check_all, log_findings};

/// The file's contents, each list checked (PRM-8): error patterns are already dropped.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolPolicyFile {
    /// `main_session.additional_allowed`.
    pub main_additional: Vec<String>,
    /// `bg_forks.additional_allowed`.
    pub bg_additional: Vec<String>,
    /// `bg_forks.override`: replaces the default background set.
    pub bg_override: Option<Vec<String>>,
}

/// Why the file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum PolicyFileError {
    /// Not readable.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// Not the documented shape.
    #[error("{path} is not a valid tool policy: {reason}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The YAML error.
        reason: String,
    },
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Raw {
    #[serde(default)]
    main_session: RawMain,
    #[serde(default)]
    bg_forks: RawBg,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawMain {
    #[serde(default)]
    additional_allowed: Vec<String>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawBg {
    #[serde(default)]
    additional_allowed: Vec<String>,
    #[serde(default, rename = "override")]
    override_: Option<Vec<String>>,
}

impl ToolPolicyFile {
    /// Parses the YAML; error patterns are logged and dropped.
    pub fn parse(text: &str) -> Result<Self, String> {
        if text.trim().is_empty() {
            return Ok(Self::default());
        }
        let raw: Raw = serde_yaml::from_str(text).map_err(|e| e.to_string())?;
        let checked = |list: &[String]| {
            let checked = check_all(list);
            log_findings(&Source::PolicyFile, &checked);
            checked.usable
        };
        Ok(Self {
            main_additional: checked(&raw.main_session.additional_allowed),
            bg_additional: checked(&raw.bg_forks.additional_allowed),
            bg_override: raw.bg_forks.override_.as_deref().map(checked),
        })
    }

    /// Every pattern the file's lists declare, as written and before checking, so `doctor`
    /// can name the refused ones (CMD-7); the error is the YAML's.
    pub fn declared_patterns(text: &str) -> Result<Vec<String>, String> {
        if text.trim().is_empty() {
            return Ok(Vec::new());
        }
        let raw: Raw = serde_yaml::from_str(text).map_err(|e| e.to_string())?;
        let mut patterns = raw.main_session.additional_allowed;
        patterns.extend(raw.bg_forks.additional_allowed);
        patterns.extend(raw.bg_forks.override_.unwrap_or_default());
        Ok(patterns)
    }

    /// Reads `path`; a missing file is the empty policy.
    pub fn load(path: &Path) -> Result<Self, PolicyFileError> {
        match std::fs::read_to_string(path) {
            Ok(text) => Self::parse(&text).map_err(|reason| PolicyFileError::Invalid {
                path: path.to_path_buf(),
                reason,
            }),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(Self::default()),
            Err(source) => Err(PolicyFileError::Read {
                path: path.to_path_buf(),
                source,
            }),
        }
    }

    /// Whether any list of the file names `pattern`.
    pub fn mentions(&self, pattern: &str) -> bool {
        self.main_additional.iter().any(|p| p == pattern)
            || self.bg_additional.iter().any(|p| p == pattern)
            || self
                .bg_override
                .as_ref()
                .is_some_and(|list| list.iter().any(|p| p == pattern))
    }
}

/// The file as last read, re-read when its modification time or size changes (PRM-11).
/// A broken file is logged once per change and counts as empty.
pub struct ToolPolicyWatch {
    path: PathBuf,
    cached: Mutex<Option<(Stamp, Arc<ToolPolicyFile>)>>,
}

type Stamp = Option<(SystemTime, u64)>;

impl ToolPolicyWatch {
    /// Watches `path` (usually `DATA_DIR/tool-policy.yaml`).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self {
            path: path.into(),
            cached: Mutex::new(None),
        }
    }

    /// The current policy.
    pub fn current(&self) -> Arc<ToolPolicyFile> {
        let stamp = std::fs::metadata(&self.path)
            .ok()
            .map(|m| (m.modified().unwrap_or(SystemTime::UNIX_EPOCH), m.len()));
        let mut cached = self.cached.lock();
        if let Some((seen, policy)) = cached.as_ref()
            && *seen == stamp
        {
            return Arc::clone(policy);
        }
        let policy = Arc::new(ToolPolicyFile::load(&self.path).unwrap_or_else(|error| {
            tracing::error!(%error, "tool-policy.yaml ignored until it is fixed");
            ToolPolicyFile::default()
        }));
        *cached = Some((stamp, Arc::clone(&policy)));
        policy
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_documented_shape_and_drops_bad_patterns() {
        let policy = ToolPolicyFile::parse(
            "main_session:\n  additional_allowed: [\"Bash(git status)\", \"Bash(*)\"]\n\
             bg_forks:\n  additional_allowed: [\"Bash(ollim-bot cal *)\"]\n  override: [\"Bash(ollim-bot help)\"]\n",
        )
        .unwrap();
        assert_eq!(policy.main_additional, ["Bash(git status)"]);
        assert_eq!(policy.bg_additional, ["Bash(ollim-bot cal *)"]);
        assert_eq!(
            policy.bg_override.as_deref(),
            Some(&["Bash(ollim-bot help)".to_owned()][..])
        );
        assert!(policy.mentions("Bash(git status)"));
        assert!(!policy.mentions("Bash(*)"));
        assert_eq!(
            ToolPolicyFile::parse("").unwrap(),
            ToolPolicyFile::default()
        );
        assert!(ToolPolicyFile::parse("main_session: [1]").is_err());
        assert!(ToolPolicyFile::parse("extra: 1").is_err());
    }

    #[test]
    fn the_watch_rereads_a_changed_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tool-policy.yaml");
        let watch = ToolPolicyWatch::new(&path);
        assert!(watch.current().main_additional.is_empty());
        std::fs::write(
            &path,
            "main_session:\n  additional_allowed: [\"Bash(git status)\"]\n",
        )
        .unwrap();
        assert_eq!(watch.current().main_additional, ["Bash(git status)"]);
        std::fs::write(&path, "main_session: {additional_allowed: []}\nbroken: [").unwrap();
        assert!(
            watch.current().main_additional.is_empty(),
            "broken file counts as empty"
        );
    }
}
