//! What the owner reads when the model API fails a turn (issue 16): a short, specific line
//! (overloaded, rate limited, a server error, credentials refused, unreachable, timed out)
//! instead of the CLI's raw `API Error: …` text, which names internals such as the gateway
//! address. The next message resumes the same conversation.

/// Why the API failed the turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApiFailure {
    /// 529: Anthropic is overloaded.
    Overloaded,
    /// 429: a rate or usage limit.
    RateLimited,
    /// Another 5xx.
    ServerError(u64),
    /// 401 / 403: the key or login was refused.
    CredentialsRefused,
    /// No connection to the API at all.
    Unreachable,
    /// The request took too long.
    TimedOut,
    /// Anything else (another 4xx, an unknown failure).
    Other(Option<u64>),
}

impl ApiFailure {
    /// Whether retrying can't fix it: the key or login was refused (issue 24 §2).
    pub fn is_permanent(status: Option<u64>) -> bool {
        matches!(status, Some(401 | 403))
    }

    /// The status line while the CLI retries after `status` (attempt `attempt` of `max`).
    pub fn retry_line(status: Option<u64>, attempt: u64, max: Option<u64>) -> String {
        let what = match status {
            Some(529) => "Claude is overloaded".to_owned(),
            Some(429) => "Claude's rate limit was hit".to_owned(),
            Some(code @ 500..=599) => format!("Claude's API had a server error ({code})"),
            Some(code) => format!("Claude's API answered {code}"),
            None => "the Claude API isn't answering".to_owned(),
        };
        let of = max.map_or_else(String::new, |max| format!("/{max}"));
        format!("{what} — retrying ({attempt}{of})")
    }

    /// Reads the result's HTTP status and the CLI's error text.
    pub fn classify(status: Option<u64>, text: &str) -> Self {
        let lower = text.to_ascii_lowercase();
        match status {
            Some(529) => Self::Overloaded,
            Some(429) => Self::RateLimited,
            Some(401 | 403) => Self::CredentialsRefused,
            Some(408 | 504) => Self::TimedOut,
            Some(code @ 500..=599) => Self::ServerError(code),
            Some(code) => Self::Other(Some(code)),
            None if lower.contains("overloaded") => Self::Overloaded,
            None if lower.contains("rate limit") || lower.contains("(429)") => Self::RateLimited,
            None if lower.contains("timed out") || lower.contains("timeout") => Self::TimedOut,
            None if lower.contains("unable to connect") || lower.contains("connection") => {
                Self::Unreachable
            }
            None if lower.contains("invalid api key") || lower.contains("authentication") => {
                Self::CredentialsRefused
            }
            None => Self::Other(None),
        }
    }

    /// The line the owner reads.
    pub fn owner_text(self) -> String {
        const AGAIN: &str = "your message is kept; send it again (or anything) to go on.";
        match self {
            Self::Overloaded => {
                format!("Claude is overloaded right now (on Anthropic's side). {AGAIN}")
            }
            Self::RateLimited => {
                format!("I hit Claude's rate limit; give it a minute or two. {AGAIN}")
            }
            Self::ServerError(code) => {
                format!("Claude's API had a server error ({code}). {AGAIN}")
            }
            Self::CredentialsRefused => "Claude refused my credentials: run `ollim-bot auth \
                                         status` (or check ANTHROPIC_API_KEY) on the server."
                .to_owned(),
            Self::Unreachable => {
                format!("I can't reach Claude's API right now (network?). {AGAIN}")
            }
            Self::TimedOut => format!("Claude took too long to answer. {AGAIN}"),
            Self::Other(Some(code)) => {
                format!("Claude's API refused the request ({code}). {AGAIN}")
            }
            Self::Other(None) => format!("Claude's API failed this turn. {AGAIN}"),
        }
    }
}

#[cfg(test)]
#[path = "api_failure_tests.rs"]
mod tests;
