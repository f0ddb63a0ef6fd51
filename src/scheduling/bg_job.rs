//! What a background run is asked to do: the job as the scheduler (or a webhook) hands it over.

use std::path::PathBuf;

use super::files::Reminder;
use crate::{
    claude::Thinking,
    domain::{
        job_options::{ChainContext, ToolRestriction, UpdateMode},
        prompt_tag::PromptTag,
    },
};

/// Where a run's conversation comes from (BGF-3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BgMode {
    /// A branch of the current main session (the default).
    Forked,
    /// A fresh session with no history and no pending updates.
    Isolated,
    /// The routine's own session, resumed fire after fire (PRS).
    Persistent {
        /// The routine whose session file is used.
        routine_id: String,
    },
}

/// One background job.
#[derive(Debug, Clone)]
pub struct BgJob {
    /// The prompt tag, e.g. `[routine-bg:a1b2c3d4]`.
    pub tag: PromptTag,
    /// The job's instructions (the markdown body).
    pub body: String,
    /// Forked, isolated or persistent.
    pub mode: BgMode,
    /// Model override.
    pub model: Option<String>,
    /// Thinking mode; `None` = the CLI's default.
    pub thinking: Option<Thinking>,
    /// Whether it may ping, embed or send files (`allow-ping`).
    pub allow_ping: bool,
    /// How it reports to the main session (`update-main-session`).
    pub update_mode: UpdateMode,
    /// Declared `allowed-tools` / `disallowed-tools`.
    pub tools: ToolRestriction,
    /// Skills to invoke first.
    pub skills: Vec<String>,
    /// A subagent to delegate to.
    pub subagent: Option<String>,
    /// The reminder chain it belongs to.
    pub chain: Option<ChainContext>,
    /// The rendered forward schedule (BGF-15/16), when the scheduler provides one.
    pub schedule_text: Option<String>,
    /// A marker right after the tag, e.g. the late marker of an overdue reminder (REM-4).
    pub marker: Option<String>,
    /// The chain reminder being run, for `follow_up_chain` (REM-8).
    pub chain_origin: Option<Reminder>,
    /// The job's file, relative to the data dir, for messages to the owner.
    pub file: Option<PathBuf>,
}

impl BgJob {
    /// A forked job with the defaults: pings allowed, `on_ping` reporting, no restrictions.
    pub fn new(tag: PromptTag, body: impl Into<String>) -> Self {
        Self {
            tag,
            body: body.into(),
            mode: BgMode::Forked,
            model: None,
            thinking: None,
            allow_ping: true,
            update_mode: UpdateMode::default(),
            tools: ToolRestriction::None,
            skills: Vec::new(),
            subagent: None,
            chain: None,
            schedule_text: None,
            marker: None,
            chain_origin: None,
            file: None,
        }
    }

    /// The job's name for the owner: the tag's id with `-` as spaces, or `bg fork` (BGF-5).
    pub fn display_name(&self) -> String {
        self.tag
            .id()
            .map_or_else(|| "bg fork".to_owned(), |id| id.replace('-', " "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_come_from_the_tag() {
        let job = BgJob::new(PromptTag::RoutineBg("morning-checkin".into()), "x");
        assert_eq!(job.display_name(), "morning checkin");
        assert_eq!(BgJob::new(PromptTag::System, "x").display_name(), "bg fork");
    }
}
