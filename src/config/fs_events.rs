//! `OLLIM_FS_EVENTS`: whether the scheduler watches its folders (issue 17).

use super::ConfigError;

/// Whether the scheduler listens for file events in its folders (issue 17).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum FsEvents {
    /// Watch the folders; a full re-read only now and then, as a fallback.
    #[default]
    On,
    /// No watching: re-read the folders every [`Config::scheduler_sync`].
    Off,
}

impl FsEvents {
    pub(super) fn read(raw: Option<String>) -> Result<Self, ConfigError> {
        match raw.as_deref().map(str::to_ascii_lowercase).as_deref() {
            None | Some("on") => Ok(Self::On),
            Some("off") => Ok(Self::Off),
            Some(_) => Err(ConfigError::Invalid {
                name: "OLLIM_FS_EVENTS",
                value: raw.unwrap_or_default(),
                reason: "must be on or off",
                example: "off",
            }),
        }
    }
}
