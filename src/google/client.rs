//! The one Google client (GOO-2): loads the token for every call, refreshes it when it has
//! expired (rewriting `token.json`), turns a refresh token refused for good into the
//! revocation marker, retries 429 / 5xx with backoff honouring `Retry-After`, and maps
//! 401 / 403 / 404 / quota answers to errors that say what to do.
//!
//! The API base is `https://www.googleapis.com` unless `OLLIM_GOOGLE_API_URL` says otherwise
//! (a proxy; the tests' fake Google): every call goes to `{base}/tasks/v1/…`,
//! `{base}/calendar/v3/…` or `{base}/gmail/v1/…`.

use std::time::Duration;

use chrono::Utc;
use reqwest::{Method, RequestBuilder, StatusCode, header::HeaderMap};
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::{
    GoogleError,
    files::GoogleFiles,
    oauth::{RefreshFailure, refresh, refresh_client},
};
use crate::state::paths::DataDir;

/// Google's API host.
pub const DEFAULT_API_BASE: &str = "https://www.googleapis.com";

/// Attempts per call for retryable answers (the first try included).
const MAX_ATTEMPTS: u32 = 4;
/// The first backoff; doubled on every retry.
const FIRST_BACKOFF: Duration = Duration::from_millis(500);
/// The longest wait a `Retry-After` may impose before the call gives up waiting.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(30);

/// The Google API client: one per process, cheap to clone.
#[derive(Debug, Clone)]
pub struct GoogleClient {
    http: reqwest::Client,
    files: GoogleFiles,
    api_base: String,
    /// The owner's clock, for "today" (tokens expire on Google's own, the system's).
    clock: crate::clock::Clock,
}

/// The API a call is for, named in error messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Api {
    /// Google Tasks v1.
    Tasks,
    /// Google Calendar v3.
    Calendar,
    /// Gmail v1.
    Gmail,
}

impl Api {
    /// The name the Cloud Console's library shows.
    pub fn console_name(self) -> &'static str {
        match self {
            Self::Tasks => "Google Tasks API",
            Self::Calendar => "Google Calendar API",
            Self::Gmail => "Gmail API",
        }
    }

    fn path_prefix(self) -> &'static str {
        match self {
            Self::Tasks => "tasks/v1",
            Self::Calendar => "calendar/v3",
            Self::Gmail => "gmail/v1",
        }
    }
}

/// The HTTP client every Google call (API and token endpoint) uses: no redirects followed
/// (the token endpoint must not bounce a code elsewhere), a bounded timeout.
pub fn http_client() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(30))
        .connect_timeout(Duration::from_secs(10))
        .build()
        .unwrap_or_default()
}

impl GoogleClient {
    /// A client for `data_dir`'s Google files; `api_base` is the value of
    /// `OLLIM_GOOGLE_API_URL` (blank or `None`: Google itself).
    pub fn new(data_dir: &DataDir, api_base: Option<&str>) -> Self {
        let api_base = api_base
            .map(str::trim)
            .filter(|b| !b.is_empty())
            .unwrap_or(DEFAULT_API_BASE)
            .trim_end_matches('/')
            .to_owned();
        Self {
            http: http_client(),
            files: GoogleFiles::new(data_dir),
            api_base,
            clock: crate::clock::Clock::system(),
        }
    }

    /// The same client, reading the owner's day from `clock` (issue 40 §2).
    #[must_use]
    pub fn with_clock(mut self, clock: crate::clock::Clock) -> Self {
        self.clock = clock;
        self
    }

    /// The owner's clock.
    pub(crate) fn clock(&self) -> &crate::clock::Clock {
        &self.clock
    }

    /// A client reading `OLLIM_GOOGLE_API_URL` from this process's environment.
    pub fn from_env(data_dir: &DataDir) -> Self {
        Self::new(
            data_dir,
            crate::config::environment::google_api_url().as_deref(),
        )
    }

    /// The Google files.
    pub fn files(&self) -> &GoogleFiles {
        &self.files
    }

    /// The HTTP client (for the consent flow's code exchange).
    pub fn http(&self) -> &reqwest::Client {
        &self.http
    }

    /// `{base}/{api prefix}/{path}`.
    pub fn url(&self, api: Api, path: &str) -> String {
        format!("{}/{}/{path}", self.api_base, api.path_prefix())
    }

    /// A usable access token: the stored one while valid, else a refreshed one (rewritten to
    /// `token.json`). A refresh token refused for good removes the token and leaves the
    /// revocation marker (GOO-2).
    pub async fn access_token(&self, force_refresh: bool) -> Result<String, GoogleError> {
        let Some(token) = self.files.load_token()? else {
            return Err(GoogleError::NotConnected);
        };
        if !force_refresh && let Some(valid) = token.valid_access_token(Utc::now()) {
            return Ok(valid.to_owned());
        }
        if token.refresh().is_none() {
            return Err(GoogleError::NotConnected);
        }
        let secrets = self.files.load_secrets().ok();
        let client = refresh_client(&token, secrets.as_ref());
        match refresh(&self.http, &client, &token).await {
            Ok(fresh) => {
                self.files.save_token(&fresh)?;
                tracing::info!("google access token refreshed");
                fresh.token.ok_or(GoogleError::NotConnected)
            }
            Err(RefreshFailure::Permanent(reason)) => {
                // Info, not warn: the caller reports it (the command's error line, SCH-3's DM).
                tracing::info!(%reason, "google refresh token refused; removing token.json");
                self.files.mark_revoked()?;
                Err(GoogleError::Revoked)
            }
            Err(failure) => Err(failure.into()),
        }
    }

    /// Sends a call and decodes its JSON answer.
    pub async fn call<T: DeserializeOwned>(
        &self,
        api: Api,
        method: Method,
        url: &str,
        query: &[(&str, String)],
        body: Option<&Value>,
    ) -> Result<T, GoogleError> {
        let bytes = self.send(api, method, url, query, body).await?;
        serde_json::from_slice(&bytes).map_err(|e| GoogleError::Decode(e.to_string()))
    }

    /// Sends a call whose answer has no body (a delete).
    pub async fn call_empty(&self, api: Api, method: Method, url: &str) -> Result<(), GoogleError> {
        self.send(api, method, url, &[], None).await.map(|_| ())
    }

    /// The retry loop: 429 and 5xx (and rate-limit 403s) wait and retry; a 401 refreshes the
    /// token once and retries.
    async fn send(
        &self,
        api: Api,
        method: Method,
        url: &str,
        query: &[(&str, String)],
        body: Option<&Value>,
    ) -> Result<Vec<u8>, GoogleError> {
        let mut token = self.access_token(false).await?;
        let mut refreshed = false;
        let mut attempt = 1;
        loop {
            let mut request: RequestBuilder = self
                .http
                .request(method.clone(), url)
                .bearer_auth(&token)
                .query(query);
            if let Some(body) = body {
                request = request.json(body);
            }
            let response = match request.send().await {
                Ok(response) => response,
                Err(error)
                    if attempt < MAX_ATTEMPTS && (error.is_connect() || error.is_timeout()) =>
                {
                    tokio::time::sleep(backoff(attempt)).await;
                    attempt += 1;
                    continue;
                }
                Err(error) => return Err(GoogleError::Network(without_url(&error))),
            };
            let status = response.status();
            let headers = response.headers().clone();
            let bytes = response
                .bytes()
                .await
                .map_err(|e| GoogleError::Network(without_url(&e)))?;
            if status.is_success() {
                return Ok(bytes.to_vec());
            }
            let failure = ApiFailure::read(status, &bytes);
            if status == StatusCode::UNAUTHORIZED && !refreshed {
                refreshed = true;
                token = self.access_token(true).await?;
                continue;
            }
            if failure.retryable() && attempt < MAX_ATTEMPTS {
                let wait = retry_after(&headers).unwrap_or_else(|| backoff(attempt));
                if wait > MAX_RETRY_AFTER {
                    return Err(failure.into_error(api));
                }
                tracing::debug!(%status, attempt, ?wait, "google call will be retried");
                tokio::time::sleep(wait).await;
                attempt += 1;
                continue;
            }
            return Err(failure.into_error(api));
        }
    }
}

/// The network error without the URL (which may carry a query worth keeping out of logs).
fn without_url(error: &reqwest::Error) -> String {
    let mut text = error.to_string();
    if let Some(url) = error.url() {
        text = text.replace(url.as_str(), "Google");
    }
    text
}

fn backoff(attempt: u32) -> Duration {
    FIRST_BACKOFF * 2u32.saturating_pow(attempt.saturating_sub(1))
}

/// `Retry-After` as seconds or an HTTP date.
pub(crate) fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let raw = headers
        .get(reqwest::header::RETRY_AFTER)?
        .to_str()
        .ok()?
        .trim();
    if let Ok(seconds) = raw.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let at = chrono::DateTime::parse_from_rfc2822(raw).ok()?;
    Some(
        (at.with_timezone(&Utc) - Utc::now())
            .to_std()
            .unwrap_or_default(),
    )
}

/// A failed answer, read from Google's error JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ApiFailure {
    pub(crate) status: u16,
    pub(crate) reason: String,
    pub(crate) message: String,
}

impl ApiFailure {
    pub(crate) fn read(status: StatusCode, body: &[u8]) -> Self {
        let json: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
        let error = &json["error"];
        let reason = error["errors"][0]["reason"]
            .as_str()
            .or_else(|| error["details"][0]["reason"].as_str())
            .or_else(|| error["status"].as_str())
            .unwrap_or_default()
            .to_owned();
        let message = error["message"]
            .as_str()
            .or_else(|| status.canonical_reason())
            .unwrap_or("error")
            .to_owned();
        Self {
            status: status.as_u16(),
            reason,
            message,
        }
    }

    fn rate_limited(&self) -> bool {
        self.status == 429
            || (self.status == 403
                && matches!(
                    self.reason.as_str(),
                    "rateLimitExceeded" | "userRateLimitExceeded" | "RATE_LIMIT_EXCEEDED"
                ))
    }

    fn retryable(&self) -> bool {
        self.rate_limited() || matches!(self.status, 500 | 502 | 503 | 504)
    }

    pub(crate) fn into_error(self, api: Api) -> GoogleError {
        if self.rate_limited()
            || matches!(
                self.reason.as_str(),
                "quotaExceeded" | "dailyLimitExceeded" | "RESOURCE_EXHAUSTED"
            )
        {
            return GoogleError::Quota { api };
        }
        match self.status {
            401 => GoogleError::Unauthorized,
            403 if matches!(
                self.reason.as_str(),
                "accessNotConfigured" | "SERVICE_DISABLED"
            ) =>
            {
                GoogleError::ApiDisabled { api }
            }
            403 if matches!(
                self.reason.as_str(),
                "insufficientPermissions" | "ACCESS_TOKEN_SCOPE_INSUFFICIENT"
            ) =>
            {
                GoogleError::MissingScope
            }
            403 => GoogleError::Forbidden {
                message: self.message,
            },
            404 | 410 => GoogleError::NotFound,
            status => GoogleError::Api {
                status,
                message: self.message,
            },
        }
    }
}

#[cfg(test)]
#[path = "client_tests.rs"]
mod tests;
