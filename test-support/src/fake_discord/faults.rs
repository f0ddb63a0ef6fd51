//! Scripted REST failures: arbitrary errors and 429 rate limits.
//!
//! Note: serenity 0.12.5 only honours `HttpBuilder::proxy` with the ratelimiter
//! disabled, so a 429 reaches the bot as `HttpError::UnsuccessfulRequest` (status
//! 429) instead of being retried by serenity.

use serde_json::{Value, json};

use super::FakeDiscord;
use super::state::Fault;

impl FakeDiscord {
    /// The next `times` requests matching `pattern` (`"POST /channels/*/messages"`)
    /// are answered with `status` and `body` (e.g. `json!({"message": "Cannot send
    /// messages to this user", "code": 50007})`). Checked before auth and routing.
    pub fn fail_next(&self, pattern: &str, status: u16, body: Value, times: u32) {
        self.push_fault(Fault {
            pattern: pattern.to_string(),
            status,
            body,
            headers: Vec::new(),
            remaining: times,
            rate_limit: false,
        });
    }

    /// The next `times` requests matching `pattern` get Discord's per-route 429:
    /// `{"message": "You are being rate limited.", "retry_after": secs, "global": false}`
    /// with `Retry-After` and `X-RateLimit-*` headers.
    pub fn set_rate_limit(&self, pattern: &str, retry_after_secs: f64, times: u32) {
        self.push_fault(rate_limit_fault(pattern, retry_after_secs, times, false));
    }

    /// The next `times` requests, whatever their route, get Discord's global 429:
    /// `"global": true` in the body, `X-RateLimit-Global: true` and `X-RateLimit-Scope:
    /// global` headers.
    pub fn set_global_rate_limit(&self, retry_after_secs: f64, times: u32) {
        self.push_fault(rate_limit_fault("*", retry_after_secs, times, true));
    }

    /// How many 429s the fake has answered.
    pub fn rate_limited_count(&self) -> u64 {
        self.shared.lock().rate_limited
    }

    fn push_fault(&self, fault: Fault) {
        if fault.remaining > 0 {
            self.shared.lock().faults.push(fault);
        }
    }
}

fn rate_limit_fault(pattern: &str, retry_after_secs: f64, times: u32, global: bool) -> Fault {
    let mut headers = vec![("retry-after".to_string(), format!("{retry_after_secs}"))];
    if global {
        headers.push(("x-ratelimit-global".to_string(), "true".to_string()));
        headers.push(("x-ratelimit-scope".to_string(), "global".to_string()));
    } else {
        headers.extend([
            ("x-ratelimit-limit".to_string(), "5".to_string()),
            ("x-ratelimit-remaining".to_string(), "0".to_string()),
            (
                "x-ratelimit-reset-after".to_string(),
                format!("{retry_after_secs:.3}"),
            ),
            ("x-ratelimit-scope".to_string(), "user".to_string()),
        ]);
    }
    Fault {
        pattern: pattern.to_string(),
        status: 429,
        body: json!({
            "message": "You are being rate limited.",
            "retry_after": retry_after_secs,
            "global": global,
            "code": 0,
        }),
        headers,
        remaining: times,
        rate_limit: true,
    }
}
