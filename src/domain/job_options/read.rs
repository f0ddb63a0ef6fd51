//! Reading a job's run mode and [`RunOptions`] out of its frontmatter, with the rules the
//! three file kinds share (E.1, E.2, E.3).

use super::{BgSession, RunMode, RunOptions, ToolRestriction, UpdateMode};
use crate::domain::{frontmatter::Fields, model_name::check_model};

/// The frontmatter keys [`RunOptions::read`] reads as text.
pub const OPTION_TEXT_KEYS: &[&str] = &["model", "update-main-session", "subagent", "session"];

/// Every frontmatter key [`RunOptions::read`] reads (the job formats' shared options).
pub const OPTION_KEYS: &[&str] = &[
    "model",
    "thinking",
    "update-main-session",
    "allow-ping",
    "allowed-tools",
    "disallowed-tools",
    "skills",
    "subagent",
    "reflect",
];

/// Which kind of file the options come from; it decides the run mode's keys and defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobKind {
    /// E.1: `background` defaults to false; `session: persistent` is allowed.
    Routine,
    /// E.2: `background` defaults to true.
    Reminder,
    /// E.3: always in the background; no `background` or `session` key.
    Webhook,
}

impl RunMode {
    /// Reads `background`, `isolated` and (routines only) `session` (E.1 `session` rules,
    /// PRS-1). `isolated` on a foreground job is ignored, as every background-only option is.
    pub fn read(fields: &Fields, kind: JobKind) -> Result<Self, String> {
        let background = match kind {
            JobKind::Routine => fields.flag("background", false)?,
            JobKind::Reminder => fields.flag("background", true)?,
            JobKind::Webhook => true,
        };
        let isolated = fields.flag("isolated", false)?;
        // Only routines have the key; elsewhere it is not read at all.
        let persistent = match kind {
            JobKind::Routine => match fields.text("session")? {
                None => false,
                Some(session) if session == "persistent" => true,
                Some(_) => return Err("session must be \"persistent\"".to_owned()),
            },
            JobKind::Reminder | JobKind::Webhook => false,
        };
        Ok(match (background, isolated, persistent) {
            (false, _, true) => {
                return Err("session: persistent requires background: true".to_owned());
            }
            (true, true, true) => {
                return Err("session: persistent can't be combined with isolated: true".to_owned());
            }
            (false, _, false) => Self::Foreground,
            (true, _, true) => Self::Background(BgSession::Persistent),
            (true, true, false) => Self::Background(BgSession::Isolated),
            (true, false, false) => Self::Background(BgSession::Forked),
        })
    }
}

impl RunOptions {
    /// Reads the shared option keys; `allowed-tools` and `disallowed-tools` together are an
    /// error (E.1).
    pub fn read(fields: &Fields) -> Result<Self, String> {
        let update_mode = match fields.text("update-main-session")? {
            None => UpdateMode::default(),
            Some(text) => UpdateMode::parse(&text).ok_or_else(|| {
                "update-main-session must be one of always, on_ping, freely, blocked".to_owned()
            })?,
        };
        let tools = match (
            fields.list("allowed-tools")?,
            fields.list("disallowed-tools")?,
        ) {
            (Some(_), Some(_)) => {
                return Err("allowed-tools and disallowed-tools can't both be set".to_owned());
            }
            (Some(allowed), None) => ToolRestriction::Allowed(allowed),
            (None, Some(disallowed)) => ToolRestriction::Disallowed(disallowed),
            (None, None) => ToolRestriction::None,
        };
        // Checked where it enters (issue 24 §3); a blank one is no model.
        let model = match fields.text("model")? {
            Some(name) if name.trim().is_empty() => None,
            Some(name) => Some(check_model(&name).map_err(|error| error.to_string())?),
            None => None,
        };
        Ok(Self {
            model,
            thinking: fields.flag("thinking", true)?,
            update_mode,
            allow_ping: fields.flag("allow-ping", true)?,
            tools,
            skills: fields.list("skills")?.unwrap_or_default(),
            subagent: fields.text("subagent")?,
            reflect: fields.flag("reflect", true)?,
        })
    }
}
