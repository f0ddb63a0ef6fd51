//! CLAUDE AUTH, with a key configured: one real request, so a mistyped or revoked key is
//! caught by `doctor` and not by the first message (issue 24 §2). The request is the API's
//! free token count; the key is sent, never shown.

use std::time::Duration;

use super::{Check, Group};
use crate::config::Launch;

/// Where the API is unless `ANTHROPIC_BASE_URL` says otherwise.
const API: &str = "https://api.anthropic.com";
/// How long the check may take.
const TIMEOUT: Duration = Duration::from_secs(15);

/// What one request said about the credential `name`.
pub(super) fn verdict(name: &str, outcome: Result<u16, String>) -> Check {
    let group = Group::ClaudeAuth;
    match outcome {
        Ok(200..=299) => Check::pass(group, format!("the Claude API accepts {name}")),
        Ok(code @ (401 | 403)) => Check::fail(
            group,
            format!(
                "the Claude API refused {name} ({code}): check it in .env (a key starts \
                 sk-ant-), or remove it and run `ollim-bot auth login`"
            ),
        ),
        Ok(code) => Check::warn(
            group,
            format!("couldn't check {name}: the Claude API answered {code}"),
        ),
        Err(error) => Check::warn(
            group,
            format!("couldn't check {name}: the Claude API isn't reachable ({error})"),
        ),
    }
}

/// The check for the credential variable `name` that `launch` sets, by one request.
pub(super) async fn key_check(launch: &Launch, name: &str) -> Check {
    let Some(secret) = launch.var(name).filter(|v| !v.trim().is_empty()) else {
        return Check::warn(Group::ClaudeAuth, format!("{name} is empty"));
    };
    let base = launch.var("ANTHROPIC_BASE_URL");
    verdict(name, probe(base.as_deref(), name, &secret).await)
}

/// One free request with the credential `secret` of variable `name` to the API at `base`
/// (`None` or blank: Anthropic's): the HTTP status, or why there was none. `setup` asks it
/// too, right after a key is pasted.
pub(crate) async fn probe(base: Option<&str>, name: &str, secret: &str) -> Result<u16, String> {
    let base = base
        .filter(|v| !v.trim().is_empty())
        .unwrap_or(API)
        .to_owned();
    let url = format!("{}/v1/messages/count_tokens", base.trim_end_matches('/'));
    let client = reqwest::Client::builder().timeout(TIMEOUT).build();
    match client {
        Ok(client) => {
            let request = client
                .post(url)
                .header("anthropic-version", "2023-06-01")
                .json(&serde_json::json!({
                    "model": "claude-haiku-4-5",
                    "messages": [{"role": "user", "content": "hi"}],
                }));
            let request = if name == "ANTHROPIC_AUTH_TOKEN" {
                request.bearer_auth(secret.trim())
            } else {
                request.header("x-api-key", secret.trim())
            };
            request
                .send()
                .await
                .map(|response| response.status().as_u16())
                .map_err(|error| error.without_url().to_string())
        }
        Err(error) => Err(error.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::doctor::CheckStatus;

    #[test]
    fn each_answer_says_what_to_do() {
        let key = "ANTHROPIC_API_KEY";
        assert_eq!(verdict(key, Ok(200)).status, CheckStatus::Pass);
        let refused = verdict(key, Ok(401));
        assert_eq!(refused.status, CheckStatus::Fail);
        assert!(refused.text.contains("auth login"), "{}", refused.text);
        assert_eq!(verdict(key, Ok(529)).status, CheckStatus::Warn);
        assert_eq!(
            verdict(key, Err("dns error".into())).status,
            CheckStatus::Warn
        );
    }
}
