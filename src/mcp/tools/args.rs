//! The tools' arguments, declared as Rust types; their JSON schemas are generated from these.

use rmcp::schemars;
use serde::Deserialize;

/// One embed field as the agent writes it.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct FieldArgs {
    /// Field name.
    pub name: String,
    /// Field value.
    pub value: String,
    /// Show side by side with neighbouring fields (default true).
    pub inline: Option<bool>,
}

/// One button as the agent writes it.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ButtonArgs {
    /// Short button text (about 30 characters).
    pub label: String,
    /// `task_done:<task_id>`, `task_del:<task_id>`, `event_del:<event_id>`,
    /// `agent:<prompt to send back to you>`, or `dismiss`.
    pub action: String,
    /// `primary`, `secondary` (default), `success` or `danger`.
    pub style: Option<String>,
}

/// Arguments of `discord_embed`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct EmbedArgs {
    /// Embed title.
    pub title: String,
    /// Body text.
    pub description: Option<String>,
    /// `blue` (info, default), `green` (success), `red` (urgent), `yellow` (warning), `purple`.
    pub color: Option<String>,
    /// Fields shown in the embed.
    pub fields: Option<Vec<FieldArgs>>,
    /// Up to 5 action buttons.
    pub buttons: Option<Vec<ButtonArgs>>,
    /// Only for background runs: bypasses the ping budget for things the owner must not miss.
    pub critical: Option<bool>,
}

/// Arguments of `ping_user`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct PingArgs {
    /// The message to send.
    pub message: String,
    /// Bypass the ping budget and limits; only for things the owner would be devastated to miss.
    pub critical: Option<bool>,
}

/// Arguments of `send_file`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct SendFileArgs {
    /// Absolute path of the file, or a path starting with `~/`.
    pub file_path: String,
    /// Text sent with the file.
    pub message: Option<String>,
    /// Only for background runs: bypasses the ping budget for things the owner must not miss.
    pub critical: Option<bool>,
}

/// Arguments of `enter_fork`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct EnterForkArgs {
    /// What the fork is for.
    pub topic: Option<String>,
    /// Minutes of silence before the fork checks in (default: the `fork_idle_timeout` setting).
    pub idle_timeout: Option<u64>,
}

/// Arguments of `report_updates`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ReportArgs {
    /// A short summary for the main session.
    pub message: String,
}

/// Arguments of `update_names`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct NamesArgs {
    /// What to call the owner.
    pub user_name: String,
    /// The bot's own name.
    pub bot_name: String,
}

/// Arguments of `add_reminder`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct AddReminderArgs {
    /// What your future self should do when it fires (self-contained).
    pub prompt: String,
    /// Minutes from now.
    pub delay_minutes: Option<i64>,
    /// ISO datetime; without an offset it is the owner's local time.
    pub run_at: Option<String>,
    /// A short description shown in lists.
    pub description: Option<String>,
    /// Run in the main conversation instead of the background (default false).
    pub foreground: Option<bool>,
    /// How many follow-up checks `follow_up_chain` may add (default 0).
    pub max_chain: Option<u32>,
    /// Stay open until the owner answers, nagging until then (default false).
    pub until_done: Option<bool>,
    /// With `until_done`: the wait before the first nag, like "15m" or "1h30m" (default 10m).
    pub nag_every: Option<String>,
    /// With `until_done`: how many nags at most, 1 to 12 (default: until answered).
    pub max_nags: Option<i64>,
}

/// Arguments of `cancel_reminder`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct CancelReminderArgs {
    /// The reminder's id.
    pub reminder_id: String,
}

/// Arguments of `follow_up_chain`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct FollowUpArgs {
    /// When the next check runs, in minutes from now.
    pub minutes_from_now: i64,
}

/// Arguments of `compact_session`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct CompactArgs {
    /// What the compacted summary must keep.
    pub instructions: String,
}
