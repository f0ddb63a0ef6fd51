//! The OAuth pieces (GOO-1…4) on the `oauth2` crate: the consent URL with PKCE (S256) and a
//! random `state`, checking a redirect's query, exchanging the code, and refreshing.
//!
//! Endpoints come from `credentials.json` (`auth_uri`, `token_uri`), so the tests' fake Google
//! and a proxy are reached the same way as Google itself.

use chrono::{DateTime, Utc};
use oauth2::{
    AuthType, AuthUrl, AuthorizationCode, ClientId, ClientSecret, CsrfToken, EndpointNotSet,
    EndpointSet, PkceCodeChallenge, PkceCodeVerifier, RedirectUrl, RefreshToken, RequestTokenError,
    Scope, TokenResponse,
    basic::{BasicClient, BasicErrorResponseType, BasicTokenResponse},
};

use super::{AuthError, GoogleError, files::ClientSecrets, files::StoredToken};

/// The three scopes, one consent (GOO-1). Gmail is read-only.
pub const SCOPES: [&str; 3] = [
    "https://www.googleapis.com/auth/tasks",
    "https://www.googleapis.com/auth/calendar.events",
    "https://www.googleapis.com/auth/gmail.readonly",
];

type Client = BasicClient<EndpointSet, EndpointNotSet, EndpointNotSet, EndpointNotSet, EndpointSet>;

fn oauth_client(secrets: &ClientSecrets, redirect: Option<&str>) -> Result<Client, AuthError> {
    let auth_url = AuthUrl::new(secrets.auth_uri.clone())
        .map_err(|e| AuthError::Config(format!("auth_uri: {e}")))?;
    let token_url = oauth2::TokenUrl::new(secrets.token_uri.clone())
        .map_err(|e| AuthError::Config(format!("token_uri: {e}")))?;
    let mut client = BasicClient::new(ClientId::new(secrets.client_id.clone()))
        .set_auth_uri(auth_url)
        .set_token_uri(token_url)
        // Google's installed-app clients send the secret in the form body.
        .set_auth_type(AuthType::RequestBody);
    if let Some(secret) = &secrets.client_secret {
        client = client.set_client_secret(ClientSecret::new(secret.clone()));
    }
    if let Some(redirect) = redirect {
        let url = RedirectUrl::new(redirect.to_owned())
            .map_err(|e| AuthError::Config(format!("redirect uri: {e}")))?;
        client = client.set_redirect_uri(url);
    }
    Ok(client)
}

/// One consent in progress: what the browser is sent to, and what checks its answer.
pub struct ConsentRequest {
    /// The URL the owner opens.
    pub url: String,
    secrets: ClientSecrets,
    redirect_uri: String,
    state: CsrfToken,
    verifier: PkceCodeVerifier,
}

impl std::fmt::Debug for ConsentRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The state and the verifier stay out of logs.
        f.debug_struct("ConsentRequest")
            .field("redirect_uri", &self.redirect_uri)
            .finish_non_exhaustive()
    }
}

/// What a redirect to the loopback address carried.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Redirect {
    /// An authorization code for this consent.
    Code(String),
    /// The owner (or Google) refused: `error=<reason>`.
    Denied(String),
}

/// A query that can't complete this consent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RedirectRejection {
    /// Neither `code` nor `error`: not a redirect at all (a favicon request, a typo).
    NotARedirect,
    /// `state` missing or different: not the answer to this consent (a stale tab, a forgery).
    WrongState,
}

impl ConsentRequest {
    /// A consent URL for `redirect_uri` (the loopback listener): offline access, the three
    /// scopes, PKCE and a fresh `state`. `prompt=consent` makes Google return a refresh token
    /// even when the owner connected before.
    pub fn new(secrets: &ClientSecrets, redirect_uri: &str) -> Result<Self, AuthError> {
        let client = oauth_client(secrets, Some(redirect_uri))?;
        let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
        let (url, state) = client
            .authorize_url(CsrfToken::new_random)
            .add_scopes(SCOPES.iter().map(|s| Scope::new((*s).to_owned())))
            .set_pkce_challenge(challenge)
            .add_extra_param("access_type", "offline")
            .add_extra_param("prompt", "consent")
            .url();
        Ok(Self {
            url: url.to_string(),
            secrets: secrets.clone(),
            redirect_uri: redirect_uri.to_owned(),
            state,
            verifier,
        })
    }

    /// The loopback address Google sends the browser back to.
    pub fn redirect_uri(&self) -> &str {
        &self.redirect_uri
    }

    /// Reads a redirect's query string (without `?`), checking `state` in constant time.
    pub fn check(&self, query: &str) -> Result<Redirect, RedirectRejection> {
        let mut code = None;
        let mut error = None;
        let mut state = None;
        for (key, value) in
            oauth2::url::form_urlencoded::parse(query.trim_start_matches('?').as_bytes())
        {
            match key.as_ref() {
                "code" => code = Some(value.into_owned()),
                "error" => error = Some(value.into_owned()),
                "state" => state = Some(value.into_owned()),
                _ => {}
            }
        }
        if code.is_none() && error.is_none() {
            return Err(RedirectRejection::NotARedirect);
        }
        let expected = self.state.secret().as_bytes();
        let matches = state.is_some_and(|given| constant_time_eq(given.as_bytes(), expected));
        if !matches {
            return Err(RedirectRejection::WrongState);
        }
        Ok(match (error, code) {
            (Some(error), _) => Redirect::Denied(error),
            (None, Some(code)) => Redirect::Code(code),
            (None, None) => return Err(RedirectRejection::NotARedirect),
        })
    }

    /// Exchanges `code` (with the PKCE verifier) for tokens.
    pub async fn exchange(
        &self,
        http: &reqwest::Client,
        code: String,
    ) -> Result<StoredToken, AuthError> {
        let client = oauth_client(&self.secrets, Some(&self.redirect_uri))?;
        let verifier = PkceCodeVerifier::new(self.verifier.secret().clone());
        let response = client
            .exchange_code(AuthorizationCode::new(code))
            .set_pkce_verifier(verifier)
            .request_async(http)
            .await
            .map_err(|error| AuthError::Exchange(describe_token_error(&error)))?;
        Ok(stored_token(&self.secrets, &response, None, Utc::now()))
    }
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Builds `token.json` from a token answer; a refresh answer without a new refresh token keeps
/// `previous_refresh`.
fn stored_token(
    secrets: &ClientSecrets,
    response: &BasicTokenResponse,
    previous_refresh: Option<&str>,
    now: DateTime<Utc>,
) -> StoredToken {
    let expiry = response.expires_in().map(|lifetime| {
        let lifetime = chrono::Duration::from_std(lifetime).unwrap_or(chrono::Duration::hours(1));
        (now + lifetime).to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
    });
    let scopes = match response.scopes() {
        Some(scopes) => scopes.iter().map(|s| s.to_string()).collect(),
        None => SCOPES.iter().map(|s| (*s).to_owned()).collect(),
    };
    StoredToken {
        token: Some(response.access_token().secret().clone()),
        refresh_token: response
            .refresh_token()
            .map(|t| t.secret().clone())
            .or_else(|| previous_refresh.map(str::to_owned)),
        token_uri: Some(secrets.token_uri.clone()),
        client_id: Some(secrets.client_id.clone()),
        client_secret: secrets.client_secret.clone(),
        scopes,
        expiry,
    }
}

/// Why a refresh failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RefreshFailure {
    /// The token endpoint refused the refresh token for good (`invalid_grant` and the like):
    /// a new consent is needed (GOO-2).
    Permanent(String),
    /// The network or the endpoint failed; trying later may work.
    Transient(String),
}

/// The client a stored token refreshes with: its own `client_id` / `token_uri`, else those of
/// `credentials.json`.
pub fn refresh_client(token: &StoredToken, fallback: Option<&ClientSecrets>) -> ClientSecrets {
    let pick = |own: &Option<String>, other: Option<&String>, default: &str| {
        own.clone()
            .or_else(|| other.cloned())
            .unwrap_or_else(|| default.to_owned())
    };
    ClientSecrets {
        client_id: pick(
            &token.client_id,
            fallback.map(|s| &s.client_id),
            Default::default(),
        ),
        client_secret: token
            .client_secret
            .clone()
            .or_else(|| fallback.and_then(|s| s.client_secret.clone())),
        auth_uri: fallback.map_or_else(
            || super::files::DEFAULT_AUTH_URI.to_owned(),
            |s| s.auth_uri.clone(),
        ),
        token_uri: pick(
            &token.token_uri,
            fallback.map(|s| &s.token_uri),
            super::files::DEFAULT_TOKEN_URI,
        ),
    }
}

/// Refreshes `token` at its token endpoint.
pub async fn refresh(
    http: &reqwest::Client,
    secrets: &ClientSecrets,
    token: &StoredToken,
) -> Result<StoredToken, RefreshFailure> {
    let Some(refresh_token) = token.refresh() else {
        return Err(RefreshFailure::Permanent("no refresh token".to_owned()));
    };
    let client =
        oauth_client(secrets, None).map_err(|e| RefreshFailure::Permanent(e.to_string()))?;
    let answer = client
        .exchange_refresh_token(&RefreshToken::new(refresh_token.to_owned()))
        .request_async(http)
        .await;
    match answer {
        Ok(response) => {
            let mut fresh = stored_token(secrets, &response, Some(refresh_token), Utc::now());
            if response.scopes().is_none() && !token.scopes.is_empty() {
                fresh.scopes.clone_from(&token.scopes);
            }
            Ok(fresh)
        }
        Err(RequestTokenError::ServerResponse(response)) => {
            let message = describe_token_error::<reqwest::Error>(
                &RequestTokenError::ServerResponse(response.clone()),
            );
            match response.error() {
                BasicErrorResponseType::Extension(code)
                    if matches!(code.as_str(), "server_error" | "temporarily_unavailable") =>
                {
                    Err(RefreshFailure::Transient(message))
                }
                _ => Err(RefreshFailure::Permanent(message)),
            }
        }
        Err(error) => Err(RefreshFailure::Transient(describe_token_error(&error))),
    }
}

/// A one-line description of a token endpoint failure (never a token).
fn describe_token_error<E: std::error::Error + 'static>(
    error: &RequestTokenError<oauth2::HttpClientError<E>, oauth2::basic::BasicErrorResponse>,
) -> String {
    match error {
        RequestTokenError::ServerResponse(response) => match response.error_description() {
            Some(description) => format!("{}: {description}", response.error()),
            None => response.error().to_string(),
        },
        RequestTokenError::Request(error) => format!("token endpoint unreachable: {error}"),
        RequestTokenError::Parse(_, body) => format!(
            "token endpoint answered something unexpected ({} bytes)",
            body.len()
        ),
        RequestTokenError::Other(message) => message.clone(),
    }
}

impl From<RefreshFailure> for GoogleError {
    fn from(failure: RefreshFailure) -> Self {
        match failure {
            RefreshFailure::Permanent(_) => GoogleError::Revoked,
            RefreshFailure::Transient(reason) => GoogleError::RefreshFailed(reason),
        }
    }
}

#[cfg(test)]
#[path = "oauth_tests.rs"]
mod tests;
