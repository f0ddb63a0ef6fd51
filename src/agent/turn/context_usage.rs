//! How full the context is after a turn, and the warning shown when it gets high (STR-11,
//! AGT-22).

use crate::claude::Usage;

/// Haiku's context window; a fork that would start above it uses sonnet (IFK-16).
pub const HAIKU_CONTEXT_LIMIT: u64 = 200_000;

/// Context window of a model name or alias: haiku 200k, sonnet and opus 1M (AGT-22).
pub fn context_window(model: Option<&str>) -> u64 {
    match model {
        Some(name) if name.to_ascii_lowercase().contains("haiku") => HAIKU_CONTEXT_LIMIT,
        _ => 1_000_000,
    }
}

/// Tokens in the context after a turn: fresh input plus what came from the prompt cache.
pub fn context_tokens(usage: &Usage) -> u64 {
    usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens
}

/// The warning for `tokens` of context on `model`, if it is over 60 % (STR-11).
pub fn context_warning(tokens: u64, model: Option<&str>) -> Option<String> {
    let window = context_window(model);
    let percent = tokens.saturating_mul(100) / window.max(1);
    let thousands = (tokens + 500) / 1000;
    match percent {
        80.. => Some(format!(
            "-# *context: {percent}% ({thousands}k) — compaction soon, /compact recommended*"
        )),
        61.. => Some(format!(
            "-# *context: {percent}% ({thousands}k) — consider /compact*"
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warnings_start_above_sixty_percent() {
        assert_eq!(
            context_warning(134_000, Some("haiku")).as_deref(),
            Some("-# *context: 67% (134k) — consider /compact*")
        );
        assert_eq!(
            context_warning(170_000, Some("claude-haiku-4-5")).as_deref(),
            Some("-# *context: 85% (170k) — compaction soon, /compact recommended*")
        );
        assert_eq!(context_warning(120_000, Some("haiku")), None);
        assert_eq!(context_warning(134_000, None), None, "opus has a 1M window");
    }

    #[test]
    fn cached_tokens_count() {
        let usage = Usage {
            input_tokens: 10,
            output_tokens: 5,
            cache_read_input_tokens: 1000,
            cache_creation_input_tokens: 200,
        };
        assert_eq!(context_tokens(&usage), 1210);
    }
}
