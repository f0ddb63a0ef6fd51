//! The preamble a background run gets between its prompt tag and its body (BGF-10 … BGF-21,
//! PRS-11, REM-7).
//!
//! [`build_preamble`] assembles the sections in the BGF-10 order, each present only when its
//! condition holds, separated by blank lines. The literal markers quoted by the spec
//! (`Ping budget: …`, `TOOL RESTRICTIONS: …`, `REQUIRED SKILLS`, `CHAIN CONTEXT:` …) are wire
//! formats; the surrounding instructions are our own wording.

use crate::domain::job_options::{
    BgSession, ChainContext, RunOptions, ToolRestriction, UpdateMode, chain_context, skills_block,
    subagent_block,
};

/// Everything the preamble depends on: the job's session kind and declared options, and the
/// facts of this run the background runner gathers.
#[derive(Debug, Clone)]
pub struct PreambleInputs<'a> {
    /// Forked, isolated or persistent; a persistent run gets the session note (PRS-11).
    pub session: BgSession,
    /// The job's options: `allow-ping`, `update-main-session`, the declared tool list (as
    /// admitted), `skills`, `subagent`.
    pub options: &'a RunOptions,
    /// The owner was mid-conversation when the run started (BGF-2).
    pub busy: bool,
    /// The ping budget in its preamble form (PNG-8), present when pinging is allowed.
    pub budget_status: Option<String>,
    /// The rendered forward schedule (BGF-16).
    pub schedule_text: Option<String>,
    /// Declared tools held back until the owner approves them.
    pub held_tools: &'a [String],
    /// The run may use `Task`/`Agent`, so the user-proxy hint applies (BGF-18).
    pub may_delegate: bool,
    /// Google is connected: a token that is valid or can be refreshed (BGF-19, GOO-1).
    pub google_connected: bool,
    /// Chain position, for chain reminders (REM-7).
    pub chain: Option<&'a ChainContext>,
    /// The owner is in quiet time until this local time (`08:00`, issue 28 §2, QUI-4).
    pub quiet_until: Option<String>,
}

/// Builds the preamble: the sections of BGF-10 in order, separated by blank lines, with no
/// leading or trailing newline.
pub fn build_preamble(inputs: &PreambleInputs<'_>) -> String {
    let options = inputs.options;
    let (allow_ping, update_mode) = (options.allow_ping, options.update_mode);
    let mut sections: Vec<String> = Vec::new();
    if inputs.session == BgSession::Persistent {
        sections.push(persistent_note().to_string());
    }
    sections.push(ping_section(allow_ping).to_string());
    sections.push(update_section(update_mode, allow_ping).to_string());
    if inputs.busy && allow_ping {
        sections.push(busy_line(update_mode).to_string());
    }
    if let (Some(until), true) = (&inputs.quiet_until, allow_ping) {
        sections.push(format!(
            "QUIET TIME: the owner is in quiet time until {until}. Pings, embeds and files you \
             send now are held and reach them in one digest then; prefer report_updates, and \
             mark something critical only if it can't wait until {until}."
        ));
    }
    if allow_ping {
        sections.push(budget_section(inputs));
    }
    sections.extend(tool_restrictions(&options.tools));
    sections.extend(held_tools_note(inputs.held_tools));
    if inputs.may_delegate {
        sections.push(USER_PROXY_HINT.to_string());
    }
    sections.push(google_line(inputs.google_connected).to_string());
    sections.extend(skills_block(&options.skills));
    sections.extend(options.subagent.as_deref().and_then(subagent_block));
    sections.extend(inputs.chain.and_then(chain_context));
    sections.join("\n\n")
}

/// The tools a job declared that the owner has not approved: the run must work without them.
fn held_tools_note(held: &[String]) -> Option<String> {
    if held.is_empty() {
        return None;
    }
    let mut text = "HELD BACK: these declared tools are not available this time; they wait for \
                    the owner's one-time approval (asked in Discord). Do the task without them \
                    and say in your report what could not be done:"
        .to_string();
    for tool in held {
        text.push_str("\n  - ");
        text.push_str(tool);
    }
    Some(text)
}

/// The persistent-session note (PRS-11): exactly two lines.
pub fn persistent_note() -> &'static str {
    "SESSION: Persistent — your context carries across fires.\n\
     You have a `compact_session` tool to compress context when it grows large."
}

/// Ping instructions (BGF-11).
fn ping_section(allow_ping: bool) -> &'static str {
    if allow_ping {
        "Nobody reads your text output here; it is discarded. To reach the user, call \
         `ping_user` for a plain-text alert or `discord_embed` for structured information."
    } else {
        "Nobody reads your text output here; it is discarded. Pinging is disabled for this \
         task: `ping_user` and `discord_embed` are not available."
    }
}

/// Update instructions for the `update-main-session` mode (BGF-12).
fn update_section(mode: UpdateMode, allow_ping: bool) -> &'static str {
    match mode {
        UpdateMode::Always => {
            "This is a separate background session, and by default nothing from it reaches \
             the main session. Before you finish you MUST call `report_updates(message)` with \
             a short account of what happened."
        }
        UpdateMode::OnPing => {
            "This is a separate background session, and by default nothing from it reaches \
             the main session.\n\
             - To pass something on, call `report_updates(message)`; the main session sees it \
             on its next turn.\n\
             - If you sent a ping or an embed, you MUST call `report_updates` as well.\n\
             - If nothing useful happened, call neither."
        }
        UpdateMode::Freely => {
            "This is a separate background session, and by default nothing from it reaches \
             the main session. Calling `report_updates(message)` is optional: use it when the \
             main session should know something, or simply finish. If you pinged the user, \
             do report, so the main session knows about that message."
        }
        UpdateMode::Blocked if allow_ping => {
            "Reporting is blocked for this task (`report_updates` is not available): no \
             summary reaches the main session, which won't even know this task ran. You can \
             still ping the user directly about anything time-sensitive."
        }
        UpdateMode::Blocked => {
            "This task runs silently: reporting is blocked (`report_updates` is not \
             available) and nothing from it reaches the main session."
        }
    }
}

/// The quiet-mode line when the owner is mid-conversation (BGF-13).
fn busy_line(mode: UpdateMode) -> &'static str {
    if mode == UpdateMode::Blocked {
        "The user is in the middle of a conversation right now. Don't use `ping_user` or \
         `discord_embed` unless the matter warrants `critical=True`; let anything less \
         urgent go."
    } else {
        "The user is in the middle of a conversation right now. Don't use `ping_user` or \
         `discord_embed` unless the matter warrants `critical=True`; put your findings in \
         `report_updates` instead, and they will show up once the conversation ends."
    }
}

/// Budget status, forward schedule and ping rules (BGF-14); only when pinging is allowed.
fn budget_section(inputs: &PreambleInputs<'_>) -> String {
    let mut lines: Vec<&str> = Vec::new();
    let status_line = inputs
        .budget_status
        .as_deref()
        .map(|status| format!("Ping budget: {status}."));
    lines.extend(status_line.as_deref());
    lines.extend(
        inputs
            .schedule_text
            .as_deref()
            .map(str::trim)
            .filter(|text| !text.is_empty()),
    );
    lines.push("Send at most 1 ping or embed per bg session.");
    if inputs.options.update_mode == UpdateMode::Blocked {
        lines.push(
            "Regret test before any ping: would the user be sorry to have missed it? Skip \
             low-stakes check-ins altogether; time-sensitive actions, accountability nudges \
             and health routines deserve a ping.",
        );
    } else {
        lines.push(
            "Regret test before any ping: would the user be sorry to have missed it? \
             Informational summaries and low-stakes check-ins belong in `report_updates`; \
             time-sensitive actions, accountability nudges and health routines deserve a ping.",
        );
    }
    lines.push("When the budget is tight, spend pings only on tasks that pass the regret test.");
    lines.push(
        "`critical=True` bypasses the budget; keep it for things the user would be \
         devastated to miss.",
    );
    lines.join("\n")
}

/// The declared tool list (BGF-17); `None` when the job declared nothing.
fn tool_restrictions(tools: &ToolRestriction) -> Option<String> {
    let (header, list) = match tools {
        ToolRestriction::None => return None,
        ToolRestriction::Allowed(list) => (
            "TOOL RESTRICTIONS: Only these tools are available for this task:",
            list,
        ),
        ToolRestriction::Disallowed(list) => (
            "TOOL RESTRICTIONS: These tools are NOT available for this task:",
            list,
        ),
    };
    let mut text = header.to_string();
    for tool in list {
        text.push_str("\n  - ");
        text.push_str(tool);
    }
    Some(text)
}

/// User-proxy hint (BGF-18).
const USER_PROXY_HINT: &str = "For preference decisions, spawn the user-proxy subagent \
     (Agent tool) instead of guessing what the user would choose.";

/// Google status line (BGF-19).
fn google_line(connected: bool) -> &'static str {
    if connected {
        "Google is connected: the Google tools this task has (`google_tasks`, and \
         `google_calendar` or `gmail` when declared) work."
    } else {
        "Google is not connected: skip the Google tools (`google_tasks`, `google_calendar`, \
         `gmail`) and carry on with the rest of the task."
    }
}

#[cfg(test)]
#[path = "preamble_tests.rs"]
mod tests;
