//! Naming a session on the command line (CMD-10): `latest`, `prev`, `prev-N`, its custom
//! title or slug, or the first characters of its id (a `:N` suffix is accepted and ignored).

use std::path::Path;

use serde_json::Value;

use super::{SessionFile, TranscriptError, read_file};

/// A session as named on the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionRef {
    /// `latest` (0), `prev` (1), `prev-N` (N): that many back from the newest by modification.
    Back(usize),
    /// A custom title or a slug (anything not made of hex digits and dashes).
    Title(String),
    /// The first characters of the id.
    IdPrefix(String),
}

impl SessionRef {
    /// Reads a session reference.
    pub fn parse(raw: &str) -> Self {
        let raw = raw.trim();
        let raw = match raw.rsplit_once(':') {
            Some((head, index))
                if !index.is_empty() && index.bytes().all(|b| b.is_ascii_digit()) =>
            {
                head
            }
            _ => raw,
        };
        match raw {
            "latest" => return Self::Back(0),
            "prev" => return Self::Back(1),
            _ => {}
        }
        if let Some(n) = raw.strip_prefix("prev-").and_then(|n| n.parse().ok())
            && n >= 1
        {
            return Self::Back(n);
        }
        let id_like = !raw.is_empty()
            && raw
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b) || b == b'-');
        if id_like {
            Self::IdPrefix(raw.to_owned())
        } else {
            Self::Title(raw.to_owned())
        }
    }
}

/// Why no one session answers to a reference.
#[derive(Debug, thiserror::Error)]
pub enum SessionRefError {
    /// There are no sessions at all.
    #[error("No sessions found for {cwd} (searched {searched} and the bot's CLI homes)")]
    NoSessions {
        /// The working directory whose sessions were looked for.
        cwd: String,
        /// The main transcript folder searched.
        searched: String,
    },
    /// `prev-N` goes back further than there are sessions.
    #[error("Only {found} sessions found, cannot resolve prev-{back}.")]
    TooFew {
        /// Sessions found.
        found: usize,
        /// How far back was asked.
        back: usize,
    },
    /// No session carries that title or slug.
    #[error("No session found with slug '{0}'")]
    NoTitle(String),
    /// No session id starts with the prefix.
    #[error(
        "No session file matching '{prefix}*' in {dir}: check the session id, and that it is one of the bot's sessions"
    )]
    NoPrefix {
        /// The prefix.
        prefix: String,
        /// The main transcript folder.
        dir: String,
    },
    /// Several session ids start with the prefix.
    #[error("Session prefix '{prefix}' matches {count} sessions ({shown}): give more characters")]
    AmbiguousPrefix {
        /// The prefix.
        prefix: String,
        /// How many match.
        count: usize,
        /// Their ids.
        shown: String,
    },
    /// A session file could not be read.
    #[error(transparent)]
    Read(#[from] TranscriptError),
}

/// The titles a session file's records carry: custom titles, then slugs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Titles {
    /// `customTitle` values.
    pub custom: Vec<String>,
    /// `slug` values.
    pub slugs: Vec<String>,
}

/// Reads the titles of the session in `path`.
pub fn titles_of(path: &Path) -> Result<Titles, TranscriptError> {
    let mut titles = Titles::default();
    read_file(path, |line| {
        if !line.contains("\"customTitle\"") && !line.contains("\"slug\"") {
            return;
        }
        let Ok(record) = serde_json::from_str::<Value>(line) else {
            return;
        };
        for (field, into) in [
            ("customTitle", &mut titles.custom),
            ("slug", &mut titles.slugs),
        ] {
            if let Some(value) = record.get(field).and_then(Value::as_str)
                && !into.iter().any(|known| known == value)
            {
                into.push(value.to_owned());
            }
        }
    })?;
    Ok(titles)
}

/// The session `reference` names among `sessions` (sorted by id), reading a file's titles with
/// `titles` only for a title; `cwd` and `dir` word the errors.
pub fn resolve_session<'a>(
    sessions: &'a [SessionFile],
    reference: &SessionRef,
    mut titles: impl FnMut(&SessionFile) -> Result<Titles, TranscriptError>,
    (cwd, dir): (&Path, &Path),
) -> Result<&'a SessionFile, SessionRefError> {
    if sessions.is_empty() {
        return Err(SessionRefError::NoSessions {
            cwd: cwd.display().to_string(),
            searched: dir.display().to_string(),
        });
    }
    match reference {
        SessionRef::Back(back) => {
            let mut newest: Vec<&SessionFile> = sessions.iter().collect();
            newest.sort_by(|a, b| b.modified.cmp(&a.modified).then_with(|| a.id.cmp(&b.id)));
            newest.get(*back).copied().ok_or(SessionRefError::TooFew {
                found: sessions.len(),
                back: *back,
            })
        }
        SessionRef::Title(title) => {
            let mut by_slug = None;
            for session in sessions {
                let found = titles(session)?;
                if found.custom.contains(title) {
                    return Ok(session);
                }
                if by_slug.is_none() && found.slugs.contains(title) {
                    by_slug = Some(session);
                }
            }
            by_slug.ok_or_else(|| SessionRefError::NoTitle(title.clone()))
        }
        SessionRef::IdPrefix(prefix) => {
            if let Some(exact) = sessions.iter().find(|s| &s.id == prefix) {
                return Ok(exact);
            }
            let found: Vec<&SessionFile> = sessions
                .iter()
                .filter(|s| s.id.starts_with(prefix.as_str()))
                .collect();
            match found.as_slice() {
                [one] => Ok(one),
                [] => Err(SessionRefError::NoPrefix {
                    prefix: prefix.clone(),
                    dir: dir.display().to_string(),
                }),
                many => Err(SessionRefError::AmbiguousPrefix {
                    prefix: prefix.clone(),
                    count: many.len(),
                    shown: many
                        .iter()
                        .map(|s| s.id.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                }),
            }
        }
    }
}

#[cfg(test)]
#[path = "session_ref_tests.rs"]
mod tests;
