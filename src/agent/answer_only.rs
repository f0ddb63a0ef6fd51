//! A session that can do nothing but answer (WHK-12, NAG-5): haiku (or the model a question
//! names), thinking off, no tools at
//! all (`--tools ""`), no MCP servers, no settings, no hooks, a one-turn limit and a fixed
//! system prompt of our own. The webhook screening asks one about untrusted text; the nag
//! keeper asks one for the words of a nudge. Whatever the text it is given says, the worst it
//! can do here is make the answer unusable, and each caller has its own way to carry on
//! without one.

use std::{sync::Arc, time::Duration};

use super::{
    AgentError,
    client::{
        main_client::base_options,
        session_builder::{SessionDescription, SessionKind, connect_session},
    },
    turn::{Unobserved, run_turn, spend::usage_record},
};
use crate::{
    claude::{ClientOptions, PermissionMode, SystemPrompt, Thinking, Transcript, UserContent},
    front_end::{CurrentTurn, FrontEnd},
    scheduling::chain::ChainSlot,
    services::Services,
    usage::UsageKind,
};

/// The model that answers.
pub const ANSWER_ONLY_MODEL: &str = "haiku";

/// One question for an answer-only session.
#[derive(Debug, Clone)]
pub struct Question {
    /// The whole system prompt.
    pub system_prompt: &'static str,
    /// The model that answers ([`ANSWER_ONLY_MODEL`] unless the question needs another).
    pub model: &'static str,
    /// What its cost is on record as, and for which job.
    pub usage: (UsageKind, Option<String>),
    /// The question.
    pub prompt: String,
    /// How long the answer may take.
    pub limit: Duration,
}

/// Why a session produced no answer.
#[derive(Debug, thiserror::Error)]
pub enum AnswerOnlyError {
    /// No answer within the limit.
    #[error("the answer-only session gave no answer within {0} s")]
    TimedOut(u64),
    /// The session failed to start or ended with an error.
    #[error("the answer-only session failed: {0}")]
    Failed(#[from] AgentError),
}

/// The CLI options of a session of `model` answering under `system_prompt`.
pub(super) fn answer_only_options(
    services: &Services,
    system_prompt: &str,
    model: &str,
) -> ClientOptions {
    let mut options = ClientOptions {
        system_prompt: SystemPrompt::Custom(system_prompt.to_owned()),
        model: Some(model.to_owned()),
        thinking: Some(Thinking::Off),
        permission_mode: Some(PermissionMode::DontAsk),
        setting_sources: Some(Vec::new()),
        max_turns: Some(1),
        // Nothing to resume, and recall must never read its question (untrusted text, or the
        // bot's own wording) as the owner's words.
        transcript: Transcript::NotKept,
        builtin_tools: Some(Vec::new()),
        // No skills, commands or subagents: one question, one answer.
        plugin_dirs: Vec::new(),
        agents: None,
        ..base_options(services)
    };
    options.mcp_servers.clear();
    options
}

/// Asks `question` and returns the text answered, within its limit.
pub async fn ask(
    services: &Arc<Services>,
    front_end: &Arc<dyn FrontEnd>,
    question: Question,
) -> Result<String, AnswerOnlyError> {
    let options = answer_only_options(services, question.system_prompt, question.model);
    let (kind, job) = question.usage;
    let ask = async {
        let description = SessionDescription {
            services,
            front_end,
            chain: Arc::new(ChainSlot::default()),
            kind: SessionKind::AnswerOnly,
        };
        let mut client = connect_session(description, &options).await?;
        let outcome = async {
            client.send(&UserContent::Text(question.prompt))?;
            run_turn(&mut client, &CurrentTurn::default(), &Unobserved, None).await
        }
        .await;
        client.disconnect(Duration::from_secs(5)).await;
        let report = outcome?;
        services.usage.record(usage_record(
            kind,
            job,
            &report.result,
            services.clock.now(),
        ));
        if report.result.is_error {
            return Err(AgentError::RunFailed(report.result.error_summary()));
        }
        Ok(report.text)
    };
    match tokio::time::timeout(question.limit, ask).await {
        Ok(answer) => Ok(answer?),
        Err(_) => Err(AnswerOnlyError::TimedOut(question.limit.as_secs())),
    }
}
