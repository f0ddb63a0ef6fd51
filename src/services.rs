//! The configuration and the file-backed stores every session, tool and job shares, each
//! opened once per process, in one place (`agent::setup::data_dir::open_services`), so the
//! clones handed out share one lock per file (`state::state_file`).

use std::sync::Arc;

use crate::{
    claude::StartGate,
    config::{Config, runtime::RuntimeSettings},
    google::GoogleClient,
    sandbox::Sandbox,
    state::{
        content_approvals::ContentApprovals,
        fork_messages::ForkMessageStore,
        git::GitRecorder,
        held_webhooks::HeldWebhooks,
        inquiries::InquiryStore,
        paths::DataDir,
        pending::PendingUpdates,
        ping_budget::PingBudget,
        sessions::{RoutineSessionStore, SessionStore},
        tool_approvals::ToolApprovals,
        unfinished::UnfinishedWork,
        untrusted_sessions::UntrustedSessions,
    },
    tool_policy::ToolPolicyWatch,
};

/// Configuration plus the stores under the data dir.
#[derive(Clone)]
pub struct Services {
    /// Static configuration.
    pub config: Config,
    /// The one clock: read wall and monotonic time through it, and wait on it (issue 40 §2).
    pub clock: crate::clock::Clock,
    /// `state/config.json`: read every runtime setting through [`RuntimeSettings::current`],
    /// save through it (CFG-1, CFG-4).
    pub runtime: Arc<RuntimeSettings>,
    /// The data dir layout.
    pub data_dir: DataDir,
    /// The main session id and its lifecycle log.
    pub sessions: SessionStore,
    /// The session ids of persistent routines (PRS-2).
    pub routine_sessions: RoutineSessionStore,
    /// The prompts behind `agent:` buttons (BTN-3).
    pub inquiries: InquiryStore,
    /// Webhook requests held for the owner's say-so.
    pub held_webhooks: HeldWebhooks,
    /// The owner's "quiet for …" and the pings held while they are quiet (issue 28).
    pub quiet: crate::state::quiet::QuietStore,
    /// Reminders open until the owner answers them (issue 28 §1).
    pub nags: crate::state::nags::NagStore,
    /// Updates left for the main session by forks.
    pub pending: PendingUpdates,
    /// The data-dir git recorder.
    pub git: GitRecorder,
    /// Where finished turns and runs leave their usage record (USE-1).
    pub usage: crate::usage::UsageWriter,
    /// Which Discord messages belong to which fork session (SES-15…17).
    pub fork_messages: ForkMessageStore,
    /// The background runs' ping budget (PNG).
    pub ping_budget: PingBudget,
    /// `tool-policy.yaml`, re-read when it changes (PRM-11).
    pub tool_policy: Arc<ToolPolicyWatch>,
    /// Work started and not finished yet, and what an earlier process left cut off.
    pub unfinished: UnfinishedWork,
    /// Backoff for starting the CLI when it keeps crashing at start (issue 16).
    pub cli_start: Arc<StartGate>,
    /// The owner's approvals of tool patterns that job, skill and subagent files declare.
    pub tool_approvals: ToolApprovals,
    /// The owner's approvals of executable content by its bytes (issue 23 §2).
    pub content_approvals: ContentApprovals,
    /// Sessions that have read untrusted text (mail), whose outbound tools need the owner's
    /// say-so (issue 23 §4).
    pub untrusted: UntrustedSessions,
    /// The kernel boundary every CLI process tree runs in (issue 23).
    pub sandbox: Sandbox,
    /// The Google API client the bot's own calls use: the agent's Google tools and the embed
    /// buttons (the agent's shells can't read the token).
    pub google: GoogleClient,
}

impl Services {
    /// `at` on the owner's clock: `09:40`.
    pub fn hh_mm(&self, at: chrono::DateTime<chrono::Utc>) -> String {
        crate::domain::wall_clock::hh_mm(at, self.config.timezone)
    }

    /// When the owner's quiet time ends, if they are quiet at `now`: the daily window of
    /// `/config quiet_hours` in their zone, a "quiet for …", a focus session or a busy calendar
    /// event (issue 28 §2).
    pub fn quiet_until(
        &self,
        now: chrono::DateTime<chrono::Utc>,
    ) -> Option<chrono::DateTime<chrono::Utc>> {
        let window = self.runtime.current().quiet_hours;
        self.quiet
            .quiet_until(window.as_ref(), self.config.timezone, now)
    }
}
