//! The interactive fork's words and pictures: the entry and exit embeds (IFK-5, IFK-7), the
//! `[fork-started]`, `[fork-timeout]` and button prompts (IFK-4, IFK-10, IFK-11, IFK-20), and
//! the idle clock (IFK-11).

use std::time::Duration;

use tokio::time::Instant;

use crate::domain::embed::{ButtonStyle, Embed, EmbedButton, EmbedColor};
use crate::domain::fork_control::ExitAction;

/// The note posted before the idle check-in prompt (IFK-11).
pub const IDLE_NOTE: &str = "-# fork idle — checking in...";
/// Posted when a reply to a fork message arrives while another fork is open (RPL-2).
pub const ALREADY_IN_FORK_NOTE: &str = "-# already in a fork — reply added as context instead.";
/// Posted when the replied-to fork session is too old to resume (RPL-3).
pub const EXPIRED_NOTE: &str = "-# this session has expired — starting fresh with quoted context.";
/// The outcome shown when a resumed background run's fork is asked to be saved (issue 23 §4).
pub const RUN_NOT_SAVED: &str =
    "fork discarded (a background run's session can't become the main conversation)";
/// The outcome shown when a fork is saved before it had a session (IFK-8).
pub const NOTHING_TO_SAVE: &str = "fork discarded (no session to save)";

/// The purple embed that opens a fork, with its three persistent exit buttons (IFK-5).
pub fn entry_embed(topic: Option<&str>, note: Option<&str>) -> Embed {
    let mut description = match topic {
        Some(topic) => format!("Topic: {topic}"),
        None => "branched conversation — changes stay separate from main.".to_owned(),
    };
    if let Some(note) = note {
        description.push('\n');
        description.push_str(note);
    }
    let button = |label: &str, action: &str, style| EmbedButton::new(label, action, style);
    Embed {
        title: "Forked Session".to_owned(),
        description: Some(description),
        color: EmbedColor::Purple,
        fields: Vec::new(),
        buttons: vec![
            button("Save Context", "fork_save", ButtonStyle::Success),
            button("Report", "fork_report", ButtonStyle::Primary),
            button("Exit Fork", "fork_exit", ButtonStyle::Danger),
        ],
        footer: None,
    }
}

/// The embed that opens a fork resumed from a background run's session (issue 23 §4): it says
/// which run it is and that it keeps that run's tools. It can't be saved as the main
/// conversation, so it has no Save button.
pub fn resumed_run_embed(job: &str, allowed_tools: &[String]) -> Embed {
    let tools = if allowed_tools.is_empty() {
        "no tools of its own".to_owned()
    } else {
        allowed_tools.join(", ")
    };
    let mut embed = entry_embed(None, None);
    "Resumed Background Session".clone_into(&mut embed.title);
    embed.description = Some(format!(
        "This continues the background run of {job}, which may have read untrusted text. It \
         keeps that run's tools ({tools}); anything more needs your approval. Report brings \
         its findings to the main conversation."
    ));
    embed.color = EmbedColor::Yellow;
    embed.buttons.retain(|button| button.action != "fork_save");
    embed
}

/// The embed that closes a fork (IFK-7).
pub fn exit_embed(action: ExitAction, description: Option<String>) -> Embed {
    let (title, color) = match action {
        ExitAction::Save => ("Fork Ended — saved to main", EmbedColor::Green),
        ExitAction::Report => ("Fork Ended — summary queued", EmbedColor::Blue),
        ExitAction::Exit => ("Fork Ended — discarded", EmbedColor::Grey),
    };
    Embed {
        title: title.to_owned(),
        description: description.filter(|text| !text.trim().is_empty()),
        color,
        fields: Vec::new(),
        buttons: Vec::new(),
        footer: None,
    }
}

/// The first prompt of a fork the owner opened, with or without a topic (IFK-4).
pub fn started_prompt(topic: Option<&str>) -> String {
    match topic {
        Some(topic) => format!(
            "[fork-started] The owner opened this fork to talk about: {topic}. Take it up and \
             follow their lead; there is no hurry to leave the fork."
        ),
        None => "[fork-started] The owner opened this fork without a topic. Say briefly that \
                 you're ready and wait for them to tell you what it's for."
            .to_owned(),
    }
}

/// The prompt of a fork resumed by replying to one of its messages (RPL-1, IFK-20).
pub fn reply_resume_prompt(age: &str, owner_text: &str) -> String {
    format!(
        "[fork-started] The owner replied to a message from this earlier session, so it was \
         resumed as a fork. {} \n\n{owner_text}",
        staleness_notice(age)
    )
}

/// The prompt of a fork resumed by a button on one of its messages (BTN-4, IFK-4).
pub fn button_resume_prompt(age: &str, clicked: &str) -> String {
    format!(
        "[fork-started] The owner clicked a button on a message from this earlier session, \
         which was resumed as a fork; its history is yours to use. They chose: {clicked}\n\
         Deal with that, then keep talking with them. When the work is done, show an embed \
         offering the three ways out (save_context, report_updates, exit_fork) and let them \
         pick. {}",
        staleness_notice(age)
    )
}

/// What a resumed fork is told about its age and what it can't do (IFK-20).
pub fn staleness_notice(age: &str) -> String {
    format!(
        "This session is from {age}; the main session has moved on since, so save_context is \
         not available here. Use report_updates to pass anything worth keeping to the main \
         session."
    )
}

/// The first idle check-in (IFK-11).
pub fn idle_prompt(minutes: u64) -> String {
    format!(
        "[fork-timeout] This fork has been idle for {minutes} minutes. Ask the owner whether \
         they are still on it; if the conversation is clearly over, end the fork the way that \
         fits best (save_context, report_updates or exit_fork)."
    )
}

/// The escalated idle prompt after a second full timeout (IFK-11).
pub fn escalated_idle_prompt(minutes: u64) -> String {
    format!(
        "[fork-timeout] This fork has now been idle for {} minutes, after an earlier check-in \
         went unanswered. End it now: report_updates if anything should reach the main \
         session, save_context if the owner wanted this context kept, otherwise exit_fork.",
        minutes * 2
    )
}

/// The prompt behind the **Report** button (IFK-10).
pub const REPORT_BUTTON_PROMPT: &str = "[system] The owner clicked Report on this fork. Call \
     report_updates now with a concise summary of what happened here for the main session, and \
     use no other tool. The fork ends after this reply.";

/// What the idle check should do now (IFK-11).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdleStep {
    /// Nothing yet.
    Wait,
    /// Post the note and the first `[fork-timeout]` prompt.
    CheckIn,
    /// Send the escalated prompt.
    Escalate,
}

/// When the fork last saw activity, and whether it was already prompted.
#[derive(Debug, Clone, Copy)]
pub struct IdleClock {
    last_activity: Instant,
    prompted: bool,
    timeout: Duration,
}

impl IdleClock {
    /// A clock starting at `now` with `timeout_minutes` of allowed silence.
    pub fn new(timeout_minutes: u64, now: Instant) -> Self {
        Self {
            last_activity: now,
            prompted: false,
            timeout: Duration::from_secs(timeout_minutes.max(1) * 60),
        }
    }

    /// The configured timeout in whole minutes.
    pub fn timeout_minutes(&self) -> u64 {
        self.timeout.as_secs() / 60
    }

    /// The owner spoke at `now`: activity, and the check-in mark cleared.
    pub fn owner_activity(&mut self, now: Instant) {
        self.last_activity = now;
        self.prompted = false;
    }

    /// A check-in was sent at `now`: the next full timeout escalates.
    pub fn checked_in(&mut self, now: Instant) {
        self.last_activity = now;
        self.prompted = true;
    }

    /// What to do at `now`.
    pub fn step(&self, now: Instant) -> IdleStep {
        if now.saturating_duration_since(self.last_activity) < self.timeout {
            IdleStep::Wait
        } else if self.prompted {
            IdleStep::Escalate
        } else {
            IdleStep::CheckIn
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn checks_in_after_the_timeout_then_escalates_after_another() {
        let mut clock = IdleClock::new(10, Instant::now());
        assert_eq!(clock.step(Instant::now()), IdleStep::Wait);
        tokio::time::advance(Duration::from_secs(9 * 60 + 59)).await;
        assert_eq!(clock.step(Instant::now()), IdleStep::Wait);
        tokio::time::advance(Duration::from_secs(1)).await;
        assert_eq!(clock.step(Instant::now()), IdleStep::CheckIn);
        clock.checked_in(Instant::now());
        tokio::time::advance(Duration::from_secs(5 * 60)).await;
        assert_eq!(clock.step(Instant::now()), IdleStep::Wait);
        tokio::time::advance(Duration::from_secs(5 * 60)).await;
        assert_eq!(clock.step(Instant::now()), IdleStep::Escalate);
        clock.owner_activity(Instant::now());
        tokio::time::advance(Duration::from_secs(10 * 60)).await;
        assert_eq!(clock.step(Instant::now()), IdleStep::CheckIn);
    }

    #[test]
    fn embeds_match_the_spec() {
        let entry = entry_embed(Some("meal prep"), None);
        assert_eq!(entry.title, "Forked Session");
        assert_eq!(entry.color, EmbedColor::Purple);
        assert_eq!(entry.description.as_deref(), Some("Topic: meal prep"));
        let actions: Vec<_> = entry.buttons.iter().map(|b| b.action.as_str()).collect();
        assert_eq!(actions, ["fork_save", "fork_report", "fork_exit"]);
        let plain = entry_embed(None, None);
        assert_eq!(
            plain.description.as_deref(),
            Some("branched conversation — changes stay separate from main.")
        );
        assert_eq!(
            exit_embed(ExitAction::Exit, None).title,
            "Fork Ended — discarded"
        );
        assert_eq!(exit_embed(ExitAction::Save, None).color, EmbedColor::Green);
        assert_eq!(
            exit_embed(ExitAction::Report, Some("done".into()))
                .description
                .as_deref(),
            Some("done")
        );
    }

    #[test]
    fn every_fork_prompt_carries_its_tag() {
        assert!(started_prompt(Some("x")).starts_with("[fork-started] "));
        assert!(started_prompt(None).starts_with("[fork-started] "));
        assert!(reply_resume_prompt("2 hours ago", "why?").ends_with("\n\nwhy?"));
        assert!(button_resume_prompt("1 day ago", "Snooze").contains("save_context"));
        assert!(idle_prompt(10).contains("10 minutes"));
        assert!(escalated_idle_prompt(10).contains("20 minutes"));
        assert!(REPORT_BUTTON_PROMPT.starts_with("[system] "));
    }
}
