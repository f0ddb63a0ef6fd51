//! What `claude auth login` says: whether a line is its failure, and its last words without
//! the prompt, for the owner (issue 24 §7).

/// `: <the CLI's words>`, with the cause in plain words when it is the network (issue 24 §7:
/// offline, "Login failed" alone named the wrong cause).
pub(super) fn refusal_detail(said: Option<&str>) -> String {
    let Some(said) = said else {
        return String::new();
    };
    let cause = if ["ENOTFOUND", "EAI_AGAIN"]
        .iter()
        .any(|code| said.contains(code))
    {
        " (Claude's login server's name doesn't resolve: no network or no DNS)"
    } else if [
        "ECONNREFUSED",
        "ETIMEDOUT",
        "ENETUNREACH",
        "ECONNRESET",
        "EHOSTUNREACH",
    ]
    .iter()
    .any(|code| said.contains(code))
    {
        " (Claude's login server can't be reached: check the network)"
    } else {
        ""
    };
    format!(": {said}{cause}")
}

/// Whether `line` is the CLI saying the login failed (`Couldn't log in: …`, `Login failed`).
pub(super) fn says_failed(line: &str) -> bool {
    let line = line.to_ascii_lowercase();
    line.contains("couldn't log in") || line.contains("login failed")
}

/// What an output line of `claude auth login` says, without a `Paste code … >` prompt the
/// line may start with; `None` when nothing is left.
pub(super) fn last_words(line: &str) -> Option<String> {
    let text = match line.rsplit_once("> ") {
        Some((prompt, rest)) if prompt.contains("Paste code") => rest,
        _ => line,
    };
    let text = text.trim();
    (!text.is_empty() && !text.contains("Paste code")).then(|| text.to_owned())
}
