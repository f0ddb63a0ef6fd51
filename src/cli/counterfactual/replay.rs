//! One replay run (CMD-10, issue 43): the transcript before the rewound message is
//! written into a scratch CLI home (`state/cli_homes/cf-*`), resumed from there branched into
//! a new session (`--resume=<copy> --fork-session`) by a main-session client in the owner's
//! sandbox, with the run's intervention; the message is sent, the turn read to its result,
//! and the scratch home — the copy and the branch's transcript in it — removed however the
//! run ends. No real transcript, and no record of which home holds a session, is touched.

use std::{sync::Arc, time::Duration};

use super::{
    output::{Block, Kind, Stats, Stopped},
    recording::RecordingFrontEnd,
};
use crate::{
    agent::{
        AgentError,
        client::{
            main_client::{base_options, cli_permission_mode},
            main_tools::main_allowed_tools,
            session_builder::{SessionDescription, SessionKind, connect_session},
        },
        permissions::policy::PermissionState,
        turn::{Unobserved, run_turn},
    },
    claude::{ClientOptions, PermissionMode, SessionId, SystemPrompt, UserContent},
    config::RuntimeConfig,
    domain::fork_control::ForkControl,
    front_end::{CurrentTurn, FrontEnd},
    mcp::{ToolScope, availability::ScopeCell},
    sandbox::SandboxError,
    scheduling::chain::ChainSlot,
    services::Services,
    transcripts::rewind::{answer_to, last_typed, parse_records},
};

/// How long the CLI may take to stop after its turn.
const DISCONNECT_GRACE: Duration = Duration::from_secs(5);

/// What a run changes about the system prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PromptChange {
    /// The main session's prompt, as recorded for the conversation.
    Keep,
    /// The main session's prompt, a blank line, then this.
    Append(String),
    /// This text alone, without the Claude Code preset.
    Replace(String),
}

/// How one run differs from the main session.
#[derive(Debug, Clone, PartialEq)]
pub struct RunSettings {
    /// The system prompt.
    pub prompt: PromptChange,
    /// The model (`None`: the main session's).
    pub model: Option<String>,
    /// Tools taken away (`--disallowedTools`).
    pub disallow: Vec<String>,
    /// Model calls allowed (`--max-turns`).
    pub max_turns: u32,
    /// Dollars allowed (`--max-budget-usd`).
    pub max_budget: f64,
}

/// Why a run could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The scratch home could not be made or written.
    #[error("cannot prepare the replay's CLI home: {0}")]
    Home(#[from] SandboxError),
    /// The copy of the transcript could not be written.
    #[error("cannot write the replay's transcript: {0}")]
    Write(#[from] std::io::Error),
    /// The CLI did not start, or failed.
    #[error(transparent)]
    Agent(#[from] AgentError),
}

/// The CLI options of a run: the main session's (its tools, thinking, the `discord` and docs
/// MCP servers, the approved content), in `dontAsk`, resuming `resume` branched, with the
/// run's changes. The prompt snapshot the conversation recorded is only bypassed when the run
/// changes the prompt, so an unchanged run sends the original's system prompt as it was.
pub fn run_options(
    services: &Services,
    runtime: &RuntimeConfig,
    settings: &RunSettings,
    resume: SessionId,
) -> ClientOptions {
    let base = base_options(services);
    let disallowed = |rule: &String| {
        settings.disallow.iter().any(|tool| {
            rule == tool
                || rule
                    .strip_prefix(tool.as_str())
                    .is_some_and(|rest| rest.starts_with('('))
        })
    };
    let mut allowed_tools = main_allowed_tools(services);
    allowed_tools.retain(|rule| !disallowed(rule));
    let system_prompt = match (&settings.prompt, base.system_prompt.clone()) {
        (PromptChange::Keep, prompt) => prompt,
        (PromptChange::Append(text), SystemPrompt::Preset { append }) => SystemPrompt::Preset {
            append: Some(match append {
                Some(ours) => format!("{ours}\n\n{text}"),
                None => text.clone(),
            }),
        },
        (PromptChange::Append(text), _) => SystemPrompt::Preset {
            append: Some(text.clone()),
        },
        (PromptChange::Replace(text), _) => SystemPrompt::Custom(text.clone()),
    };
    let mut extra_args = vec![
        "--max-budget-usd".to_owned(),
        settings.max_budget.to_string(),
    ];
    if settings.prompt != PromptChange::Keep {
        extra_args.extend(["--system-prompt-snapshot".to_owned(), "off".to_owned()]);
    }
    ClientOptions {
        model: settings
            .model
            .clone()
            .or_else(|| runtime.model_main.clone()),
        thinking: Some(runtime.thinking_main),
        permission_mode: Some(cli_permission_mode(PermissionMode::DontAsk)),
        resume: Some(resume),
        fork_session: true,
        allowed_tools,
        disallowed_tools: settings.disallow.clone(),
        max_turns: Some(settings.max_turns),
        system_prompt,
        extra_args,
        // Nothing is recorded of a scratch home's sessions.
        session_observer: None,
        ..base
    }
}

/// Runs `prompt` on `resumed` (the transcript lines before the rewound message) with
/// `settings`, as the block of `kind`.
#[tracing::instrument(name = "counterfactual_run", skip_all, fields(kind = ?kind))]
pub async fn run(
    services: &Arc<Services>,
    runtime: &RuntimeConfig,
    (kind, settings): (Kind, &RunSettings),
    resumed: &str,
    prompt: &str,
) -> Result<Block, ReplayError> {
    let scratch = services.sandbox.homes().scratch()?;
    let copy = SessionId::new_random();
    let projects = services.sandbox.homes().transcripts_in(scratch.path());
    std::fs::create_dir_all(&projects)?;
    std::fs::write(projects.join(format!("{copy}.jsonl")), resumed)?;
    let mut pinned = Services::clone(services);
    pinned.sandbox = services.sandbox.pinned_to(scratch.path().to_path_buf());
    let services = Arc::new(pinned);
    let options = run_options(&services, runtime, settings, copy);
    let recording = Arc::new(RecordingFrontEnd::default());
    let front_end: Arc<dyn FrontEnd> = recording.clone();
    let turn = CurrentTurn::default();
    let description = SessionDescription {
        services: &services,
        front_end: &front_end,
        chain: Arc::new(ChainSlot::default()),
        kind: SessionKind::Interactive {
            permissions: Arc::new(PermissionState::new(true)),
            turn: turn.clone(),
            fork_control: Arc::new(ForkControl::default()),
            fork: None,
            scope: Arc::new(ScopeCell::new(ToolScope::Main)),
            live_rules: None,
            offer_rules: Vec::new(),
        },
    };
    let mut client = connect_session(description, &options).await?;
    let outcome = async {
        client.send(&UserContent::Text(prompt.to_owned()))?;
        run_turn(&mut client, &turn, &Unobserved, None).await
    }
    .await;
    client.disconnect(DISCONNECT_GRACE).await;
    let report = outcome.map_err(AgentError::from)?;
    let result = &report.result;
    // The branch's transcript, in the scratch home, holds the run's tool calls.
    let branch = projects.join(format!("{}.jsonl", result.session_id));
    let tools = std::fs::read_to_string(&branch)
        .map(|text| {
            let lines: Vec<String> = text.lines().map(str::to_owned).collect();
            let records = parse_records(&lines);
            last_typed(&records).map_or_else(Vec::new, |uuid| answer_to(&records, uuid).tools)
        })
        .unwrap_or_default();
    let stopped = if result.subtype == "error_max_turns" {
        Some(Stopped::MaxTurns)
    } else if result.subtype == "error_max_budget_usd" {
        Some(Stopped::Budget)
    } else if result.is_error && !result.was_interrupted() {
        Some(Stopped::Error(result.error_summary()))
    } else {
        None
    };
    drop(scratch);
    Ok(Block {
        kind,
        text: report.text.clone(),
        tools,
        posted: recording.posted(),
        stats: Stats {
            turns: Some(result.num_turns),
            cost: result.total_cost_usd,
            input: result.usage.as_ref().map(|usage| usage.input_tokens),
            output: result.usage.as_ref().map(|usage| usage.output_tokens),
            stopped,
        },
    })
}
