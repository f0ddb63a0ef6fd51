//! Startup greeting and shutdown notice texts (GRT-1, GRT-2, BOOT-8, F-46).

/// Longest shutdown reason, in characters (BOOT-8).
pub const SHUTDOWN_REASON_MAX_CHARS: usize = 200;

/// The first word of the owner's display name, lower-cased (`"Julius Caesar"` → `julius`).
fn first_name(user_name: &str) -> Option<String> {
    user_name.split_whitespace().next().map(str::to_lowercase)
}

/// The startup DM.
///
/// With an existing main session (GRT-1): `hey, i'm back (<version>). picking up where we left
/// off.` Without one, i.e. first run or after `/clear` (GRT-2): a welcome that greets the owner
/// by lower-cased first name, names the bot and its version, says what it helps with and asks
/// what is on their plate today.
pub fn greeting(has_session: bool, user_name: &str, bot_name: &str, version: &str) -> String {
    if has_session {
        return format!("hey, i'm back ({version}). picking up where we left off.");
    }
    let hello = match first_name(user_name) {
        Some(name) => format!("hey {name}!"),
        None => "hey!".to_owned(),
    };
    format!(
        "{hello} i'm {bot_name} ({version}), and i live right here in your DMs. \
         i can run morning check-ins with you, keep your tasks & calendar in order, \
         and send reminders before things slip through the cracks. \
         so, what's on your plate today?"
    )
}

/// The greeting's line when sessions run without containers (issue 39): said at every start
/// until fixed.
pub fn no_container_line(reason: &str) -> String {
    format!(
        "-# ⚠️ no containers: {reason}, so my sessions share what they can see of processes, \
         sockets and each other's Claude state. `ollim-bot doctor` says more."
    )
}

/// The greeting's extra line when the kernel can't confine the agent (issue 23): said at every
/// start until fixed, because the agent then runs with the bot's own guards only.
pub fn no_sandbox_line(reason: &str) -> String {
    format!(
        "-# ⚠️ no sandbox: {reason}, so i run without the kernel boundary that keeps my \
         shells away from your secrets. `ollim-bot doctor` says how to fix it."
    )
}

/// The DM sent before shutting down (BOOT-8): `shutting down: <reason>`, with the reason cut
/// to 200 characters.
pub fn shutdown_notice(reason: &str) -> String {
    let reason = match reason.char_indices().nth(SHUTDOWN_REASON_MAX_CHARS) {
        Some((cut, _)) => &reason[..cut],
        None => reason,
    };
    format!("shutting down: {reason}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn returning_greeting_names_the_version() {
        assert_eq!(
            greeting(true, "Julius Caesar", "ollim-bot", "0.1.0"),
            "hey, i'm back (0.1.0). picking up where we left off."
        );
    }

    #[test]
    fn first_run_greeting_covers_everything() {
        let text = greeting(false, "Julius Caesar", "ollim-bot", "0.1.0");
        assert!(text.starts_with("hey julius!"), "{text}");
        assert!(
            !text.contains("Julius") && !text.contains("caesar"),
            "{text}"
        );
        for part in [
            "ollim-bot",
            "0.1.0",
            "morning check-ins",
            "tasks & calendar",
            "reminders before things slip",
            "what's on your plate today?",
        ] {
            assert!(text.contains(part), "missing {part:?} in {text}");
        }
    }

    #[test]
    fn first_run_greeting_without_a_name() {
        let text = greeting(false, "  ", "ollim-bot", "1.2.3");
        assert!(text.starts_with("hey! i'm ollim-bot (1.2.3)"), "{text}");
    }

    #[test]
    fn unicode_names_are_lower_cased() {
        let text = greeting(false, "ÉLODIE Martin", "ollim-bot", "0.1.0");
        assert!(text.starts_with("hey élodie!"), "{text}");
    }

    #[test]
    fn shutdown_notice_truncates_the_reason_by_chars() {
        assert_eq!(
            shutdown_notice("received SIGTERM"),
            "shutting down: received SIGTERM"
        );
        let long = "é".repeat(SHUTDOWN_REASON_MAX_CHARS + 50);
        assert_eq!(
            shutdown_notice(&long),
            format!("shutting down: {}", "é".repeat(SHUTDOWN_REASON_MAX_CHARS))
        );
        let exact = "x".repeat(SHUTDOWN_REASON_MAX_CHARS);
        assert_eq!(shutdown_notice(&exact), format!("shutting down: {exact}"));
    }
}
