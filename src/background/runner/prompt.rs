//! A background run's prompt: tag, preamble and body after the timestamp and the pending
//! updates (CTX-3, CTX-7, BGF-10); a body that starts with a slash command before them all
//! (CTX-11).

use super::BgRunner;
use crate::{
    agent::prompt::context::{UpdatesView, command_first, compose_prompt, compose_timestamp_only},
    background::preamble::{PreambleInputs, build_preamble},
    domain::job_options::{BgSession, ToolRestriction},
    scheduling::bg_job::BgJob,
    skills::leading_command,
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
        let opening = format!("{prefix}{preamble}").trim_end().to_owned();
        // CTX-11: a body that starts with an approved skill or command goes first, for the
        // CLI to run it; the time, the updates, the tag and the preamble follow it.
        let leads = leading_command(&job.body, &services.data_dir).is_some();
        let text = if leads {
            opening
        } else {
            format!("{opening}\n\n{}", job.body)
        };
        let now = services
            .clock
            .now()
            .with_timezone(&services.config.timezone);
        let composed = match job.session {
            BgSession::Isolated => compose_timestamp_only(&text, now),
            BgSession::Forked | BgSession::Persistent => {
                compose_prompt(&text, now, &services.pending.peek(), UpdatesView::Peek)
            }
        };
        if leads {
            command_first(&job.body, &composed)
        } else {
            composed
        }
    }
}
