//! A background run's prompt: tag, preamble and body after the timestamp and the pending
//! updates (CTX-3, CTX-7, BGF-10).

use super::BgRunner;
use crate::{
    agent::prompt::context::{UpdatesView, compose_prompt, compose_timestamp_only},
    background::preamble::{PreambleInputs, build_preamble},
    domain::job_options::{BgSession, ToolRestriction},
    scheduling::bg_job::BgJob,
};

impl BgRunner {
    /// Tag, preamble and body, after the timestamp and (except isolated runs) the pending
    /// updates, peeked (CTX-3, CTX-7, BGF-10).
    pub(super) fn prompt(&self, job: &BgJob, busy: bool, held: &[String]) -> String {
        let services = &self.services;
        let budget_status = if job.options.allow_ping {
            match services.ping_budget.snapshot() {
                Ok(snapshot) => Some(snapshot.preamble_status()),
                Err(error) => {
                    tracing::warn!(%error, "could not read the ping budget");
                    None
                }
            }
        } else {
            None
        };
        let options = &job.options;
        let may_delegate = matches!(&options.tools, ToolRestriction::Allowed(tools)
            if tools.iter().any(|t| t == "Task" || t == "Agent" || t.starts_with("Task(") || t.starts_with("Agent(")))
            || options.subagent.is_some();
        let preamble = build_preamble(&PreambleInputs {
            session: job.session,
            options,
            busy,
            budget_status,
            schedule_text: job.schedule_text.clone(),
            held_tools: held,
            may_delegate,
            google_connected: crate::google::GoogleFiles::new(&services.data_dir).is_connected(),
            chain: job.chain.as_ref(),
            quiet_until: services
                .quiet_until(services.clock.now())
                .map(|until| services.hh_mm(until)),
        });
        let prefix = match &job.marker {
            Some(marker) => format!("{} {marker}\n", job.tag),
            None => format!("{} ", job.tag),
        };
        let body = if preamble.is_empty() {
            format!("{prefix}{}", job.body)
        } else {
            format!("{prefix}{preamble}\n\n{}", job.body)
        };
        let now = services
            .clock
            .now()
            .with_timezone(&services.config.timezone);
        match job.session {
            BgSession::Isolated => compose_timestamp_only(&body, now),
            BgSession::Forked | BgSession::Persistent => {
                compose_prompt(&body, now, &services.pending.peek(), UpdatesView::Peek)
            }
        }
    }
}
