//! The options a job carries, declared once and shared by the files that declare them
//! (routines, reminders, webhook specs), the scheduler that fires them and the runner that
//! runs them: how it runs ([`RunMode`]), the run's options ([`RunOptions`]: model, thinking,
//! reporting, pings, declared tools, skills, subagent, reflection), its place in a reminder
//! chain, and the prompt blocks these become (E.1–E.3, BGF-3, BGF-12, BGF-17, BGF-20, BGF-21,
//! REM-7, PRS-1). What the owner's approval of a job's tools covers is [`ApprovalScope`]
//! (issue 39 §4).

mod approval_scope;
mod read;
#[cfg(test)]
mod tests;

pub use approval_scope::{ApprovalScope, Schedule, Setting, VERSION_PREFIX, chain_settings};
pub use read::{JobKind, OPTION_KEYS, OPTION_TEXT_KEYS};

/// Where a background run's conversation comes from (BGF-3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BgSession {
    /// A branch of the current main session (the default).
    Forked,
    /// A fresh session with no history and no pending updates (`isolated: true`).
    Isolated,
    /// The routine's own session, resumed fire after fire (`session: persistent`, PRS-1).
    Persistent,
}

/// How a job runs: in the owner's main session, or as a background run of one of the three
/// session kinds. Background-only options on a foreground job are ignored (E.1), so the
/// combinations a file can't mean (a foreground persistent routine, an isolated persistent
/// one) have no value here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunMode {
    /// The prompt goes into the main session (RTN-3, REM-5).
    Foreground,
    /// A background run (RTN-4, REM-2, WHK-13).
    Background(BgSession),
}

impl RunMode {
    /// The background session kind; `None` in the foreground.
    pub fn background(self) -> Option<BgSession> {
        match self {
            Self::Foreground => None,
            Self::Background(session) => Some(session),
        }
    }

    /// Whether the job runs in the background.
    pub fn is_background(self) -> bool {
        matches!(self, Self::Background(_))
    }
}

/// The options a job declares for its run, shared by E.1, E.2 and E.3. In the foreground only
/// `skills` applies (SKL-3); the rest shape background runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunOptions {
    /// Model override (`model`).
    pub model: Option<String>,
    /// Extended thinking (`thinking`, default true: adaptive; false: off).
    pub thinking: bool,
    /// How the run reports to the main session (`update-main-session`, default `on_ping`).
    pub update_mode: UpdateMode,
    /// Whether it may ping, embed or send files (`allow-ping`, default true).
    pub allow_ping: bool,
    /// Declared `allowed-tools` / `disallowed-tools` (exclusive).
    pub tools: ToolRestriction,
    /// Skills to invoke first (`skills`); empty = none.
    pub skills: Vec<String>,
    /// The subagent the core task is delegated to (`subagent`).
    pub subagent: Option<String>,
    /// Write a reflection after the run (`reflect`, default true).
    pub reflect: bool,
}

impl Default for RunOptions {
    fn default() -> Self {
        Self {
            model: None,
            thinking: true,
            update_mode: UpdateMode::default(),
            allow_ping: true,
            tools: ToolRestriction::None,
            skills: Vec::new(),
            subagent: None,
            reflect: true,
        }
    }
}

/// How a background run reports to the main session (`update-main-session` field).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum UpdateMode {
    /// Report when a ping or embed was sent; otherwise reporting is optional (the default).
    #[default]
    OnPing,
    /// Always call `report_updates` before finishing.
    Always,
    /// Reporting is entirely optional.
    Freely,
    /// No reporting; `report_updates` is unavailable.
    Blocked,
}

impl UpdateMode {
    /// Parses the frontmatter value (`on_ping`, `always`, `freely`, `blocked`).
    pub fn parse(s: &str) -> Option<Self> {
        match s.trim() {
            "on_ping" => Some(Self::OnPing),
            "always" => Some(Self::Always),
            "freely" => Some(Self::Freely),
            "blocked" => Some(Self::Blocked),
            _ => None,
        }
    }

    /// The frontmatter spelling of the mode.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::OnPing => "on_ping",
            Self::Always => "always",
            Self::Freely => "freely",
            Self::Blocked => "blocked",
        }
    }
}

/// The tool list a job declared (BGF-17, REM-14).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ToolRestriction {
    /// Nothing declared: the default background tool set applies.
    #[default]
    None,
    /// `allowed-tools`: only these tools may be used.
    Allowed(Vec<String>),
    /// `disallowed-tools`: these tools may not be used.
    Disallowed(Vec<String>),
}

impl ToolRestriction {
    /// The `allowed-tools` list, when that is what the job declared.
    pub fn allowed(&self) -> Option<&[String]> {
        match self {
            Self::Allowed(tools) => Some(tools),
            Self::None | Self::Disallowed(_) => None,
        }
    }
}

/// Where a reminder sits in its follow-up chain (REM-6, REM-7).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainContext {
    /// Zero-based `chain-depth` of the firing reminder.
    pub depth: u32,
    /// `max-chain`: how many follow-ups the chain allows (0 = not a chain).
    pub max: u32,
}

impl ChainContext {
    /// The 1-based number of this check.
    pub fn check(&self) -> u64 {
        u64::from(self.depth) + 1
    }

    /// The total number of checks in the chain.
    pub fn total(&self) -> u64 {
        u64::from(self.max) + 1
    }

    /// `true` on the last check, where `follow_up_chain` is no longer available.
    pub fn is_final(&self) -> bool {
        self.depth >= self.max
    }
}

/// The `REQUIRED SKILLS` block (BGF-20); `None` without skills. Also usable in front of a
/// foreground job's body (SKL-3).
pub fn skills_block(skills: &[String]) -> Option<String> {
    if skills.is_empty() {
        return None;
    }
    let mut text = "REQUIRED SKILLS: Before you start on the task, invoke each of these skills \
                    with the Skill tool and follow its instructions:"
        .to_string();
    for skill in skills {
        text.push_str("\n  - ");
        text.push_str(skill);
    }
    Some(text)
}

/// The `REQUIRED SUBAGENT` block (BGF-21); `None` for a blank name.
pub fn subagent_block(name: &str) -> Option<String> {
    let name = name.trim();
    if name.is_empty() {
        return None;
    }
    Some(format!(
        "REQUIRED SUBAGENT: Hand the core of this task to the `{name}` subagent (Agent tool) \
         rather than doing it yourself, then act on what it returns."
    ))
}

/// The chain context (REM-7); `None` when the reminder is not part of a chain (`max` 0).
/// Also usable for foreground chain reminders (REM-5).
pub fn chain_context(chain: &ChainContext) -> Option<String> {
    if chain.max == 0 {
        return None;
    }
    let (check, total) = (chain.check(), chain.total());
    Some(if chain.is_final() {
        format!(
            "CHAIN CONTEXT: This is the FINAL check of a follow-up chain reminder (check \
             {total} of {total}). `follow_up_chain` is NOT available, so this is the last \
             chance to act on it. Ping only if the matter is still unresolved and the user \
             would regret missing it; otherwise call `report_updates`."
        )
    } else {
        format!(
            "CHAIN CONTEXT: This is a follow-up chain reminder (check {check} of {total}). \
             If the matter still needs following up, call \
             `follow_up_chain(minutes_from_now=N)` to schedule the next check; if it is done \
             or no longer needs attention, don't call it and the chain ends here. When you \
             ping, make the follow-up nature clear (e.g. \"checking in again\") so the user \
             knows it is deliberate."
        )
    })
}
