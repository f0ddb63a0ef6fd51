//! The message posted before restarting into an update (UPD-6, SLC-11).

/// How many commit subjects the message lists (UPD-6).
pub const SHOWN_SUBJECTS: usize = 5;
/// Longest subject shown, in characters; a longer one is cut with `...`.
const SUBJECT_MAX_CHARS: usize = 200;

/// `updating and restarting...`, then the new commits' one-line subjects (newest first) in a
/// fenced block: at most [`SHOWN_SUBJECTS`], then `... and <n> more`. No block when no commit
/// came in (the release was already checked out, only the install was missing).
pub fn restart_message(subjects: &[String]) -> String {
    let mut text = String::from("updating and restarting...");
    if subjects.is_empty() {
        return text;
    }
    text.push_str("\n```\n");
    for subject in subjects.iter().take(SHOWN_SUBJECTS) {
        text.push_str(&shown_subject(subject));
        text.push('\n');
    }
    if subjects.len() > SHOWN_SUBJECTS {
        text.push_str("... and ");
        text.push_str(&(subjects.len() - SHOWN_SUBJECTS).to_string());
        text.push_str(" more\n");
    }
    text.push_str("```");
    text
}

/// One subject as shown: a fence inside it would end the block, so backticks are softened;
/// cut to [`SUBJECT_MAX_CHARS`].
fn shown_subject(subject: &str) -> String {
    let subject = subject.trim().replace("```", "'''");
    match subject.char_indices().nth(SUBJECT_MAX_CHARS) {
        Some((cut, _)) => format!("{}...", &subject[..cut]),
        None => subject,
    }
}

#[cfg(test)]
#[path = "summary_tests.rs"]
mod tests;
