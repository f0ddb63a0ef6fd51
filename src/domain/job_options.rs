//! The options a scheduled job carries, shared by the files that declare them, the scheduler
//! that fires them and the runner that runs them: how it reports (`update-main-session`), the
//! tools it declared, its place in a reminder chain, and the prompt blocks these become
//! (BGF-12, BGF-17, BGF-20, BGF-21, REM-7).

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
