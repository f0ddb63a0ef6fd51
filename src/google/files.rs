//! The Google files under `state/` (GOO-1, GOO-2, SCH-3): the owner's OAuth client file
//! (`credentials.json`, as the Cloud Console downloads it), the authorized-user token
//! (`token.json`, written atomically and readable by the owner only) and the revocation marker.

use std::path::{Path, PathBuf};

use chrono::{DateTime, NaiveDateTime, Utc};
use serde::{Deserialize, Serialize};

use super::GoogleError;
use crate::state::{
    atomic::{remove_if_exists, write_atomic},
    paths::DataDir,
    state_file::{Json, StateFile},
};

/// What `token.json` holds: the format `doctor` and the start-up check judge it by.
pub type TokenFormat = Json<Option<StoredToken>>;

/// Google's authorization endpoint, used when `credentials.json` names none.
pub const DEFAULT_AUTH_URI: &str = "https://accounts.google.com/o/oauth2/auth";
/// Google's token endpoint, used when `credentials.json` names none.
pub const DEFAULT_TOKEN_URI: &str = "https://oauth2.googleapis.com/token";

/// How long before its stated expiry an access token is treated as expired, so a call made
/// just before the deadline doesn't fail half-way.
const EXPIRY_MARGIN_SECS: i64 = 60;

/// Where the three Google files live.
#[derive(Debug, Clone)]
pub struct GoogleFiles {
    credentials: PathBuf,
    token: PathBuf,
    revoked_marker: PathBuf,
}

impl GoogleFiles {
    /// The files of `data_dir`'s `state/`.
    pub fn new(data_dir: &DataDir) -> Self {
        Self {
            credentials: data_dir.credentials_file(),
            token: data_dir.token_file(),
            revoked_marker: data_dir.google_auth_revoked_file(),
        }
    }

    /// `state/credentials.json`.
    pub fn credentials_path(&self) -> &Path {
        &self.credentials
    }

    /// `state/token.json`.
    pub fn token_path(&self) -> &Path {
        &self.token
    }

    /// Reads `credentials.json` (GOO-1).
    pub fn load_secrets(&self) -> Result<ClientSecrets, GoogleError> {
        let bytes = match std::fs::read(&self.credentials) {
            Ok(bytes) => bytes,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                return Err(GoogleError::NoCredentials {
                    path: self.credentials.clone(),
                });
            }
            Err(error) => return Err(bad_credentials(&self.credentials, error.to_string())),
        };
        ClientSecrets::parse(&bytes).map_err(|reason| bad_credentials(&self.credentials, reason))
    }

    /// Reads `token.json`; `None` when there is none. A damaged one is set aside (the owner
    /// told, issue 40 §1) and reads as none; one that can't be read at all is an error.
    pub fn load_token(&self) -> Result<Option<StoredToken>, GoogleError> {
        self.token_file()
            .read()
            .map_err(|error| GoogleError::BadToken {
                path: self.token.clone(),
                reason: error.to_string(),
            })
    }

    /// Writes `token.json` atomically (temp file, fsync, rename). The temporary file is created
    /// with mode 0600 and the rename keeps it, so the token is never readable by others, not
    /// even for a moment. A token file that can't be read is an error, never written over.
    pub fn save_token(&self, token: &StoredToken) -> Result<(), GoogleError> {
        self.token_file().update(|stored| {
            *stored = Some(token.clone());
        })?;
        Ok(())
    }

    fn token_file(&self) -> StateFile<TokenFormat> {
        StateFile::new(&self.token)
    }

    /// Whether Google is connected: a token that is valid or can be refreshed (no network).
    pub fn is_connected(&self) -> bool {
        matches!(self.load_token(), Ok(Some(token)) if token.is_usable(Utc::now()))
    }

    /// `Ok` when Google is connected; otherwise why not, checked in the order the owner fixes
    /// things: a `token.json` that can't be read, a missing or unusable `credentials.json`,
    /// then [`GoogleError::NotConnected`] (no usable token yet). No network.
    pub fn check_connected(&self) -> Result<(), GoogleError> {
        if self.is_connected() {
            return Ok(());
        }
        self.load_token()?;
        self.load_secrets()?;
        Err(GoogleError::NotConnected)
    }

    /// The refresh token was refused for good (GOO-2): the token is removed and the marker
    /// left for the scheduler's next tick (SCH-3).
    pub fn mark_revoked(&self) -> Result<(), GoogleError> {
        remove_if_exists(&self.token)?;
        write_atomic(&self.revoked_marker, b"")?;
        Ok(())
    }

    /// Consumes the revocation marker: `true` (and the marker gone) when there was one (SCH-3).
    pub fn take_revoked_marker(&self) -> Result<bool, GoogleError> {
        Ok(remove_if_exists(&self.revoked_marker)?)
    }
}

fn bad_credentials(path: &Path, reason: String) -> GoogleError {
    GoogleError::BadCredentials {
        path: path.to_path_buf(),
        reason,
    }
}

/// The OAuth client of `credentials.json`: the Desktop-app (`installed`) form; a `web` client
/// is refused with a message saying which kind to create.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientSecrets {
    /// `client_id`.
    pub client_id: String,
    /// `client_secret` (Desktop clients have one; it is not really secret).
    pub client_secret: Option<String>,
    /// The authorization endpoint (`auth_uri`).
    pub auth_uri: String,
    /// The token endpoint (`token_uri`).
    pub token_uri: String,
}

#[derive(Deserialize)]
struct SecretsFile {
    installed: Option<SecretsEntry>,
    web: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct SecretsEntry {
    client_id: String,
    client_secret: Option<String>,
    auth_uri: Option<String>,
    token_uri: Option<String>,
}

impl ClientSecrets {
    /// Parses the downloaded client file; the error says what is wrong with it.
    pub fn parse(bytes: &[u8]) -> Result<Self, String> {
        let file: SecretsFile =
            serde_json::from_slice(bytes).map_err(|error| format!("not valid JSON ({error})"))?;
        let Some(entry) = file.installed else {
            return Err(if file.web.is_some() {
                "it is a \"Web application\" client; create an OAuth client of type \"Desktop \
                 app\" instead and save its JSON here"
                    .to_owned()
            } else {
                "no \"installed\" section; download the JSON of a \"Desktop app\" OAuth client"
                    .to_owned()
            });
        };
        if entry.client_id.trim().is_empty() {
            return Err("its client_id is empty".to_owned());
        }
        Ok(Self {
            client_id: entry.client_id,
            client_secret: entry.client_secret.filter(|s| !s.is_empty()),
            auth_uri: entry
                .auth_uri
                .unwrap_or_else(|| DEFAULT_AUTH_URI.to_owned()),
            token_uri: entry
                .token_uri
                .unwrap_or_else(|| DEFAULT_TOKEN_URI.to_owned()),
        })
    }
}

/// `token.json`, in Google's "authorized user" shape, so a token written by the original
/// bot (or by Google's own libraries) keeps working.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredToken {
    /// The access token.
    #[serde(default)]
    pub token: Option<String>,
    /// The refresh token (offline access).
    #[serde(default)]
    pub refresh_token: Option<String>,
    /// The token endpoint to refresh at.
    #[serde(default)]
    pub token_uri: Option<String>,
    /// The OAuth client the token belongs to.
    #[serde(default)]
    pub client_id: Option<String>,
    /// Its secret.
    #[serde(default)]
    pub client_secret: Option<String>,
    /// Granted scopes.
    #[serde(default)]
    pub scopes: Vec<String>,
    /// When the access token expires (UTC, ISO 8601).
    #[serde(default)]
    pub expiry: Option<String>,
}

impl StoredToken {
    /// The expiry instant, if the file states one that parses (with or without offset).
    pub fn expires_at(&self) -> Option<DateTime<Utc>> {
        let raw = self.expiry.as_deref()?.trim();
        if let Ok(at) = DateTime::parse_from_rfc3339(raw) {
            return Some(at.with_timezone(&Utc));
        }
        NaiveDateTime::parse_from_str(raw.trim_end_matches('Z'), "%Y-%m-%dT%H:%M:%S%.f")
            .ok()
            .map(|naive| naive.and_utc())
    }

    /// The access token, while it has more than a minute to live.
    pub fn valid_access_token(&self, now: DateTime<Utc>) -> Option<&str> {
        let token = self.token.as_deref().filter(|t| !t.is_empty())?;
        match self.expires_at() {
            Some(at) if at - chrono::Duration::seconds(EXPIRY_MARGIN_SECS) <= now => None,
            _ => Some(token),
        }
    }

    /// The refresh token, if any.
    pub fn refresh(&self) -> Option<&str> {
        self.refresh_token.as_deref().filter(|t| !t.is_empty())
    }

    /// Valid now, or refreshable: no new consent needed.
    pub fn is_usable(&self, now: DateTime<Utc>) -> bool {
        self.valid_access_token(now).is_some() || self.refresh().is_some()
    }
}

#[cfg(test)]
#[path = "files_tests.rs"]
mod tests;
