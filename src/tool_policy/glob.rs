//! The glob dialect of file-tool patterns (PRM-9) and the probe that tells whether a
//! `Write(...)`/`Edit(...)` pattern could reach `state/` (PRM-8, PRM-10).
//!
//! `**/` matches zero or more whole directories, `**` anything (slashes included), `*` anything
//! within one path segment, `?` one character other than `/`; every other character is literal.

/// Paths inside `state/` that a write pattern must not be able to match (PRM-8).
const STATE_PROBES: &[&str] = &["state/x", "state/x.json", "state/x.jsonl", "state/sub/x"];

/// Whether `glob` matches the whole of `path` (PRM-9).
pub fn glob_matches(glob: &str, path: &str) -> bool {
    matches(glob.as_bytes(), path.as_bytes())
}

fn matches(glob: &[u8], path: &[u8]) -> bool {
    match glob {
        [] => path.is_empty(),
        [b'*', b'*', b'/', rest @ ..] => {
            // Zero directories, or any number of whole segments followed by `/`.
            matches(rest, path)
                || path
                    .iter()
                    .enumerate()
                    .filter(|(_, b)| **b == b'/')
                    .any(|(i, _)| matches(rest, &path[i + 1..]))
        }
        [b'*', b'*', rest @ ..] => (0..=path.len()).any(|i| matches(rest, &path[i..])),
        [b'*', rest @ ..] => {
            let segment = path.iter().position(|b| *b == b'/').unwrap_or(path.len());
            (0..=segment).any(|i| matches(rest, &path[i..]))
        }
        [b'?', rest @ ..] => path.first().is_some_and(|b| *b != b'/') && matches(rest, &path[1..]),
        [c, rest @ ..] => path.first() == Some(c) && matches(rest, &path[1..]),
    }
}

/// Whether a file-tool argument (the text inside `Write(...)`) could match a file in
/// `state/`. Arguments are relative to the data dir (`./` optional); anything that is not a
/// plain relative glob (absolute, `~`, `..`) counts as reaching `state/`, since it cannot be
/// checked against the data dir's layout. A glob without `/` is also tried at any depth, as
/// the CLI's gitignore-style rules may read it that way.
pub fn could_reach_state(argument: &str) -> bool {
    // `State/` is `state/` on a case-insensitive filesystem (issue 23 §5).
    let argument = argument.trim().to_lowercase();
    let argument = argument.as_str();
    if argument.starts_with('/') || argument.starts_with('~') || argument.contains("..") {
        return true;
    }
    let relative = argument.strip_prefix("./").unwrap_or(argument);
    let anywhere = format!("**/{relative}");
    STATE_PROBES.iter().any(|probe| {
        glob_matches(relative, probe) || (!relative.contains('/') && glob_matches(&anywhere, probe))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn double_star_slash_is_zero_or_more_directories() {
        assert!(glob_matches("**/*.md", "a.md"));
        assert!(glob_matches("**/*.md", "notes/a.md"));
        assert!(glob_matches("**/*.md", "a/b/c.md"));
        assert!(!glob_matches("**/*.md", "a.txt"));
        assert!(glob_matches("routines/**/x", "routines/x"));
        assert!(glob_matches("routines/**/x", "routines/a/b/x"));
    }

    #[test]
    fn single_star_stays_in_its_segment_and_question_mark_is_one_char() {
        assert!(glob_matches("*.md", "a.md"));
        assert!(!glob_matches("*.md", "a/b.md"));
        assert!(glob_matches("**.md", "a/b.md"));
        assert!(glob_matches("state/?", "state/x"));
        assert!(!glob_matches("state/?", "state/xy"));
        assert!(!glob_matches("?", "/"));
        assert!(glob_matches("a[1].md", "a[1].md"), "brackets are literal");
    }

    #[test]
    fn state_probes_catch_every_way_into_state() {
        for reaching in [
            "**",
            "*",
            "*.json",
            "x",
            "**/*",
            "state/**",
            "./state/*",
            "state/*.json",
            "**/*.jsonl",
            "*/x",
            "s*/**",
            "/home/me/.ollim-bot/state/x",
            "~/.ollim-bot/**",
            "routines/../state/x",
            "State/**",
            "STATE/x.json",
        ] {
            assert!(could_reach_state(reaching), "{reaching}");
        }
        for safe in ["./**.md", "**.md", "**/*.md", "routines/*.md", "notes/**"] {
            assert!(!could_reach_state(safe), "{safe}");
        }
    }
}
