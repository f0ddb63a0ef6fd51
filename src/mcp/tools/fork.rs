//! Tools that open and close forks and carry findings to the main session: `enter_fork`,
//! `save_context`, `report_updates`, `exit_fork` (MCP-6…9, IFK-3, IFK-6, IFK-17, IFK-19).
//!
//! Exits are deferred: the tool records the choice and the session acts on it once the reply
//! is finished, so extra tool calls in the same turn only delay the exit.

use rmcp::{handler::server::wrapper::Parameters, tool, tool_router};

use super::{
    DiscordTools,
    args::{EnterForkArgs, ReportArgs},
};
use crate::{
    domain::fork_control::{EnterRequest, ExitAction, ForkControl, ForkId, NoRoom},
    mcp::{availability::ToolScope, run_state::REPORTING_DISABLED},
};

/// Refusal while the owner has not spoken in the fork yet (IFK-17).
pub(super) const TOO_EARLY_TO_EXIT: &str = "Error: the owner hasn't said anything in this fork yet. \
     Wait for them to ask before ending it.";

#[tool_router(router = fork_router, vis = "pub(super)")]
impl DiscordTools {
    #[tool(
        description = "Open an interactive fork: a branch of this conversation for a side topic \
                       whose details shouldn't clutter the main session. The current reply is \
                       cut short and the fork starts right after it."
    )]
    async fn enter_fork(&self, Parameters(args): Parameters<EnterForkArgs>) -> String {
        match self.context.scope() {
            ToolScope::Background | ToolScope::PersistentRoutine => {
                return "Error: enter_fork is not available in background forks.".to_owned();
            }
            ToolScope::InteractiveFork => return NoRoom::InPlaceOpen.message().to_owned(),
            ToolScope::Main => {}
        }
        let Some(control) = self.context.fork_control() else {
            return "Error: forks are not available in this session.".to_owned();
        };
        if let Err(no_room) = control.room() {
            return no_room.message().to_owned();
        }
        let default_idle = self
            .context
            .services()
            .map_or(10, |services| services.runtime.current().fork_idle_timeout);
        let entered = control.request_enter(EnterRequest {
            topic: args
                .topic
                .map(|topic| topic.trim().to_owned())
                .filter(|topic| !topic.is_empty()),
            idle_timeout_minutes: args.idle_timeout.filter(|m| *m > 0).unwrap_or(default_idle),
        });
        if !entered {
            return "Not entering a fork: this turn answers a button. Carry on here; the owner \
                    can open one with /fork."
                .to_owned();
        }
        "Entering fork — interrupting current turn.".to_owned()
    }

    #[tool(
        description = "Inside an interactive fork: make this fork the main conversation once you \
                       finish replying. Only when the owner asks to keep the fork's context."
    )]
    async fn save_context(&self) -> String {
        let (control, fork) = match self.interactive_fork("save_context") {
            Ok(own) => own,
            Err(message) => return message,
        };
        let Some(services) = self.context.services() else {
            return "Error: saving is not available in this session.".to_owned();
        };
        let newest_update = services.pending.peek().last().map(|update| update.ts);
        let current_main = services.sessions.load();
        if let Some(blocker) = control.save_blocker(
            fork,
            current_main.as_ref().map(crate::claude::SessionId::as_str),
            newest_update,
        ) {
            return blocker.message().to_owned();
        }
        if let Err(error) = services.pending.clear() {
            return format!("Error: could not clear the pending updates: {error}");
        }
        control.set_exit(fork, ExitAction::Save);
        "Context saved. Fork will be promoted to main session after you finish responding."
            .to_owned()
    }

    #[tool(
        description = "Pass a short summary to the main session. In a background run the run \
                       continues; in an interactive fork the fork ends after your reply and is \
                       discarded."
    )]
    async fn report_updates(&self, Parameters(args): Parameters<ReportArgs>) -> String {
        let message = args.message.trim();
        if message.is_empty() {
            return "Error: the report needs some text.".to_owned();
        }
        let Some(services) = self.context.services() else {
            return "Error: reporting is not available in this session.".to_owned();
        };
        match self.context.scope() {
            ToolScope::Background | ToolScope::PersistentRoutine => {
                let Some(run) = self.context.bg_run() else {
                    return "Error: this background run has no state to report from.".to_owned();
                };
                if !run.may_report() {
                    return REPORTING_DISABLED.to_owned();
                }
                if let Err(error) = services.pending.append(message) {
                    return format!("Error: could not save the update: {error}");
                }
                run.reported(message);
                "Update reported -- summary will appear in main session.".to_owned()
            }
            ToolScope::InteractiveFork => {
                let (control, fork) = match self.interactive_fork("report_updates") {
                    Ok(own) => own,
                    Err(message) => return message,
                };
                if let Err(error) = services.pending.append(message) {
                    return format!("Error: could not save the update: {error}");
                }
                control.set_exit(fork, ExitAction::Report);
                "Update reported. Fork will be discarded after you finish responding — further \
                 tool calls delay the exit."
                    .to_owned()
            }
            ToolScope::Main => "Error: not in a forked session".to_owned(),
        }
    }

    #[tool(
        description = "Inside an interactive fork: discard the fork once you finish replying. \
                       Only when the owner asks to drop it."
    )]
    async fn exit_fork(&self) -> String {
        let (control, fork) = match self.interactive_fork("exit_fork") {
            Ok(own) => own,
            Err(message) => return message,
        };
        control.set_exit(fork, ExitAction::Exit);
        "Fork will be discarded after you finish responding — further tool calls delay the exit."
            .to_owned()
    }
}

impl DiscordTools {
    /// The fork switchboard and this client's fork when `tool` is called inside an
    /// interactive fork the owner has spoken in; otherwise the error text for this scope.
    fn interactive_fork(&self, tool: &str) -> Result<(&ForkControl, ForkId), String> {
        match self.context.scope() {
            ToolScope::Background | ToolScope::PersistentRoutine => {
                return Err(match tool {
                    "save_context" => "Error: save_context is not available in background \
                                       forks. Use report_updates instead."
                        .to_owned(),
                    _ => "Error: background forks end automatically. Use report_updates to \
                          pass findings to the main session."
                        .to_owned(),
                });
            }
            ToolScope::Main => return Err("Error: not in an interactive fork".to_owned()),
            ToolScope::InteractiveFork => {}
        }
        let (control, fork) = self
            .context
            .own_fork()
            .ok_or_else(|| "Error: not in an interactive fork".to_owned())?;
        match control.facts(fork) {
            None => Err("Error: not in an interactive fork".to_owned()),
            Some(facts) if facts.owner_turns == 0 => Err(TOO_EARLY_TO_EXIT.to_owned()),
            Some(_) => Ok((control.as_ref(), fork)),
        }
    }
}
