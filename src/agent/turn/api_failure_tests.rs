use super::*;

#[test]
fn statuses_and_texts_are_told_apart() {
    let cases = [
        (
            Some(529),
            "API Error: 529 Overloaded. This is a server-side issue",
            ApiFailure::Overloaded,
        ),
        (
            Some(429),
            "API Error: Request rejected (429)",
            ApiFailure::RateLimited,
        ),
        (
            Some(500),
            "API Error: 500 Internal server error",
            ApiFailure::ServerError(500),
        ),
        (Some(503), "", ApiFailure::ServerError(503)),
        (
            Some(401),
            "Invalid API key · Fix external API key",
            ApiFailure::CredentialsRefused,
        ),
        (Some(504), "", ApiFailure::TimedOut),
        (Some(400), "bad request", ApiFailure::Other(Some(400))),
        (
            None,
            "API Error: Unable to connect to API (ConnectionRefused)",
            ApiFailure::Unreachable,
        ),
        (None, "API Error: Request timed out.", ApiFailure::TimedOut),
        (None, "something odd", ApiFailure::Other(None)),
    ];
    for (status, text, expected) in cases {
        assert_eq!(
            ApiFailure::classify(status, text),
            expected,
            "{status:?} {text}"
        );
    }
}

#[test]
fn the_owner_reads_a_short_specific_line_without_internals() {
    let overloaded = ApiFailure::Overloaded.owner_text();
    assert!(
        overloaded.starts_with("Claude is overloaded right now"),
        "{overloaded}"
    );
    for failure in [
        ApiFailure::Overloaded,
        ApiFailure::RateLimited,
        ApiFailure::ServerError(500),
        ApiFailure::CredentialsRefused,
        ApiFailure::Unreachable,
        ApiFailure::TimedOut,
        ApiFailure::Other(None),
    ] {
        let text = failure.owner_text();
        assert!(text.chars().count() < 120, "{text}");
        assert!(
            !text.contains("127.0.0.1") && !text.contains("API Error"),
            "{text}"
        );
    }
}
