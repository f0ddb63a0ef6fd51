//! Proving a request comes from the secret's holder (WHK-3 and signed mode): the bearer header
//! compared in constant time, and for `signature: hmac-sha256` specs an HMAC-SHA256 over
//! `<timestamp>.<body>` that must be fresh and never seen before.
//!
//! Signed requests carry `X-Ollim-Timestamp: <unix seconds>` and
//! `X-Ollim-Signature: <hex>` (a `sha256=` prefix is accepted, the way GitHub writes it), and
//! the bearer header as well. A timestamp more than [`SIGNATURE_WINDOW_SECS`] away from the
//! server's clock is refused, and a signature is remembered for as long as its timestamp is
//! acceptable, so the same request can't be accepted twice.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::config::WebhookSecret;

/// How far a signed request's timestamp may be from the server's clock, either way.
pub const SIGNATURE_WINDOW_SECS: i64 = 300;
/// The signed request's timestamp header (unix seconds).
pub const TIMESTAMP_HEADER: &str = "x-ollim-timestamp";
/// The signed request's signature header (hex HMAC-SHA256, optionally `sha256=`-prefixed).
pub const SIGNATURE_HEADER: &str = "x-ollim-signature";
/// How many signatures the replay cache holds at most.
pub const REPLAY_CAPACITY: usize = 4096;

/// Whether `header` (the raw `Authorization` value) is exactly `Bearer <secret>`. Both sides
/// are hashed first, so the comparison takes the same time whatever the header's length.
pub fn bearer_matches(header: Option<&[u8]>, secret: &WebhookSecret) -> bool {
    let mut expected = Sha256::new();
    expected.update(b"Bearer ");
    expected.update(secret.expose().as_bytes());
    let given = Sha256::digest(header.unwrap_or_default());
    expected
        .finalize()
        .as_slice()
        .ct_eq(given.as_slice())
        .into()
}

/// Why a signed request was refused (all answer 401, except a full replay cache: 429).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SignatureFailure {
    /// A header is missing.
    #[error("the X-Ollim-Timestamp or X-Ollim-Signature header is missing")]
    MissingHeaders,
    /// The timestamp is not whole unix seconds.
    #[error("X-Ollim-Timestamp is not a unix time in seconds")]
    BadTimestamp,
    /// The timestamp is outside the window.
    #[error("X-Ollim-Timestamp is {0} s away from the server's clock (at most 300 s)")]
    Stale(i64),
    /// The signature is not hex of the right length.
    #[error("X-Ollim-Signature is not a hex HMAC-SHA256")]
    Malformed,
    /// The signature doesn't match the body and timestamp.
    #[error("X-Ollim-Signature does not match the body and timestamp")]
    Mismatch,
    /// This exact signature was accepted before.
    #[error("this signed request was already accepted (replay)")]
    Replayed,
    /// Too many recent signatures are remembered to accept another now.
    #[error("too many signed requests in the last 300 s")]
    CacheFull,
}

/// A verified signature: the MAC and the timestamp it covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Signed {
    tag: [u8; 32],
    timestamp: i64,
}

/// The hex HMAC-SHA256 of `<timestamp>.<body>` under `secret`: what a sender puts in
/// `X-Ollim-Signature`.
pub fn sign(secret: &str, timestamp: i64, body: &[u8]) -> String {
    let tag = mac(secret.as_bytes(), timestamp, body);
    hex(&tag)
}

/// Lowercase hex of `bytes`.
fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        out.push(char::from(DIGITS[usize::from(byte >> 4)]));
        out.push(char::from(DIGITS[usize::from(byte & 0x0f)]));
    }
    out
}

fn mac(secret: &[u8], timestamp: i64, body: &[u8]) -> [u8; 32] {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret).expect("HMAC takes keys of any length");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    mac.finalize().into_bytes().into()
}

/// Checks a signed request's headers against `body` at `now`: timestamp window first, then
/// the MAC (constant-time). Replays are the [`ReplayCache`]'s to catch.
pub fn verify_signature(
    secret: &WebhookSecret,
    timestamp: Option<&str>,
    signature: Option<&str>,
    body: &[u8],
    now: DateTime<Utc>,
) -> Result<Signed, SignatureFailure> {
    let (Some(timestamp), Some(signature)) = (timestamp, signature) else {
        return Err(SignatureFailure::MissingHeaders);
    };
    let timestamp: i64 = timestamp
        .trim()
        .parse()
        .map_err(|_| SignatureFailure::BadTimestamp)?;
    let skew = now.timestamp().saturating_sub(timestamp).saturating_abs();
    if skew > SIGNATURE_WINDOW_SECS {
        return Err(SignatureFailure::Stale(skew));
    }
    let signature = signature.trim();
    let hex = signature.strip_prefix("sha256=").unwrap_or(signature);
    let given = decode_hex(hex).ok_or(SignatureFailure::Malformed)?;
    let tag = mac(secret.expose().as_bytes(), timestamp, body);
    if bool::from(tag.ct_eq(&given)) {
        Ok(Signed { tag, timestamp })
    } else {
        Err(SignatureFailure::Mismatch)
    }
}

fn decode_hex(text: &str) -> Option<[u8; 32]> {
    let bytes = text.as_bytes();
    if bytes.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (slot, pair) in out.iter_mut().zip(bytes.chunks_exact(2)) {
        let pair = std::str::from_utf8(pair).ok()?;
        *slot = u8::from_str_radix(pair, 16).ok()?;
    }
    Some(out)
}

/// The signatures accepted within the window, so none is accepted twice. Each is forgotten
/// once its timestamp leaves the window; at most `capacity` are held.
#[derive(Debug)]
pub struct ReplayCache {
    forget_after: HashMap<[u8; 32], i64>,
    capacity: usize,
}

impl Default for ReplayCache {
    fn default() -> Self {
        Self::new(REPLAY_CAPACITY)
    }
}

impl ReplayCache {
    /// An empty cache holding at most `capacity` signatures.
    pub fn new(capacity: usize) -> Self {
        Self {
            forget_after: HashMap::new(),
            capacity,
        }
    }

    /// Whether `signed` was accepted before (and is still remembered).
    pub fn seen(&self, signed: &Signed) -> bool {
        self.forget_after.contains_key(&signed.tag)
    }

    /// Remembers `signed` as accepted at `now`; refuses a replay, or any new signature while
    /// the cache is full of ones still inside the window.
    pub fn record(&mut self, signed: &Signed, now: DateTime<Utc>) -> Result<(), SignatureFailure> {
        let now = now.timestamp();
        self.forget_after.retain(|_, last| *last >= now);
        if self.seen(signed) {
            return Err(SignatureFailure::Replayed);
        }
        if self.forget_after.len() >= self.capacity {
            return Err(SignatureFailure::CacheFull);
        }
        self.forget_after.insert(
            signed.tag,
            signed.timestamp.saturating_add(SIGNATURE_WINDOW_SECS),
        );
        Ok(())
    }

    /// How many signatures are held.
    pub fn len(&self) -> usize {
        self.forget_after.len()
    }

    /// Whether none is held.
    pub fn is_empty(&self) -> bool {
        self.forget_after.is_empty()
    }
}

#[cfg(test)]
#[path = "auth_tests.rs"]
mod tests;
