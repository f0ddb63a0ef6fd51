//! Releases are `v*` tags in semantic-version order (UPD-3, F-37): the newest one is an update
//! when it is newer than the version this binary was built as. Untagged commits never count.

use semver::Version;

/// A release tag.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Release {
    /// The tag as git names it (`v0.3.0`).
    pub tag: String,
    /// Its version (`0.3.0`).
    pub version: Version,
}

impl Release {
    /// The release a tag names: `v` followed by a semantic version; anything else is `None`.
    pub fn from_tag(tag: &str) -> Option<Self> {
        let tag = tag.trim();
        let version = Version::parse(tag.strip_prefix('v')?).ok()?;
        Some(Self {
            tag: tag.to_owned(),
            version,
        })
    }

    /// The loop guard's warning (UPD-5): this release was installed before, yet the binary
    /// still reports an older version, so its `Cargo.toml` version was not bumped.
    pub fn warn_already_applied(&self) {
        tracing::warn!(
            "{} was already installed, but this binary still says v{}; its Cargo.toml version \
             was probably not bumped, so it is not installed again",
            self.tag,
            env!("CARGO_PKG_VERSION")
        );
    }
}

/// The newest release among `git tag -l 'v*'` output lines, by version order (not by name:
/// `v0.10.0` is newer than `v0.9.0`). Tags that are not versions are ignored.
pub fn newest(tag_list: &str) -> Option<Release> {
    tag_list
        .lines()
        .filter_map(Release::from_tag)
        .max_by(|a, b| a.version.cmp(&b.version))
}

/// The version this binary was built as (`CARGO_PKG_VERSION`).
pub fn running() -> Version {
    Version::parse(env!("CARGO_PKG_VERSION")).unwrap_or_else(|_| Version::new(0, 0, 0))
}

/// The release to update to: the newest one, when it is newer than `running`.
pub fn update_over(tag_list: &str, running: &Version) -> Option<Release> {
    newest(tag_list).filter(|release| release.version > *running)
}

#[cfg(test)]
#[path = "release_tests.rs"]
mod tests;
