//! The keys a frontmatter has that its format doesn't (issue 24 §4): a misspelt
//! `backgroud: true` is otherwise silently ignored. Such a file still loads; each note is for
//! the owner (`doctor`, the log) and, for the job formats, the agent.
//!
//! Two strictnesses: [`unknown_key_notes`] for the bot's own formats (routines, reminders,
//! webhook specs), where every key is known, and [`typo_notes`] for the Claude Code CLI's
//! formats (skills, subagents), where the CLI honours keys we don't model: only a key close to
//! a known one is noted, so a key the CLI knows never raises a false alarm.

use serde_yaml::Value;

use super::{frontmatter::split, spelling::nearest};

/// The frontmatter keys as written (string keys only).
pub fn written_keys(yaml: &str) -> Vec<String> {
    match serde_yaml::from_str::<Value>(yaml) {
        Ok(Value::Mapping(mapping)) => mapping
            .keys()
            .filter_map(|key| key.as_str().map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    }
}

/// The keys of `text`'s frontmatter that `known` lacks, each with the nearest known key when
/// one is close. `snake_case` spellings of kebab-case keys count as known.
fn unknown_keys<'a>(text: &str, known: &[&'a str]) -> Vec<(String, Option<&'a str>)> {
    let Ok((yaml, _)) = split(text) else {
        return Vec::new();
    };
    let normal = |key: &str| key.replace('_', "-");
    let is_known = |key: &str| known.iter().any(|k| normal(k) == normal(key));
    written_keys(yaml)
        .into_iter()
        .filter(|key| !is_known(key))
        .map(|key| {
            let near = nearest(&normal(&key), known.iter().copied());
            (key, near)
        })
        .collect()
}

fn note(key: &str, near: Option<&str>) -> String {
    let hint = near
        .map(|near| format!(" (did you mean \"{near}\"?)"))
        .unwrap_or_default();
    format!("unknown key \"{key}\" is ignored{hint}")
}

/// One note per key of `text`'s frontmatter that `known` lacks (a format whose every key
/// `known` lists).
pub fn unknown_key_notes(text: &str, known: &[&str]) -> Vec<String> {
    unknown_keys(text, known)
        .into_iter()
        .map(|(key, near)| note(&key, near))
        .collect()
}

/// One note per key of `text`'s frontmatter that looks like a misspelling of one in `known`
/// (a format whose owner may honour keys `known` doesn't list).
pub fn typo_notes(text: &str, known: &[&str]) -> Vec<String> {
    unknown_keys(text, known)
        .into_iter()
        .filter_map(|(key, near)| near.map(|near| note(&key, Some(near))))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const KNOWN: [&str; 3] = ["name", "description", "allowed-tools"];

    #[test]
    fn every_unknown_key_or_only_the_misspelt_ones() {
        let text = "---\nname: a\ndescripton: b\nallowed_tools: Read\nlicense: MIT\n---\nbody\n";
        assert_eq!(
            unknown_key_notes(text, &KNOWN),
            [
                "unknown key \"descripton\" is ignored (did you mean \"description\"?)",
                "unknown key \"license\" is ignored",
            ]
        );
        assert_eq!(
            typo_notes(text, &KNOWN),
            ["unknown key \"descripton\" is ignored (did you mean \"description\"?)"]
        );
        assert!(unknown_key_notes("no frontmatter", &KNOWN).is_empty());
        assert!(unknown_key_notes("---\n: [broken\n---\n", &KNOWN).is_empty());
    }
}
