//! Claude model names, checked where they enter (issue 24 §3): `/model`, `/config
//! model.main|model.fork`, a job's `model:`. A typo is caught there, with what is valid and
//! the nearest alias, instead of failing the next turn or fire.
//!
//! Valid: the Claude Code CLI's aliases (`opus`, `sonnet`, `haiku`, `fable` (CLI 2.1.332 on),
//! `opusplan`, and `opus` / `sonnet` with `[1m]` for the long context) and full model ids — `claude-` followed by the
//! family and version (`claude-sonnet-4-5-20250929`), as the API and the cloud providers spell
//! them (`us.anthropic.claude-…-v1:0`, `claude-opus-4-1@20250805`).

use super::spelling::nearest;

/// The CLI's model aliases.
pub const ALIASES: [&str; 5] = ["opus", "sonnet", "haiku", "fable", "opusplan"];

/// The aliases that take the long-context suffix.
const LONG_CONTEXT: [&str; 2] = ["opus", "sonnet"];

/// Why a name is not a model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown model '{name}'{hint}: use opus, sonnet, haiku, fable or opusplan, or a full model id such as claude-sonnet-4-5"
)]
pub struct UnknownModel {
    name: String,
    hint: String,
}

/// `name` as the CLI takes it (aliases lowercased), or why it isn't a model.
pub fn check_model(name: &str) -> Result<String, UnknownModel> {
    let trimmed = name.trim();
    let lowered = trimmed.to_ascii_lowercase();
    let base = lowered.strip_suffix("[1m]");
    let is_alias = match base {
        Some(base) => LONG_CONTEXT.contains(&base),
        None => ALIASES.contains(&lowered.as_str()),
    };
    if is_alias {
        return Ok(lowered);
    }
    if is_model_id(trimmed) {
        return Ok(trimmed.to_owned());
    }
    let hint = nearest(base.unwrap_or(&lowered), ALIASES)
        .map(|alias| format!(" (did you mean '{alias}'?)"))
        .unwrap_or_default();
    Err(UnknownModel {
        name: trimmed.to_owned(),
        hint,
    })
}

/// A full model id: `claude-` and at least one version digit after it, in the characters ids
/// use.
fn is_model_id(name: &str) -> bool {
    let Some(at) = name.find("claude-") else {
        return false;
    };
    let allowed = |c: char| c.is_ascii_alphanumeric() || "-._:@[]".contains(c);
    name.chars().all(allowed)
        && name[at + "claude-".len()..]
            .chars()
            .any(|c| c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases_and_full_ids_pass_and_typos_say_what_is_valid() {
        for ok in [
            "opus",
            "Sonnet",
            "haiku",
            "opusplan",
            "sonnet[1m]",
            "claude-sonnet-4-5-20250929",
            "claude-opus-4-1",
            "us.anthropic.claude-3-7-sonnet-20250219-v1:0",
            "claude-opus-4-1@20250805",
        ] {
            assert!(check_model(ok).is_ok(), "{ok}");
        }
        assert_eq!(check_model(" Opus ").unwrap(), "opus");
        let error = check_model("sonet").unwrap_err().to_string();
        assert_eq!(
            error,
            "unknown model 'sonet' (did you mean 'sonnet'?): use opus, sonnet, haiku, \
             fable or opusplan, or a full model id such as claude-sonnet-4-5"
        );
        for bad in ["gpt4", "claude-opus", "haiku[1m]", "", "claude 3"] {
            assert!(check_model(bad).is_err(), "{bad}");
        }
        assert!(
            !check_model("gpt4")
                .unwrap_err()
                .to_string()
                .contains("did you mean")
        );
    }
}
