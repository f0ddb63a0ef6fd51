//! The checks a request goes through, in order, as plain functions (WHK-3…9): the bearer
//! header, the spec lookup, the size cap, the signature of signed specs, the JSON body, the
//! schema, the template's fields. Each refusal is a [`Rejection`] with its exact status and
//! JSON body; the server only does the I/O between them.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use super::{
    auth::{ReplayCache, SignatureFailure, Signed, bearer_matches, verify_signature},
    payload::{Payload, fenced_body, parse_body},
    screening::fields_to_screen,
    spec::{Signature, WebhookSpec},
    store::{SpecError, SpecStore},
    template::missing_fields_message,
};
use crate::config::WebhookSecret;

/// The largest body accepted, in bytes (WHK-5).
pub const MAX_BODY_BYTES: usize = 10 * 1024;
/// The `Retry-After` a busy answer carries, in seconds.
pub const RETRY_AFTER_SECS: u64 = 30;

/// Why a request is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rejection {
    /// 401: no or a wrong bearer header, or a bad/stale/replayed signature (WHK-3).
    Unauthorized,
    /// 404: no spec has this id (WHK-4).
    NotFound(String),
    /// 500: the spec for this id is broken; the message names the file.
    BrokenSpec(SpecError),
    /// 413: the body is over [`MAX_BODY_BYTES`] (WHK-5).
    TooLarge,
    /// 400: the body is not JSON (WHK-6).
    InvalidJson,
    /// 400: the payload fails the schema (WHK-7).
    Validation(Vec<String>),
    /// 400: the template names fields the payload lacks (WHK-8).
    MissingFields(Vec<String>),
    /// 429: too much work in flight; retry after [`RETRY_AFTER_SECS`].
    Busy,
}

impl Rejection {
    /// The HTTP status.
    pub fn status(&self) -> u16 {
        match self {
            Self::Unauthorized => 401,
            Self::NotFound(_) => 404,
            Self::BrokenSpec(_) => 500,
            Self::TooLarge => 413,
            Self::InvalidJson | Self::Validation(_) | Self::MissingFields(_) => 400,
            Self::Busy => 429,
        }
    }

    /// The JSON body.
    pub fn body(&self) -> Value {
        match self {
            Self::Unauthorized => json!({"error": "unauthorized"}),
            Self::NotFound(id) => json!({"error": format!("webhook not found: {id}")}),
            Self::BrokenSpec(error) => json!({"error": error.to_string()}),
            Self::TooLarge => {
                json!({"error": format!("payload too large (at most {MAX_BODY_BYTES} bytes)")})
            }
            Self::InvalidJson => json!({"error": "invalid json"}),
            Self::Validation(details) => {
                json!({"error": "validation failed", "details": details})
            }
            Self::MissingFields(names) => {
                let names: Vec<&str> = names.iter().map(String::as_str).collect();
                json!({"error": missing_fields_message(&names)})
            }
            Self::Busy => json!({"error": "busy: too many webhook requests in progress"}),
        }
    }

    /// The JSON body as sent, keys in the documented order (`error` before `details`).
    pub fn body_text(&self) -> String {
        #[derive(serde::Serialize)]
        struct Failure<'a> {
            error: &'a str,
            details: &'a [String],
        }
        match self {
            Self::Validation(details) => serde_json::to_string(&Failure {
                error: "validation failed",
                details,
            })
            .unwrap_or_else(|_| self.body().to_string()),
            other => other.body().to_string(),
        }
    }

    /// The `Retry-After` seconds, for a busy answer.
    pub fn retry_after(&self) -> Option<u64> {
        matches!(self, Self::Busy).then_some(RETRY_AFTER_SECS)
    }
}

/// The body of the 202 answer (WHK-9).
pub fn accepted_body() -> Value {
    json!({"status": "accepted"})
}

/// Step 1 (WHK-3): the `Authorization` header must be `Bearer <secret>`, before anything else.
pub fn authorize(authorization: Option<&[u8]>, secret: &WebhookSecret) -> Result<(), Rejection> {
    if bearer_matches(authorization, secret) {
        Ok(())
    } else {
        Err(Rejection::Unauthorized)
    }
}

/// Step 2 (WHK-2, WHK-4): the spec with this id, re-read if its file changed.
pub fn lookup(store: &SpecStore, id: &str) -> Result<Arc<WebhookSpec>, Rejection> {
    match store.find(id) {
        Ok(Some(spec)) => Ok(spec),
        Ok(None) => Err(Rejection::NotFound(id.to_owned())),
        Err(error) => Err(Rejection::BrokenSpec(error)),
    }
}

/// Step 3a (WHK-5): a declared `Content-Length` over the cap is refused before reading.
pub fn check_declared_length(content_length: Option<u64>) -> Result<(), Rejection> {
    match content_length {
        Some(length) if length > MAX_BODY_BYTES as u64 => Err(Rejection::TooLarge),
        _ => Ok(()),
    }
}

/// Step 4: for a signed spec, the signature headers against the body at `now`, and not a
/// signature already accepted; `None` for a bearer-only spec.
pub fn check_signature(
    spec: &WebhookSpec,
    secret: &WebhookSecret,
    headers: (Option<&str>, Option<&str>),
    body: &[u8],
    now: DateTime<Utc>,
    replay: &ReplayCache,
) -> Result<Option<Signed>, SignatureFailure> {
    match spec.signature {
        Signature::Bearer => Ok(None),
        Signature::HmacSha256 => {
            let signed = verify_signature(secret, headers.0, headers.1, body, now)?;
            if replay.seen(&signed) {
                return Err(SignatureFailure::Replayed);
            }
            Ok(Some(signed))
        }
    }
}

/// The rejection for a signature failure: busy when the replay cache is full, else 401.
pub fn signature_rejection(failure: SignatureFailure) -> Rejection {
    match failure {
        SignatureFailure::CacheFull => Rejection::Busy,
        _ => Rejection::Unauthorized,
    }
}

/// A request that passed every check: what screening and dispatch need.
#[derive(Debug, Clone, PartialEq)]
pub struct Prepared {
    /// The payload, keys in the order sent.
    pub payload: Payload,
    /// The fenced prompt body (WHK-10), without the `[webhook:<id>] <preamble>` line.
    pub body: String,
    /// The values to screen, `(key, text)` in payload order (WHK-12).
    pub to_screen: Vec<(String, String)>,
}

/// Steps 5–7 (WHK-6, WHK-7, WHK-8): JSON, schema, template; then the fenced body and the
/// values to screen.
pub fn prepare(spec: &WebhookSpec, body: &[u8]) -> Result<Prepared, Rejection> {
    let parsed = parse_body(body).ok_or(Rejection::InvalidJson)?;
    let errors = spec.payload_schema().validate(&parsed.value);
    if !errors.is_empty() {
        return Err(Rejection::Validation(errors));
    }
    let payload = parsed.payload.ok_or_else(|| {
        Rejection::Validation(vec!["the payload must be a JSON object".to_owned()])
    })?;
    let missing = spec.template.missing(&payload);
    if !missing.is_empty() {
        return Err(Rejection::MissingFields(
            missing.into_iter().map(str::to_owned).collect(),
        ));
    }
    let body = fenced_body(&payload, &spec.template.fill(&payload, &spec.schema));
    let to_screen = fields_to_screen(&spec.schema, &payload);
    Ok(Prepared {
        payload,
        body,
        to_screen,
    })
}

#[cfg(test)]
#[path = "request_tests.rs"]
mod tests;
