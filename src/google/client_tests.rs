use reqwest::header::{HeaderValue, RETRY_AFTER};

use super::*;

#[test]
fn retry_after_reads_seconds_and_dates() {
    let mut headers = HeaderMap::new();
    assert_eq!(retry_after(&headers), None);
    headers.insert(RETRY_AFTER, HeaderValue::from_static("3"));
    assert_eq!(retry_after(&headers), Some(Duration::from_secs(3)));
    headers.insert(
        RETRY_AFTER,
        HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT"),
    );
    assert_eq!(retry_after(&headers), Some(Duration::ZERO));
}

fn failure(status: u16, body: &str) -> ApiFailure {
    ApiFailure::read(StatusCode::from_u16(status).unwrap(), body.as_bytes())
}

#[test]
fn google_error_bodies_map_to_what_the_owner_should_do() {
    let disabled = failure(
        403,
        r#"{"error":{"code":403,"message":"Tasks API has not been used","errors":[{"reason":"accessNotConfigured"}]}}"#,
    );
    assert!(!disabled.retryable());
    let text = disabled.into_error(Api::Tasks).to_string();
    assert!(text.contains("Google Tasks API is not enabled"), "{text}");
    let scope = failure(
        403,
        r#"{"error":{"code":403,"message":"x","status":"PERMISSION_DENIED","details":[{"reason":"ACCESS_TOKEN_SCOPE_INSUFFICIENT"}]}}"#,
    );
    assert!(matches!(
        scope.into_error(Api::Gmail),
        GoogleError::MissingScope
    ));
    let rate = failure(
        403,
        r#"{"error":{"errors":[{"reason":"userRateLimitExceeded"}],"message":"slow down"}}"#,
    );
    assert!(rate.retryable());
    assert!(matches!(
        rate.into_error(Api::Calendar),
        GoogleError::Quota { api: Api::Calendar }
    ));
    assert!(failure(429, "").retryable());
    assert!(failure(503, "<html>").retryable());
    assert!(!failure(400, "").retryable());
    assert!(matches!(
        failure(404, "{}").into_error(Api::Tasks),
        GoogleError::NotFound
    ));
    let other = failure(400, r#"{"error":{"message":"Invalid due"}}"#).into_error(Api::Tasks);
    assert_eq!(other.to_string(), "Google API error 400: Invalid due");
}

#[test]
fn the_api_base_override_applies_to_every_api() {
    let dir = tempfile::tempdir().unwrap();
    let data_dir = DataDir::new(dir.path());
    let client = GoogleClient::new(&data_dir, Some("http://127.0.0.1:7/ "));
    assert_eq!(
        client.url(Api::Tasks, "lists/x/tasks"),
        "http://127.0.0.1:7/tasks/v1/lists/x/tasks"
    );
    assert_eq!(
        client.url(Api::Gmail, "users/me/labels"),
        "http://127.0.0.1:7/gmail/v1/users/me/labels"
    );
    let default = GoogleClient::new(&data_dir, Some(""));
    assert_eq!(
        default.url(Api::Calendar, "users/me/calendarList"),
        "https://www.googleapis.com/calendar/v3/users/me/calendarList"
    );
}
