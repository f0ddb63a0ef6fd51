//! The [`SessionId`] newtype.

use std::fmt;

/// A Claude Code session id, validated before it ever reaches a command line.
///
/// The CLI issues UUIDs; older state files may hold other tokens, so any non-empty string of
/// ASCII letters, digits, `-` and `_` up to 128 characters, not starting with `-`, is accepted.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SessionId(String);

/// The reason a string was refused as a [`SessionId`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid session id {0:?}: expected 1-128 ASCII letters, digits, '-' or '_'")]
pub struct InvalidSessionId(pub String);

impl SessionId {
    /// Validates and wraps a session id.
    pub fn parse(raw: &str) -> Result<Self, InvalidSessionId> {
        let valid = !raw.is_empty()
            && raw.len() <= 128
            && !raw.starts_with('-')
            && raw
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        if valid {
            Ok(Self(raw.to_owned()))
        } else {
            Err(InvalidSessionId(raw.to_owned()))
        }
    }

    /// A fresh random (v4 UUID) session id, for `--session-id`.
    pub fn new_random() -> Self {
        Self(uuid::Uuid::new_v4().to_string())
    }

    /// The id as a string slice.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The first eight characters, as used in commit messages (SES-6).
    pub fn short(&self) -> &str {
        self.0.get(..8).unwrap_or(&self.0)
    }
}

impl fmt::Display for SessionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_uuids_and_legacy_tokens() {
        assert!(SessionId::parse("0b7f6c1e-2a3b-4c5d-8e9f-0123456789ab").is_ok());
        assert!(SessionId::parse("sess_abc123").is_ok());
    }

    #[test]
    fn refuses_empty_json_and_flag_like_values() {
        for bad in ["", "{\"x\":1}", "--resume", "a b", &"x".repeat(129)] {
            assert!(SessionId::parse(bad).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn short_is_eight_chars() {
        let id = SessionId::parse("abcdef0123456789").unwrap();
        assert_eq!(id.short(), "abcdef01");
    }
}
