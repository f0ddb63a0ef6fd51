//! The state of one background run, shared by everything that acts for it (its tools, its
//! permission policy, its stop hook) and by nothing else: concurrent runs never see each
//! other's counters (BGF-1, BGF-9).

use crate::{
    domain::job_options::UpdateMode,
    scheduling::lineage::{REMINDERS_PER_RUN, RunLineage},
    state::ping_budget::{PingBudget, Spend},
};
use parking_lot::{Mutex, MutexGuard};

/// Refusal: pinging is off for this job (MCP-3, BGF-7).
pub const PINGS_DISABLED: &str = "Pinging is disabled for this background task.";
/// Refusal: the run already used its one non-critical ping (PNG-7).
pub const ALREADY_PINGED: &str =
    "Already sent 1 ping this session. Use report_updates for additional findings.";
/// Refusal: the owner is mid-conversation (BGF-2).
pub const OWNER_BUSY: &str = "User is mid-conversation. Use `report_updates` instead, or set \
                              `critical=True` for time-sensitive alerts.";
/// Refusal: no budget token left (PNG-5).
pub const BUDGET_EXHAUSTED: &str = "Budget exhausted (0 remaining). Use report_updates to pass \
                                    findings to the main session instead.";
/// Refusal: reporting is off for this job (MCP-8).
pub const REPORTING_DISABLED: &str =
    "Reporting to main session is disabled for this background task.";

/// How a visible send was let through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PingPermit {
    /// An ordinary ping: costs one budget token once it is delivered.
    Normal,
    /// `critical=True`: bypasses the limits and costs nothing (PNG-6).
    Critical,
}

#[derive(Debug, Default)]
struct Counters {
    output_sent: bool,
    reported: bool,
    /// What the run reported, in order (its reflection says it, BGF-22).
    reports: Vec<String>,
    ping_count: u32,
    in_flight: u32,
    messages: Vec<u64>,
    compaction: Option<String>,
    /// Reminders set (or being written) by `add_reminder` (REM-16).
    reminders_set: u32,
}

/// One background run's settings and tracking.
pub struct BgRunState {
    allow_ping: bool,
    update_mode: UpdateMode,
    busy: bool,
    budget: PingBudget,
    lineage: RunLineage,
    counters: Mutex<Counters>,
}

impl BgRunState {
    /// A fresh run. `busy` is whether the owner was mid-conversation when it started;
    /// `lineage` is the job it acts for when it sets or cancels reminders (issue 39 §4).
    pub fn new(
        allow_ping: bool,
        update_mode: UpdateMode,
        busy: bool,
        budget: PingBudget,
        lineage: RunLineage,
    ) -> Self {
        Self {
            allow_ping,
            update_mode,
            busy,
            budget,
            lineage,
            counters: Mutex::default(),
        }
    }

    /// Whether the owner was mid-conversation when the run started (BGF-2).
    pub fn busy(&self) -> bool {
        self.busy
    }

    /// The job the run acts for, and how many background runs lead to it from the owner.
    pub fn lineage(&self) -> &RunLineage {
        &self.lineage
    }

    /// Takes one of the run's [`REMINDERS_PER_RUN`] reminders (REM-16), or says why not. The
    /// claim holds until [`Self::reminder_not_set`], so calls at once can't pass the limit.
    pub fn claim_reminder(&self) -> Result<(), String> {
        let mut counters = self.counters();
        if counters.reminders_set >= REMINDERS_PER_RUN {
            return Err(format!(
                "Error: reminder not set: a background run may set at most \
                 {REMINDERS_PER_RUN} reminders, and this one already has; tell the owner if \
                 more are needed."
            ));
        }
        counters.reminders_set += 1;
        Ok(())
    }

    /// Gives back a claimed reminder whose file could not be written.
    pub fn reminder_not_set(&self) {
        let mut counters = self.counters();
        counters.reminders_set = counters.reminders_set.saturating_sub(1);
    }

    fn counters(&self) -> MutexGuard<'_, Counters> {
        self.counters.lock()
    }

    /// Whether the job may send visible messages (`allow-ping`).
    pub fn allow_ping(&self) -> bool {
        self.allow_ping
    }

    /// Decides whether a ping, embed or file may go out now (MCP-3/4/5, PNG-6/7): `allow-ping`
    /// first, then — unless `critical` — the one-per-run limit, the busy owner and the budget.
    /// A permit holds the run's one slot until [`Self::sent`] or [`Self::not_sent`].
    pub fn gate_visible(&self, critical: bool) -> Result<PingPermit, String> {
        if !self.allow_ping {
            return Err(PINGS_DISABLED.to_owned());
        }
        if critical {
            return Ok(PingPermit::Critical);
        }
        let mut counters = self.counters();
        if counters.ping_count + counters.in_flight >= 1 {
            return Err(ALREADY_PINGED.to_owned());
        }
        if self.busy {
            return Err(OWNER_BUSY.to_owned());
        }
        match self.budget.snapshot() {
            Ok(snapshot) if snapshot.whole_available() >= 1 => {}
            Ok(_) => return Err(BUDGET_EXHAUSTED.to_owned()),
            Err(error) => return Err(format!("Error: could not read the ping budget: {error}")),
        }
        counters.in_flight += 1;
        Ok(PingPermit::Normal)
    }

    /// Records a delivered send: the token is spent only now (F-45), and the message is kept
    /// for reply tracking (SES-15).
    pub fn sent(&self, permit: PingPermit, message_id: Option<u64>) {
        let spent = match permit {
            PingPermit::Normal => self.budget.try_spend().map(|spend| spend == Spend::Spent),
            PingPermit::Critical => self.budget.record_critical().map(|()| true),
        };
        match spent {
            Ok(true) => {}
            Ok(false) => tracing::info!("the ping budget ran out while this ping was in flight"),
            Err(error) => tracing::warn!(%error, "could not update the ping budget"),
        }
        let mut counters = self.counters();
        if permit == PingPermit::Normal {
            counters.in_flight = counters.in_flight.saturating_sub(1);
        }
        counters.ping_count += 1;
        counters.output_sent = true;
        counters.messages.extend(message_id);
    }

    /// Releases a permit whose send failed; nothing is spent.
    pub fn not_sent(&self, permit: PingPermit) {
        if permit == PingPermit::Normal {
            let mut counters = self.counters();
            counters.in_flight = counters.in_flight.saturating_sub(1);
        }
    }

    /// Whether `report_updates` may be used (MCP-8).
    pub fn may_report(&self) -> bool {
        self.update_mode != UpdateMode::Blocked
    }

    /// Records a `report_updates` call of `message`: later stops need no report until new
    /// output (BGF-9).
    pub fn reported(&self, message: &str) {
        let mut counters = self.counters();
        counters.reported = true;
        counters.reports.push(message.to_owned());
        counters.output_sent = false;
    }

    /// What the run reported so far, in order.
    pub fn reports(&self) -> Vec<String> {
        self.counters().reports.clone()
    }

    /// Whether the run reported at least once.
    pub fn has_reported(&self) -> bool {
        self.counters().reported
    }

    /// Why the run may not stop yet (HKS-1), or `None` to let it stop.
    pub fn stop_refusal(&self) -> Option<&'static str> {
        let counters = self.counters();
        match self.update_mode {
            UpdateMode::Always if !counters.reported => Some(
                "You have not called report_updates yet, and this task must always report. \
                 Before finishing, call report_updates with a short summary of what you found \
                 or did, for the main session.",
            ),
            UpdateMode::OnPing if counters.output_sent => Some(
                "You sent the owner a visible message (ping, embed or file) but have not \
                 reported it. Call report_updates now with a short summary so the main session \
                 knows what you sent and why.",
            ),
            _ => None,
        }
    }

    /// Asks for the run's session to be compacted after the turn (MCP-15, F-7).
    pub fn request_compaction(&self, instructions: &str) {
        self.counters().compaction = Some(instructions.to_owned());
    }

    /// The compaction asked for during the run, if any.
    pub fn take_compaction(&self) -> Option<String> {
        self.counters().compaction.take()
    }

    /// The Discord messages the run sent, for reply tracking (SES-15).
    pub fn take_messages(&self) -> Vec<u64> {
        std::mem::take(&mut self.counters().messages)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::paths::DataDir;

    fn run(allow_ping: bool, mode: UpdateMode, busy: bool) -> (tempfile::TempDir, BgRunState) {
        let dir = tempfile::tempdir().unwrap();
        let data_dir = DataDir::new(dir.path());
        data_dir.ensure_layout().unwrap();
        let budget = PingBudget::new(&data_dir, chrono_tz::UTC);
        let lineage = RunLineage::of_tag(&crate::domain::prompt_tag::PromptTag::System);
        (
            dir,
            BgRunState::new(allow_ping, mode, busy, budget, lineage),
        )
    }

    /// REM-16: a run sets at most a few reminders; a failed write gives its claim back.
    #[test]
    fn a_run_sets_a_few_reminders() {
        let (_dir, state) = run(true, UpdateMode::OnPing, false);
        for _ in 0..REMINDERS_PER_RUN {
            state.claim_reminder().unwrap();
        }
        let refusal = state.claim_reminder().unwrap_err();
        assert!(
            refusal.starts_with("Error: reminder not set: "),
            "{refusal}"
        );
        state.reminder_not_set();
        assert!(state.claim_reminder().is_ok());
        assert!(state.claim_reminder().is_err());
    }

    #[test]
    fn one_normal_ping_per_run_and_critical_bypasses() {
        let (_dir, state) = run(true, UpdateMode::OnPing, false);
        let permit = state.gate_visible(false).unwrap();
        assert_eq!(state.gate_visible(false).unwrap_err(), ALREADY_PINGED);
        state.sent(permit, Some(7));
        assert_eq!(state.gate_visible(false).unwrap_err(), ALREADY_PINGED);
        assert_eq!(state.gate_visible(true), Ok(PingPermit::Critical));
        assert_eq!(state.take_messages(), vec![7]);
    }

    #[test]
    fn a_failed_send_frees_the_slot_and_spends_nothing() {
        let (_dir, state) = run(true, UpdateMode::OnPing, false);
        let permit = state.gate_visible(false).unwrap();
        state.not_sent(permit);
        assert!(state.gate_visible(false).is_ok());
        assert!(state.stop_refusal().is_none());
    }

    #[test]
    fn disabled_and_busy_runs_are_refused_in_order() {
        let (_dir, silent) = run(false, UpdateMode::OnPing, true);
        assert_eq!(silent.gate_visible(true).unwrap_err(), PINGS_DISABLED);
        let (_dir, busy) = run(true, UpdateMode::OnPing, true);
        assert_eq!(busy.gate_visible(false).unwrap_err(), OWNER_BUSY);
        assert!(busy.gate_visible(true).is_ok());
    }

    #[test]
    fn the_stop_hook_enforces_the_report_mode() {
        let (_dir, always) = run(true, UpdateMode::Always, false);
        assert!(always.stop_refusal().is_some());
        always.reported("done");
        assert!(always.stop_refusal().is_none());
        let (_dir, on_ping) = run(true, UpdateMode::OnPing, false);
        assert!(on_ping.stop_refusal().is_none());
        let permit = on_ping.gate_visible(false).unwrap();
        on_ping.sent(permit, None);
        assert!(on_ping.stop_refusal().is_some());
        on_ping.reported("done");
        assert!(on_ping.stop_refusal().is_none());
        let (_dir, freely) = run(true, UpdateMode::Freely, false);
        let permit = freely.gate_visible(false).unwrap();
        freely.sent(permit, None);
        assert!(freely.stop_refusal().is_none());
    }
}
