//! The persistent-button codec (BTN-1, BTN-2, BTN-10, F-28).
//!
//! Every bot button carries its whole meaning in `custom_id = act:<action>:<data>`
//! (`<action>`: lowercase ASCII letters and `_`; `<data>`: non-empty, `_` for "no payload"), so
//! clicks are handled statelessly and keep working after restarts (BTN-12). Only `agent`
//! buttons point at server-side state: an inquiry id (see `crate::state::inquiries`).
//!
//! Discord caps `custom_id` at 100 characters. Direct-action ids that would be longer are
//! refused with [`ButtonError::TooLong`] (the tool reports it to the agent) rather than being
//! cut, since a cut id would silently target the wrong task or event. Agent prompts of any
//! length fit, because only their 8-hex inquiry id goes into the button.

use crate::{
    background::nag_card::{DONE_ACTION, SKIP_ACTION, SNOOZE_ACTION},
    domain::nag::Snooze,
};

/// The answer to a click no part understands (BTN-9), or one on a message the bot did not
/// post for it.
pub const UNKNOWN_ACTION: &str = "unknown action";

/// Prefix of every bot button id.
pub const CUSTOM_ID_PREFIX: &str = "act:";

/// Discord's limit on `custom_id`, in characters.
pub const MAX_CUSTOM_ID_CHARS: usize = 100;

/// The data placeholder for actions without a payload (F-28).
pub const EMPTY_DATA: &str = "_";

/// Calendar used by the legacy `event_del:<event_id>` form (BTN-7).
pub const PRIMARY_CALENDAR: &str = "primary";

/// Errors turning a tool's button action into a `custom_id`.
#[derive(Debug, thiserror::Error)]
pub enum ButtonError {
    /// The part before the first `:` is empty or not lowercase letters/underscores.
    #[error(
        "invalid button action {0:?}: the type before ':' must be lowercase letters or \
         underscores (e.g. `dismiss`, `task_done:<task id>`, `agent:<prompt>`)"
    )]
    InvalidActionType(String),
    /// `agent:` without a prompt.
    #[error("invalid button action `agent:`: an agent button needs a prompt after `agent:`")]
    EmptyAgentPrompt,
    /// The resulting id would exceed [`MAX_CUSTOM_ID_CHARS`].
    #[error(
        "button action too long: its custom_id would be {len} characters but Discord allows at \
         most {MAX_CUSTOM_ID_CHARS}; shorten the payload or use `agent:<prompt>` instead"
    )]
    TooLong {
        /// Length the id would have had, in characters.
        len: usize,
    },
    /// Registering the inquiry behind an `agent:` button failed.
    #[error("could not register the agent button's inquiry: {0}")]
    Inquiry(Box<dyn std::error::Error + Send + Sync>),
}

/// What a button click asks for, decoded from its `custom_id`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ButtonAction {
    /// `task_done:<task_id>` or `task_done:<list_id>/<task_id>` (BTN-5, GOO-9).
    TaskDone {
        /// Google Task id.
        task_id: String,
        /// Task list id; `None` means the configured list.
        list_id: Option<String>,
    },
    /// `task_del:<task_id>` or `task_del:<list_id>/<task_id>` (BTN-6, GOO-9).
    TaskDelete {
        /// Google Task id.
        task_id: String,
        /// Task list id; `None` means the configured list.
        list_id: Option<String>,
    },
    /// `event_del:<event_id>` (legacy, calendar `primary`) or `event_del:<calendar>/<event>`
    /// (BTN-7).
    EventDelete {
        /// Calendar id (`primary` for the legacy form).
        calendar_id: String,
        /// Event id.
        event_id: String,
    },
    /// `agent:<8-hex>`: send the registered inquiry prompt to the agent (BTN-4).
    AgentInquiry {
        /// Inquiry id to pop from the inquiry store.
        inquiry_id: String,
    },
    /// `dismiss:<anything>`: delete the message (BTN-8).
    Dismiss,
    /// `fork_save:_`: Save Context (IFK-10).
    ForkSave,
    /// `fork_report:_`: Report (IFK-10).
    ForkReport,
    /// `fork_exit:_`: Exit Fork (IFK-10).
    ForkExit,
    /// `tools_approve:<request id>` / `tools_deny:<request id>`: the owner's answer to a tool
    /// approval request; honoured only on the message the bot posted for that request.
    ToolApproval {
        /// The request id in `state/tool_approvals.json`.
        request_id: String,
        /// Approve (`true`) or deny.
        approve: bool,
    },
    /// `content_approve:<request id>` / `content_deny:<request id>`: the owner's answer about
    /// a skill, command, subagent or settings file (issue 23 §2); honoured only on the
    /// message the bot posted for that request, and only for the bytes it showed.
    ContentApproval {
        /// The request id in `state/content_approvals.json`.
        request_id: String,
        /// Approve (`true`) or deny.
        approve: bool,
    },
    /// `hook_run:<hold id>` / `hook_drop:<hold id>`: the owner's answer to a webhook request
    /// the screening could not clear (WHK-12); honoured only on the bot's own notice.
    WebhookHold {
        /// The hold id in `state/held_webhooks.json`.
        hold_id: String,
        /// Dispatch it (`true`) or drop it.
        run: bool,
    },
    /// `focus_end:_`: ends the focus session under way (FOC-3).
    FocusEnd,
    /// `nag_done:<id>`, `nag_skip:<id>`, `nag_drop:<id>`, `nag_snooze:<id>` (the snooze
    /// choices) and `nag_until:<choice>/<id>`: the owner's answer to a reminder open until
    /// answered (NAG-7).
    Nag {
        /// The reminder's (or routine's) id.
        id: String,
        /// The answer.
        answer: NagAnswer,
    },
    /// `setup:quick`: the first-run greeting's **Get started — 3 questions** (GRT-3); starts
    /// the `setup` skill's quick path in the main session (SLC-14).
    GetStarted,
    /// Any other well-formed `act:` id, or a known action with unusable data; the handler
    /// answers `unknown action` (BTN-9).
    Unknown {
        /// The action name.
        action: String,
        /// The raw data.
        data: String,
    },
}

/// The owner's answer to an open reminder (NAG-7).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NagAnswer {
    /// **Done**.
    Done,
    /// **Not today**.
    NotToday,
    /// **Drop** (from `/nags`): out of the list, no more nags.
    Drop,
    /// **Snooze**: show the choices.
    SnoozeChoices,
    /// One of the choices.
    Snooze(Snooze),
}

impl NagAnswer {
    /// The action name and data of this answer for reminder `id`.
    fn parts(self, id: &str) -> (&'static str, String) {
        match self {
            Self::Done => (DONE_ACTION, id.to_owned()),
            Self::NotToday => (SKIP_ACTION, id.to_owned()),
            Self::Drop => ("nag_drop", id.to_owned()),
            Self::SnoozeChoices => (SNOOZE_ACTION, id.to_owned()),
            Self::Snooze(snooze) => ("nag_until", format!("{}/{id}", snooze.id())),
        }
    }

    /// The answer an action name and data give, with the reminder's id.
    fn read(action: &str, data: &str) -> Option<(String, Self)> {
        let answer = match action {
            DONE_ACTION => Self::Done,
            SKIP_ACTION => Self::NotToday,
            "nag_drop" => Self::Drop,
            SNOOZE_ACTION => Self::SnoozeChoices,
            "nag_until" => {
                let (choice, id) = data.split_once('/')?;
                return Some((id.to_owned(), Self::Snooze(Snooze::from_id(choice)?)))
                    .filter(|(id, _)| !id.is_empty());
            }
            _ => return None,
        };
        Some((data.to_owned(), answer))
    }
}

/// Whether `s` is a valid action name: non-empty, lowercase ASCII letters and `_` only.
fn is_action_name(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_lowercase() || b == b'_')
}

/// Splits `<list>/<item>` at the last `/` (item ids never contain one); a bare id has no
/// container. `None` when either side is empty.
fn split_container(data: &str) -> Option<(Option<&str>, &str)> {
    match data.rsplit_once('/') {
        Some((container, item)) if !container.is_empty() && !item.is_empty() => {
            Some((Some(container), item))
        }
        None if !data.is_empty() && data != EMPTY_DATA => Some((None, data)),
        Some(_) | None => None,
    }
}

/// Decodes a button `custom_id` (BTN-1).
///
/// Returns `None` when the id is not a bot button: no `act:` prefix, or an action that is not
/// lowercase letters/underscores. Empty data (`act:dismiss:`, as produced by older versions,
/// F-28) is tolerated and read as `_`. Known actions whose data cannot be used (e.g. a
/// `task_done` without task id) decode as [`ButtonAction::Unknown`].
pub fn parse_custom_id(custom_id: &str) -> Option<ButtonAction> {
    let rest = custom_id.strip_prefix(CUSTOM_ID_PREFIX)?;
    let (action, data) = rest.split_once(':')?;
    if !is_action_name(action) {
        return None;
    }
    let data = if data.is_empty() { EMPTY_DATA } else { data };
    let unknown = || ButtonAction::Unknown {
        action: action.to_owned(),
        data: data.to_owned(),
    };
    let parsed = match action {
        "dismiss" => ButtonAction::Dismiss,
        "fork_save" => ButtonAction::ForkSave,
        "fork_report" => ButtonAction::ForkReport,
        "fork_exit" => ButtonAction::ForkExit,
        "tools_approve" | "tools_deny" if data != EMPTY_DATA => ButtonAction::ToolApproval {
            request_id: data.to_owned(),
            approve: action == "tools_approve",
        },
        "content_approve" | "content_deny" if data != EMPTY_DATA => ButtonAction::ContentApproval {
            request_id: data.to_owned(),
            approve: action == "content_approve",
        },
        "hook_run" | "hook_drop" if data != EMPTY_DATA => ButtonAction::WebhookHold {
            hold_id: data.to_owned(),
            run: action == "hook_run",
        },
        "setup" => ButtonAction::GetStarted,
        "focus_end" => ButtonAction::FocusEnd,
        nag if nag.starts_with("nag_") && data != EMPTY_DATA => match NagAnswer::read(nag, data) {
            Some((id, answer)) => ButtonAction::Nag { id, answer },
            None => unknown(),
        },
        "agent" if data != EMPTY_DATA => ButtonAction::AgentInquiry {
            inquiry_id: data.to_owned(),
        },
        "task_done" | "task_del" => match split_container(data) {
            Some((list, task)) => {
                let (task_id, list_id) = (task.to_owned(), list.map(str::to_owned));
                if action == "task_done" {
                    ButtonAction::TaskDone { task_id, list_id }
                } else {
                    ButtonAction::TaskDelete { task_id, list_id }
                }
            }
            None => unknown(),
        },
        "event_del" => match split_container(data) {
            Some((calendar, event)) => ButtonAction::EventDelete {
                calendar_id: calendar.unwrap_or(PRIMARY_CALENDAR).to_owned(),
                event_id: event.to_owned(),
            },
            None => unknown(),
        },
        _ => unknown(),
    };
    Some(parsed)
}

/// Assembles `act:<action>:<data>` and enforces the length limit.
fn assemble(action: &str, data: &str) -> Result<String, ButtonError> {
    let data = if data.is_empty() { EMPTY_DATA } else { data };
    let id = format!("{CUSTOM_ID_PREFIX}{action}:{data}");
    let len = id.chars().count();
    if len > MAX_CUSTOM_ID_CHARS {
        return Err(ButtonError::TooLong { len });
    }
    Ok(id)
}

/// Joins an optional container id and an item id as `<container>/<item>`.
fn with_container(container: Option<&str>, item: &str) -> String {
    match container {
        Some(container) => format!("{container}/{item}"),
        None => item.to_owned(),
    }
}

impl ButtonAction {
    /// The `custom_id` for this action, the inverse of [`parse_custom_id`]. Fails only when
    /// the ids are too long for Discord or an [`ButtonAction::Unknown`] action name is invalid.
    pub fn custom_id(&self) -> Result<String, ButtonError> {
        match self {
            Self::TaskDone { task_id, list_id } => {
                assemble("task_done", &with_container(list_id.as_deref(), task_id))
            }
            Self::TaskDelete { task_id, list_id } => {
                assemble("task_del", &with_container(list_id.as_deref(), task_id))
            }
            Self::EventDelete {
                calendar_id,
                event_id,
            } => {
                let calendar = (calendar_id != PRIMARY_CALENDAR).then_some(calendar_id.as_str());
                assemble("event_del", &with_container(calendar, event_id))
            }
            Self::AgentInquiry { inquiry_id } => assemble("agent", inquiry_id),
            Self::Dismiss => assemble("dismiss", EMPTY_DATA),
            Self::FocusEnd => assemble("focus_end", EMPTY_DATA),
            Self::Nag { id, answer } => {
                let (action, data) = answer.parts(id);
                assemble(action, &data)
            }
            Self::GetStarted => assemble("setup", "quick"),
            Self::ForkSave => assemble("fork_save", EMPTY_DATA),
            Self::ForkReport => assemble("fork_report", EMPTY_DATA),
            Self::ForkExit => assemble("fork_exit", EMPTY_DATA),
            Self::ToolApproval {
                request_id,
                approve,
            } => assemble(
                if *approve {
                    "tools_approve"
                } else {
                    "tools_deny"
                },
                request_id,
            ),
            Self::ContentApproval {
                request_id,
                approve,
            } => assemble(
                if *approve {
                    "content_approve"
                } else {
                    "content_deny"
                },
                request_id,
            ),
            Self::WebhookHold { hold_id, run } => {
                assemble(if *run { "hook_run" } else { "hook_drop" }, hold_id)
            }
            Self::Unknown { action, data } if is_action_name(action) => assemble(action, data),
            Self::Unknown { action, .. } => Err(ButtonError::InvalidActionType(action.clone())),
        }
    }
}

/// Maps a button action given to an MCP tool to its `custom_id` (BTN-2, F-28).
///
/// - `agent:<prompt>` registers the prompt through `register_inquiry` (which returns the new
///   8-hex inquiry id) and yields `act:agent:<id>`;
/// - `<type>:<payload>` yields `act:<type>:<payload>`;
/// - a bare `<type>` or an empty payload (`dismiss`, `dismiss:`) yields `act:<type>:_`.
///
/// The type is trimmed and must be lowercase letters/underscores. Ids over 100 characters are
/// refused ([`ButtonError::TooLong`]) instead of being truncated; `register_inquiry` is only
/// called for valid, non-empty agent prompts.
pub fn encode<E>(
    action_from_tool: &str,
    mut register_inquiry: impl FnMut(&str) -> Result<String, E>,
) -> Result<String, ButtonError>
where
    E: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let (kind, payload) = action_from_tool
        .split_once(':')
        .unwrap_or((action_from_tool, ""));
    let kind = kind.trim();
    if !is_action_name(kind) {
        return Err(ButtonError::InvalidActionType(kind.to_owned()));
    }
    if kind == "agent" {
        if payload.trim().is_empty() {
            return Err(ButtonError::EmptyAgentPrompt);
        }
        let id = register_inquiry(payload).map_err(|e| ButtonError::Inquiry(e.into()))?;
        return assemble(kind, &id);
    }
    assemble(kind, payload)
}

#[cfg(test)]
#[path = "buttons_tests.rs"]
mod tests;
