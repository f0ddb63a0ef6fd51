//! One builder for every kind of Claude session the bot runs — the main session, an
//! interactive fork, a background run (forked, isolated), a persistent routine's session and
//! the webhook screening session: from one description it assembles the `discord` tools and
//! their bridge, the permission policy and the hooks, and starts the CLI (AGT-6…8, BGF-7,
//! BGF-8, HKS-1…4, WHK-12), offering the model only the tools the session may ever use
//! ([`super::tool_offer`], issue 17).

use std::sync::Arc;

use super::tool_offer::{builtin_offer, discord_offer};
use crate::agent::{
    AgentError,
    permissions::{
        background_policy::{BgPolicy, stop_hook},
        hooks::{MainHookDeps, main_hooks},
        live_rules::LiveRules,
        outbound_hold::HoldDeps,
        policy::{PermissionPolicy, PermissionState},
    },
};
use crate::{
    claude::{
        ClaudeClient, ClientOptions, ControlHandlers, McpMessageHandler, PermissionHandler,
        SessionId, StartTransition, Starter,
    },
    domain::fork_control::{ForkControl, ForkId},
    front_end::{CurrentTurn, FrontEnd},
    mcp::{
        BgRunState, DiscordTools, McpBridge, ToolContext, ToolScope, ToolSession,
        availability::ScopeCell,
    },
    sandbox::{
        Confinement, Gate,
        egress::{ToolReach, reach_of_tools},
    },
    scheduling::chain::ChainSlot,
    services::Services,
};

/// What differs between kinds of session.
pub enum SessionKind {
    /// The main session or an interactive fork: the owner's permission mode (asking through
    /// the front end when it isn't `dontAsk`), the fork switchboard, and a scope cell that
    /// a saved fork switches to main in place.
    Interactive {
        /// The shared `dontAsk` flag and session allowances.
        permissions: Arc<PermissionState>,
        /// The turn in progress, for struck-through labels.
        turn: CurrentTurn,
        /// Requests the fork tools leave for the session.
        fork_control: Arc<ForkControl>,
        /// The interactive fork it is started for (`None`: main's).
        fork: Option<ForkId>,
        /// Main or interactive fork.
        scope: Arc<ScopeCell>,
        /// Rules that widen it while it runs (PRM-11, issue 23 §4); `None` for a client
        /// resumed from a background run's session, whose set is that run's.
        live_rules: Option<Arc<LiveRules>>,
        /// Rules whose tools it is offered though they are not allowed (the tools granted to
        /// foreground jobs, allowed during their turns only).
        offer_rules: Vec<String>,
    },
    /// A background run (forked, isolated or a persistent routine's): never asks anyone,
    /// gates the Discord tools on its own state, and reports as its mode demands.
    Background {
        /// The run's ping gate, counters and report flag.
        run: Arc<BgRunState>,
        /// Background or persistent routine.
        scope: ToolScope,
    },
    /// An answer-only session (the webhook screening, WHK-12; a nudge's words, NAG-5): it
    /// reads untrusted text, so it gets nothing to act with — no `discord` server, no
    /// permission handler (the CLI denies whatever its options don't allow, and they allow
    /// nothing), no hooks.
    AnswerOnly,
}

/// Everything one session's client is made from, besides its CLI options.
pub struct SessionDescription<'a> {
    /// The shared stores.
    pub services: &'a Arc<Services>,
    /// Where visible output and approval requests go.
    pub front_end: &'a Arc<dyn FrontEnd>,
    /// The chain reminder being run, for `follow_up_chain` (REM-8).
    pub chain: Arc<ChainSlot>,
    /// The kind of session.
    pub kind: SessionKind,
}

/// Starts the CLI for `description` with `options`, through the shared start gate: while the
/// CLI keeps dying at start, starts are spaced out and the owner hears of it once (issue 16).
pub async fn connect_session(
    description: SessionDescription<'_>,
    options: &ClientOptions,
) -> Result<ClaudeClient, AgentError> {
    let gate = Arc::clone(&description.services.cli_start);
    let front_end = Arc::clone(description.front_end);
    let starter = match description.kind {
        SessionKind::Interactive { .. } => Starter::Owner,
        SessionKind::Background { .. } | SessionKind::AnswerOnly => Starter::Background,
    };
    let clock = description.services.clock.clone();
    gate.admit(starter, clock.instant())?;
    let outcome = start_session(description, options).await;
    let now = clock.instant();
    let transition = match &outcome {
        Ok(_) => gate.record(&Ok(()), now),
        Err(AgentError::Claude(error)) => gate.record(&Err(error), now),
        Err(_) => StartTransition::Unchanged,
    };
    // The owner's own turn reports a failure in its reply (marking the streak told); work
    // in the background has nobody watching, so the owner gets one DM for the streak and one
    // when it ends.
    let notice = match (starter, &transition, &outcome) {
        (Starter::Background, _, Err(error)) if gate.tell_once() => Some(format!(
            "I can't start Claude Code, so scheduled work is waiting: {error}. I'll keep \
             trying, waiting longer each time (up to 5 minutes), and tell you when it works \
             again. `ollim-bot doctor` checks the install."
        )),
        (
            Starter::Background,
            StartTransition::Recovered {
                failures,
                told: true,
            },
            Ok(_),
        ) => Some(format!(
            "Claude Code starts again (after {failures} failed tries); waiting work goes ahead."
        )),
        _ => None,
    };
    if let Some(text) = notice
        && let Err(error) = front_end.send_text(text).await
    {
        tracing::warn!(%error, "could not tell the owner about the CLI's starts");
    }
    outcome.map_err(|error| match error {
        AgentError::Claude(error) => AgentError::Claude(gate.explain(error, now)),
        other => other,
    })
}

/// What the session's container may reach (issue 39 §3): a conversation reaches any host until
/// it (or the conversation it resumes or branches) has read mail; a background run, what its
/// granted `WebFetch` rules name; an answer-only session, nothing but the model API.
fn session_gate(services: &Services, kind: &SessionKind, options: &ClientOptions) -> Arc<Gate> {
    match kind {
        SessionKind::Interactive { .. } => {
            let lineage: Vec<&str> = options.resume.iter().map(SessionId::as_str).collect();
            Gate::conversation(services.untrusted.any(&lineage))
        }
        SessionKind::Background { .. } => Gate::background(reach_of_tools(&options.allowed_tools)),
        SessionKind::AnswerOnly => Gate::background(ToolReach::Hosts(Vec::new())),
    }
}

/// Assembles the session's tools, policy and hooks and starts its CLI.
async fn start_session(
    description: SessionDescription<'_>,
    options: &ClientOptions,
) -> Result<ClaudeClient, AgentError> {
    let SessionDescription {
        services,
        front_end,
        chain,
        kind,
    } = description;
    let mut options = options.clone();
    options.builtin_tools = builtin_offer(&kind, &options.allowed_tools);
    let gate = session_gate(services, &kind, &options);
    options.confine = Some(super::main_client::confine_in(
        &services.sandbox,
        match kind {
            SessionKind::Interactive { .. } => Confinement::Owner,
            SessionKind::Background { .. } | SessionKind::AnswerOnly => Confinement::Background,
        },
        Arc::clone(&gate),
    ));
    let options = &options;
    let listed = discord_offer(&kind, &chain, &options.allowed_tools);
    let data_dir = &services.data_dir;
    let hook_deps = |permissions, turn, live_rules, hold| MainHookDeps {
        gate: Arc::clone(&gate),
        data_dir: data_dir.clone(),
        git: Some(services.git.clone()),
        permissions,
        turn,
        allowed_tools: options.allowed_tools.clone(),
        live_rules,
        untrusted: services.untrusted.clone(),
        hold,
    };
    let (scope, session, policy, hooks): (_, _, Arc<dyn PermissionHandler>, _) = match kind {
        SessionKind::AnswerOnly => {
            return Ok(ClaudeClient::connect(options, ControlHandlers::default()).await?);
        }
        SessionKind::Interactive {
            permissions,
            turn,
            fork_control,
            fork,
            scope,
            live_rules,
            ..
        } => {
            let mut policy = PermissionPolicy::new(
                data_dir.clone(),
                Arc::clone(&permissions),
                Arc::clone(front_end),
                turn.clone(),
            );
            if let Some(rules) = &live_rules {
                policy = policy.with_live_rules(Arc::clone(rules));
            }
            let session = ToolSession::Interactive {
                services: Arc::clone(services),
                fork_control,
                fork,
                chain,
            };
            let hold = HoldDeps {
                front_end: Arc::clone(front_end),
                lineage: options.resume.as_ref().map(|id| id.as_str().to_owned()),
            };
            let hooks = main_hooks(hook_deps(permissions, turn, live_rules, Some(hold)));
            (scope, session, Arc::new(Arc::new(policy)), hooks)
        }
        SessionKind::Background { run, scope } => {
            let policy = BgPolicy::new(data_dir.clone(), Arc::clone(&run), scope);
            // Always enforce the run's own rules: the CLI runs read-only Bash without asking.
            let permissions = Arc::new(PermissionState::new(true));
            let mut hooks = main_hooks(hook_deps(permissions, CurrentTurn::default(), None, None));
            hooks.push(stop_hook(Arc::clone(&run)));
            let session = ToolSession::Background {
                services: Arc::clone(services),
                run,
                chain,
            };
            let scope = Arc::new(ScopeCell::new(scope));
            (scope, session, Arc::new(policy), hooks)
        }
    };
    let context = ToolContext {
        scope,
        front_end: Arc::clone(front_end),
        session,
    };
    let tools = match &listed {
        Some(listed) => DiscordTools::listing(context, listed),
        None => DiscordTools::new(context),
    };
    let bridge: Arc<dyn McpMessageHandler> = Arc::new(Arc::new(McpBridge::start(tools).await?));
    let handlers = ControlHandlers {
        permissions: Some(policy),
        hooks,
        mcp_servers: vec![("discord".to_owned(), bridge)],
    };
    Ok(ClaudeClient::connect(options, handlers).await?)
}
