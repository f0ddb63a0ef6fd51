//! The fake's OAuth endpoints: `GET /o/oauth2/auth` (consent granted at once: a 302 to the
//! redirect URI with a code and the caller's `state`) and `POST /token` (code exchange with a
//! PKCE check, refresh with revocable refresh tokens).

use axum::http::StatusCode;
use base64::Engine;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::state::{GoogleData, IssuedCode};

pub(super) type Answer = (StatusCode, Vec<(String, String)>, Value);

fn param<'a>(pairs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    pairs
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

fn oauth_error(status: StatusCode, error: &str, description: &str) -> Answer {
    (
        status,
        Vec::new(),
        json!({"error": error, "error_description": description}),
    )
}

/// The consent screen, already agreed to: redirect back with a code (or `error` when the
/// query asks for `fake_deny`).
pub(super) fn authorize(data: &mut GoogleData, query: &[(String, String)]) -> Answer {
    let (Some(redirect), Some(challenge)) =
        (param(query, "redirect_uri"), param(query, "code_challenge"))
    else {
        return oauth_error(StatusCode::BAD_REQUEST, "invalid_request", "missing params");
    };
    if param(query, "code_challenge_method") != Some("S256")
        || param(query, "client_id") != Some(super::CLIENT_ID)
    {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            "bad client/pkce",
        );
    }
    let state = param(query, "state").unwrap_or_default();
    let code = data.next_id("4/fake-code-");
    data.codes.insert(
        code.clone(),
        IssuedCode {
            challenge: challenge.to_owned(),
            redirect_uri: redirect.to_owned(),
        },
    );
    let state: String = form_encode(state);
    let location = format!("{redirect}?state={state}&code={code}&scope=x");
    (
        StatusCode::FOUND,
        vec![("location".to_owned(), location)],
        Value::Null,
    )
}

fn form_encode(raw: &str) -> String {
    raw.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// `POST /token`.
pub(super) fn token(data: &mut GoogleData, form: &[(String, String)]) -> Answer {
    if param(form, "client_id") != Some(super::CLIENT_ID)
        || param(form, "client_secret") != Some(super::CLIENT_SECRET)
    {
        return oauth_error(StatusCode::UNAUTHORIZED, "invalid_client", "Unauthorized");
    }
    match param(form, "grant_type") {
        Some("authorization_code") => {
            let code = param(form, "code").unwrap_or_default();
            let Some(issued) = data.codes.remove(code) else {
                return oauth_error(StatusCode::BAD_REQUEST, "invalid_grant", "Bad code");
            };
            let verifier = param(form, "code_verifier").unwrap_or_default();
            let computed = base64::engine::general_purpose::URL_SAFE_NO_PAD
                .encode(Sha256::digest(verifier.as_bytes()));
            if computed != issued.challenge {
                return oauth_error(StatusCode::BAD_REQUEST, "invalid_grant", "PKCE mismatch");
            }
            if param(form, "redirect_uri") != Some(issued.redirect_uri.as_str()) {
                return oauth_error(StatusCode::BAD_REQUEST, "redirect_uri_mismatch", "uri");
            }
            let (access, refresh) = data.issue_pair(true);
            let body = json!({
                "access_token": access, "refresh_token": refresh, "expires_in": data.expires_in,
                "scope": "https://www.googleapis.com/auth/tasks https://www.googleapis.com/auth/calendar.events https://www.googleapis.com/auth/gmail.readonly",
                "token_type": "Bearer",
            });
            (StatusCode::OK, Vec::new(), body)
        }
        Some("refresh_token") => {
            let refresh = param(form, "refresh_token").unwrap_or_default();
            if data.refresh.get(refresh) != Some(&true) {
                return oauth_error(
                    StatusCode::BAD_REQUEST,
                    "invalid_grant",
                    "Token has been expired or revoked.",
                );
            }
            let access = data.issue_access();
            let body = json!({
                "access_token": access, "expires_in": data.expires_in,
                "scope": "https://www.googleapis.com/auth/tasks", "token_type": "Bearer",
            });
            (StatusCode::OK, Vec::new(), body)
        }
        _ => oauth_error(StatusCode::BAD_REQUEST, "unsupported_grant_type", "grant"),
    }
}
