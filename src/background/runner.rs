//! The background runner: one CLI client per run, forked from main, isolated or persistent,
//! with its own tools, policy, hooks and counters; never takes the session lock (BGF-1…5,
//! SES-9, SES-15, AGT-11…13, AGT-19).

use super::run_gate::RunGate;
use std::{sync::Arc, time::Duration};

use tracing::Instrument;

use super::{
    admission::{Admitted, admit},
    reflection::{Reflecting, reflect},
    tool_grant::source_of,
};
use crate::{
    agent::{
        AgentError,
        client::main_client::base_options,
        permissions::background_policy::bg_allowed_tools,
        turn::{
            Unobserved, run_turn,
            spend::{background_record, timed_out_record, with_subagents},
        },
    },
    claude::{ClientOptions, PermissionMode, SessionId, Thinking, UserContent},
    domain::job_options::{BgSession, ToolRestriction},
    front_end::{CurrentTurn, FrontEnd},
    mcp::{BgRunState, ToolScope},
    scheduling::{bg_job::BgJob, chain::ChainSlot},
    services::Services,
    state::{
        StateError,
        fork_messages::{RecordedSession, SessionOrigin},
        history::SessionEventKind,
        unfinished::{Work, excerpt},
    },
};

/// Records the Discord messages a run sent under its session `(id, parent)` (SES-15), with
/// the run's job and tools: a reply to one of them resumes the run with those tools only
/// (issue 23 §4).
fn record_messages(
    services: &Services,
    job: &BgJob,
    allowed_tools: &[String],
    (id, parent): (&SessionId, Option<&str>),
    messages: &[u64],
) -> Result<(), StateError> {
    let origin = SessionOrigin::Background {
        job: source_of(&job.tag).map_or_else(|| job.tag.to_string(), |s| s.to_string()),
        allowed_tools: allowed_tools.to_vec(),
        title: Some(job.title()),
    };
    let session = RecordedSession {
        id: id.as_str(),
        parent,
        origin: &origin,
    };
    services.fork_messages.record(messages, &session)
}

/// What a finished run left behind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BgOutcome {
    /// The run's session id.
    pub session_id: Option<SessionId>,
    /// Whether it called `report_updates`.
    pub reported: bool,
    /// The Discord messages it sent.
    pub messages: Vec<u64>,
}

/// What one run's client is bound to.
struct RunHandles {
    run: Arc<BgRunState>,
    chain: Arc<ChainSlot>,
    scope: ToolScope,
}

/// Runs background jobs; cheap to share.
pub struct BgRunner {
    services: Arc<Services>,
    front_end: Arc<dyn FrontEnd>,
    busy: Arc<dyn Fn() -> bool + Send + Sync>,
    gate: RunGate,
}

impl BgRunner {
    /// A runner posting through `front_end`; `busy` tells whether the owner is
    /// mid-conversation (the main session's lock is held, BGF-2).
    pub fn new(
        services: Arc<Services>,
        front_end: Arc<dyn FrontEnd>,
        busy: Arc<dyn Fn() -> bool + Send + Sync>,
    ) -> Self {
        let limit = usize::try_from(services.runtime.current().bg_max_concurrent).unwrap_or(1);
        Self {
            services,
            front_end,
            busy,
            gate: RunGate::new(limit),
        }
    }

    /// Runs `job` under the hard timeout; on failure the owner gets a short DM naming the job
    /// (BGF-5, F-24). Nothing is logged or recorded for a failed run (SES-9, SES-15).
    /// Waits for a slot under `bg_max_concurrent` first; the owner's busy state is sampled when
    /// the run starts. Once the run has ended and given up its slot, its reflection is written
    /// unless the job says `reflect: false` (BGF-22).
    pub async fn run(&self, job: BgJob) -> Result<BgOutcome, BgError> {
        self.run_and_reflect(job, None).await
    }

    /// [`Self::run`] with the owner's busy state sampled earlier, when the work arrived
    /// (WHK-11).
    pub async fn run_sampled(&self, job: BgJob, busy: bool) -> Result<BgOutcome, BgError> {
        self.run_and_reflect(job, Some(busy)).await
    }

    async fn run_and_reflect(&self, job: BgJob, busy: Option<bool>) -> Result<BgOutcome, BgError> {
        let span = tracing::info_span!("bg_run", tag = %job.tag);
        async {
            let reflecting = Reflecting::before(&job);
            let (result, reports) = {
                let _slot = self.wait_turn().await;
                let busy = busy.unwrap_or_else(|| self.owner_busy());
                self.run_in_span(job, busy).await
            };
            // A job that was never started has nothing to reflect on. The reflection's
            // session is a CLI too: it waits for a slot under the same cap.
            if let Some(about) = reflecting.filter(|_| !matches!(result, Err(BgError::Refused(_))))
            {
                let _slot = self.wait_turn().await;
                reflect(&self.services, &self.front_end, about, &result, &reports).await;
            }
            result
        }
        .instrument(span)
        .await
    }

    /// A slot among the `bg_max_concurrent` runs allowed at once, in arrival order.
    async fn wait_turn(&self) -> super::run_gate::RunSlot<'_> {
        let limit = self.services.runtime.current().bg_max_concurrent;
        let limit = usize::try_from(limit).unwrap_or(usize::MAX);
        if self.gate.is_full() {
            tracing::info!(
                limit,
                "background runs at their limit; this one waits its turn"
            );
        }
        self.gate.enter(limit).await
    }

    /// Whether the owner is mid-conversation now (BGF-2).
    pub fn owner_busy(&self) -> bool {
        (self.busy)()
    }

    /// The run's result, and what it reported whatever became of it.
    async fn run_in_span(
        &self,
        mut job: BgJob,
        busy: bool,
    ) -> (Result<BgOutcome, BgError>, Vec<String>) {
        let admitted = match admit(&self.services, self.front_end.as_ref(), &mut job).await {
            Ok(admitted) => admitted,
            Err(refused) => return (Err(BgError::Refused(refused)), Vec::new()),
        };
        let (limit, max_turns) = {
            let runtime = self.services.runtime.current();
            (runtime.bg_fork_timeout, runtime.bg_max_turns)
        };
        let name = job.display_name();
        let tag = job.tag.clone();
        tracing::info!(tag = %job.tag, "background run started");
        let ticket = self.services.unfinished.begin(Work::Run {
            name: name.clone(),
            excerpt: excerpt(&job.body),
        });
        let run = Arc::new(BgRunState::new(
            job.options.allow_ping,
            job.options.update_mode,
            busy,
            self.services.ping_budget.clone(),
            job.lineage.clone(),
        ));
        let outcome = tokio::time::timeout(
            Duration::from_secs(limit),
            self.run_job(job, admitted, Arc::clone(&run), max_turns),
        )
        .await;
        ticket.finish();
        let reports = run.reports();
        let error = match outcome {
            Ok(Ok(outcome)) => {
                tracing::info!(%name, reported = outcome.reported, "background run finished");
                return (Ok(outcome), reports);
            }
            Ok(Err(error)) => BgError::from_agent(error, max_turns),
            Err(_) => {
                // On record without a cost: the CLI never said what it used (USE-7).
                self.services.usage.record(timed_out_record(
                    &tag,
                    limit,
                    self.services.clock.now(),
                ));
                BgError::TimedOut {
                    limit: Duration::from_secs(limit),
                }
            }
        };
        tracing::warn!(%name, %error, "background run failed");
        if let Err(error) = self.front_end.send_text(error.notice(&name)).await {
            tracing::warn!(%error, "could not tell the owner about the failed run");
        }
        (Err(error), reports)
    }

    async fn run_job(
        &self,
        job: BgJob,
        admitted: Admitted,
        run: Arc<BgRunState>,
        max_turns: u64,
    ) -> Result<BgOutcome, AgentError> {
        let services = &self.services;
        let busy = run.busy();
        if busy {
            tracing::info!(tag = %job.tag, "owner is mid-conversation; running quietly");
        }
        let main_id = services.sessions.load();
        let routine_sessions = &services.routine_sessions;
        let (resume, fork_session, scope) = match job.session {
            BgSession::Forked => (main_id.clone(), true, ToolScope::Background),
            BgSession::Isolated => (None, false, ToolScope::Background),
            BgSession::Persistent => (
                job.persistent_routine()
                    .and_then(|routine| routine_sessions.load(routine)),
                false,
                ToolScope::PersistentRoutine,
            ),
        };
        // The options first: they install the approved skills the prompt may start with.
        let options = self.client_options(&job, &admitted, (resume, fork_session), max_turns);
        let prompt = self.prompt(&job, busy, &admitted.held);
        let handles = RunHandles {
            run: Arc::clone(&run),
            chain: Arc::new(ChainSlot::with(job.chain_origin.clone())),
            scope,
        };
        let mut client = self.connect(&options, &handles).await?;
        let turn = CurrentTurn::default();
        let outcome = async {
            client.send(&UserContent::Text(prompt))?;
            run_turn(&mut client, &turn, &Unobserved, None).await
        }
        .await;
        let mut session_id = client.session_id().cloned();
        // REST-5: the run's CLI ends with the run, whatever became of it.
        client.disconnect(Duration::from_secs(5)).await;
        let report = outcome?;
        let record = background_record(&job.tag, &report.result, self.services.clock.now());
        for record in with_subagents(record, &report.subagents) {
            services.usage.record(record);
        }
        if report.result.hit_turn_limit() {
            return Err(AgentError::TurnLimit);
        }
        if report.result.is_error {
            return Err(AgentError::RunFailed(report.result.error_summary()));
        }
        if let (BgSession::Persistent, Some(instructions), Some(id)) =
            (job.session, run.take_compaction(), session_id.clone())
        {
            session_id = Some(self.compact(&options, &handles, &id, &instructions).await?);
        }
        let messages = run.take_messages();
        if let Some(id) = &session_id {
            let (event, parent) = match job.session {
                BgSession::Forked => (SessionEventKind::BgFork, main_id.as_ref()),
                BgSession::Isolated => (SessionEventKind::IsolatedBg, None),
                BgSession::Persistent => {
                    if let Some(routine) = job.persistent_routine() {
                        routine_sessions.save(routine, id)?;
                    }
                    (SessionEventKind::PersistentBg, None)
                }
            };
            services.sessions.log(id, event, parent)?;
            let parent = parent.map(SessionId::as_str);
            record_messages(
                services,
                &job,
                &options.allowed_tools,
                (id, parent),
                &messages,
            )?;
        }
        Ok(BgOutcome {
            session_id,
            reported: run.has_reported(),
            messages,
        })
    }

    /// The run's client options: resuming `resume` (as a fork of it when `fork_session`),
    /// the job's model, tools and thinking, at most `max_turns` model calls (USE-7).
    fn client_options(
        &self,
        job: &BgJob,
        admitted: &Admitted,
        (resume, fork_session): (Option<SessionId>, bool),
        max_turns: u64,
    ) -> ClientOptions {
        let services = &self.services;
        ClientOptions {
            model: job.options.model.clone(),
            permission_mode: Some(PermissionMode::Default),
            fork_session: fork_session && resume.is_some(),
            resume,
            allowed_tools: bg_allowed_tools(
                &services.tool_policy.current(),
                &admitted.granted,
                &job.options,
                job.session,
            ),
            disallowed_tools: match &job.options.tools {
                ToolRestriction::Disallowed(tools) => tools.clone(),
                ToolRestriction::None | ToolRestriction::Allowed(_) => Vec::new(),
            },
            // USE-7: a run still calling the model past this is stopped by the CLI.
            max_turns: Some(u32::try_from(max_turns).unwrap_or(u32::MAX)),
            // BGF-3: `thinking: true` → adaptive, `false` → off.
            thinking: Some(if job.options.thinking {
                Thinking::Adaptive
            } else {
                Thinking::Off
            }),
            ..base_options(services)
        }
    }

    /// Compacts a persistent routine's session after its turn (MCP-15, F-7): on a branch of
    /// that session, so the routine moves to a new, compacted id while the transcript before
    /// compaction stays on disk. Returns the new id.
    async fn compact(
        &self,
        base: &ClientOptions,
        handles: &RunHandles,
        id: &SessionId,
        instructions: &str,
    ) -> Result<SessionId, AgentError> {
        let options = ClientOptions {
            resume: Some(id.clone()),
            fork_session: true,
            ..base.clone()
        };
        let mut client = self.connect(&options, handles).await?;
        let outcome = async {
            client.send(&UserContent::Text(format!("/compact {instructions}")))?;
            let turn = CurrentTurn::default();
            run_turn(&mut client, &turn, &Unobserved, None).await
        }
        .await;
        let compacted = client.session_id().cloned();
        client.disconnect(Duration::from_secs(5)).await;
        let report = outcome?;
        if report.compaction.is_none() {
            return Err(AgentError::Compaction(report.result.error_summary()));
        }
        let compacted = compacted
            .ok_or_else(|| AgentError::Compaction("the CLI reported no session id".to_owned()))?;
        tracing::info!(from = %id.short(), to = %compacted.short(), "compacted a persistent routine's session");
        Ok(compacted)
    }
}

mod client_start;
mod ending;
mod prompt;

pub use ending::BgError;
