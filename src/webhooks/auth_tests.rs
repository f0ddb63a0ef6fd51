use std::fmt::Write as _;

use chrono::TimeZone;

use super::*;

const SECRET: &str = "s3cret";

fn secret() -> WebhookSecret {
    WebhookSecret::new(SECRET)
}

/// Hex written independently of the code under test.
fn hex_by_hand(bytes: &[u8]) -> String {
    bytes.iter().fold(String::new(), |mut out, b| {
        let _ = write!(out, "{b:02x}");
        out
    })
}

fn t(secs: i64) -> DateTime<Utc> {
    Utc.timestamp_opt(1_700_000_000 + secs, 0).unwrap()
}

fn ts(secs: i64) -> String {
    (1_700_000_000 + secs).to_string()
}

#[test]
fn only_the_exact_bearer_header_passes_whk_3() {
    assert!(bearer_matches(Some(b"Bearer s3cret"), &secret()));
    for header in [
        None,
        Some(&b""[..]),
        Some(b"s3cret"),
        Some(b"Bearer s3cre"),
        Some(b"Bearer s3cret "),
        Some(b"bearer s3cret"),
        Some(b"Bearer  s3cret"),
        Some(b"Basic s3cret"),
    ] {
        assert!(!bearer_matches(header, &secret()), "{header:?}");
    }
}

#[test]
fn a_fresh_correct_signature_passes_with_or_without_the_prefix() {
    let body = br#"{"a":1}"#;
    let sig = sign(SECRET, 1_700_000_000, body);
    assert_eq!(sig.len(), 64);
    assert!(verify_signature(&secret(), Some(&ts(0)), Some(&sig), body, t(0)).is_ok());
    let prefixed = format!("sha256={sig}");
    assert!(verify_signature(&secret(), Some(&ts(0)), Some(&prefixed), body, t(10)).is_ok());
    let upper = sig.to_uppercase();
    assert!(verify_signature(&secret(), Some(&ts(0)), Some(&upper), body, t(0)).is_ok());
}

#[test]
fn the_signature_is_the_hmac_of_timestamp_dot_body() {
    // RFC 4231-style cross-check with a known vector computed independently:
    // HMAC-SHA256(key "key", "The quick brown fox jumps over the lazy dog").
    let mut mac = Hmac::<Sha256>::new_from_slice(b"key").unwrap();
    mac.update(b"The quick brown fox jumps over the lazy dog");
    let known = hex_by_hand(&mac.finalize().into_bytes());
    assert_eq!(
        known,
        "f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8"
    );
    // sign() covers "<timestamp>.<body>".
    let mut mac = Hmac::<Sha256>::new_from_slice(SECRET.as_bytes()).unwrap();
    mac.update(b"1700000000.{}");
    let expected = hex_by_hand(&mac.finalize().into_bytes());
    assert_eq!(sign(SECRET, 1_700_000_000, b"{}"), expected);
}

#[test]
fn the_documented_openssl_one_liner_gives_the_same_signature() {
    // docs/webhook-spec.md: printf '%s.%s' "$ts" "$body" | openssl dgst -sha256 -hmac … -r
    assert_eq!(
        sign(SECRET, 1_700_000_000, br#"{"env":"prod"}"#),
        "ab6d22c978a200fd9ac36842bff16199672a17bb5140112d7819d7b07b3b517b"
    );
}

#[test]
fn wrong_missing_or_stale_signatures_fail() {
    let body = b"{}";
    let sig = sign(SECRET, 1_700_000_000, body);
    let check = |ts: Option<&str>, sig: Option<&str>, body: &[u8], now| {
        verify_signature(&secret(), ts, sig, body, now).unwrap_err()
    };
    assert_eq!(
        check(None, Some(&sig), body, t(0)),
        SignatureFailure::MissingHeaders
    );
    assert_eq!(
        check(Some(&ts(0)), None, body, t(0)),
        SignatureFailure::MissingHeaders
    );
    assert_eq!(
        check(Some("soon"), Some(&sig), body, t(0)),
        SignatureFailure::BadTimestamp
    );
    assert_eq!(
        check(Some(&ts(0)), Some(&sig), body, t(301)),
        SignatureFailure::Stale(301)
    );
    assert_eq!(
        check(Some(&ts(0)), Some(&sig), body, t(-301)),
        SignatureFailure::Stale(301)
    );
    assert_eq!(
        check(Some(&ts(0)), Some("abc"), body, t(0)),
        SignatureFailure::Malformed
    );
    let not_hex = "zz".repeat(32);
    assert_eq!(
        check(Some(&ts(0)), Some(&not_hex), body, t(0)),
        SignatureFailure::Malformed
    );
    assert_eq!(
        check(Some(&ts(0)), Some(&sig), b"{ }", t(0)),
        SignatureFailure::Mismatch
    );
    assert_eq!(
        check(Some(&ts(1)), Some(&sig), body, t(0)),
        SignatureFailure::Mismatch
    );
    let other_key = sign("other", 1_700_000_000, body);
    assert_eq!(
        check(Some(&ts(0)), Some(&other_key), body, t(0)),
        SignatureFailure::Mismatch
    );
    // The window's edges are inside.
    assert!(verify_signature(&secret(), Some(&ts(0)), Some(&sig), body, t(300)).is_ok());
    assert!(verify_signature(&secret(), Some(&ts(0)), Some(&sig), body, t(-300)).is_ok());
}

#[test]
fn a_signature_is_accepted_once_within_its_window() {
    let body = b"{}";
    let sig = sign(SECRET, 1_700_000_000, body);
    let signed = verify_signature(&secret(), Some(&ts(0)), Some(&sig), body, t(0)).unwrap();
    let mut cache = ReplayCache::default();
    assert!(!cache.seen(&signed));
    assert_eq!(cache.record(&signed, t(0)), Ok(()));
    assert!(cache.seen(&signed));
    assert_eq!(
        cache.record(&signed, t(200)),
        Err(SignatureFailure::Replayed)
    );
    assert_eq!(
        cache.record(&signed, t(300)),
        Err(SignatureFailure::Replayed)
    );
    // Past the window the entry is forgotten; the timestamp check refuses the request anyway.
    let other = verify_signature(
        &secret(),
        Some(&ts(301)),
        Some(&sign(SECRET, 1_700_000_301, body)),
        body,
        t(301),
    )
    .unwrap();
    assert_eq!(cache.record(&other, t(301)), Ok(()));
    assert!(!cache.seen(&signed));
    assert_eq!(cache.len(), 1);
}

#[test]
fn the_replay_cache_is_bounded() {
    let mut cache = ReplayCache::new(3);
    let signed_at = |secs: i64| {
        let body = format!("{{\"n\":{secs}}}");
        verify_signature(
            &secret(),
            Some(&ts(secs)),
            Some(&sign(SECRET, 1_700_000_000 + secs, body.as_bytes())),
            body.as_bytes(),
            t(secs),
        )
        .unwrap()
    };
    for secs in 0..3 {
        cache.record(&signed_at(secs), t(secs)).unwrap();
    }
    assert_eq!(
        cache.record(&signed_at(3), t(3)),
        Err(SignatureFailure::CacheFull)
    );
    assert_eq!(cache.len(), 3);
    // Once the oldest leaves the window there is room again.
    assert_eq!(cache.record(&signed_at(301), t(301)), Ok(()));
    assert_eq!(cache.len(), 3);
}
