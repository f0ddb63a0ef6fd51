//! A main-session or interactive-fork client: its CLI options (AGT-1…6); the client itself is
//! assembled by the session builder.

use std::sync::Arc;

use super::{
    main_tools::{job_offer_rules, main_allowed_tools},
    session_builder::{SessionDescription, SessionKind, connect_session},
    tool_offer::interactive_offer,
};
use crate::agent::{
    AgentError,
    permissions::{live_rules::LiveRules, policy::PermissionState},
    prompt::system_prompt::{SystemPromptInputs, build_system_prompt},
};
use crate::{
    claude::{
        ClaudeClient, ClientOptions, McpServerConfig, PermissionMode, SessionId, StartUp,
        SystemPrompt, Thinking,
    },
    domain::fork_control::{ForkControl, ForkId},
    front_end::{CurrentTurn, FrontEnd},
    mcp::availability::ScopeCell,
    sandbox::{Confinement, Gate, Sandbox},
    scheduling::chain::ChainSlot,
    services::Services,
};

/// The settings of the main session's or a fork's client that can change at run time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MainSettings {
    /// Model alias or name; `None` = the CLI's default.
    pub model: Option<String>,
    /// Thinking mode.
    pub thinking: Thinking,
    /// Permission mode (`dontAsk` is enforced by the bot, AGT-6).
    pub permission_mode: PermissionMode,
}

/// The mode the CLI runs in: `dontAsk` is enforced by the bot's own callback (AGT-6).
pub(crate) fn cli_permission_mode(mode: PermissionMode) -> PermissionMode {
    match mode {
        PermissionMode::DontAsk => PermissionMode::Default,
        other => other,
    }
}

/// The tools an owner-facing client runs with.
#[derive(Clone)]
pub(crate) enum ClientTools {
    /// The main session's set (AGT-5), widened while the client runs by `tool-policy.yaml`
    /// and by the foreground job whose turn is running (issue 23 §4).
    Main(Arc<LiveRules>),
    /// A background run's own `--allowedTools`, resumed by the owner (a reply to one of its
    /// messages, a button on one): nothing widens it (issue 23 §4).
    Run(Arc<[String]>),
}

impl ClientTools {
    /// The live rules that widen it, unless it is a background run's set.
    pub(crate) fn rules(&self) -> Option<Arc<LiveRules>> {
        match self {
            ClientTools::Main(rules) => Some(Arc::clone(rules)),
            ClientTools::Run(_) => None,
        }
    }
}

/// What a main-session or interactive-fork client is made from.
pub(crate) struct MainClientParts<'a> {
    pub services: &'a Arc<Services>,
    pub front_end: &'a Arc<dyn FrontEnd>,
    pub permissions: &'a Arc<PermissionState>,
    pub turn: &'a CurrentTurn,
    pub settings: &'a MainSettings,
    pub fork_control: &'a Arc<ForkControl>,
    /// The interactive fork it is started for (`None`: main's).
    pub fork: Option<ForkId>,
    /// The chain reminder a foreground fire is running, for `follow_up_chain` (REM-8).
    pub chain: &'a Arc<ChainSlot>,
    /// The client's scope: main, or an interactive fork (which may later become main).
    pub scope: Arc<ScopeCell>,
    /// Branch `resume` into a new session id instead of continuing it (AGT-11).
    pub fork_session: bool,
    /// The tool set it runs with.
    pub tools: &'a ClientTools,
    /// Started for a turn, or ahead of one (issue 29, REST-2).
    pub start_up: StartUp,
}

impl MainClientParts<'_> {
    /// The CLI options: the shared base plus this session's model, thinking, permission
    /// mode, resume and allowed tools, with partial messages for streaming.
    pub(crate) fn options(&self, resume: Option<SessionId>) -> ClientOptions {
        ClientOptions {
            model: self.settings.model.clone(),
            permission_mode: Some(cli_permission_mode(self.settings.permission_mode)),
            fork_session: self.fork_session && resume.is_some(),
            resume,
            allowed_tools: match self.tools {
                ClientTools::Main(_) => main_allowed_tools(self.services),
                ClientTools::Run(tools) => tools.to_vec(),
            },
            thinking: Some(self.settings.thinking),
            include_partial_messages: true,
            start_up: self.start_up,
            ..base_options(self.services)
        }
    }

    /// Starts the CLI, resuming `resume` when given.
    pub(crate) async fn connect(
        &self,
        resume: Option<SessionId>,
    ) -> Result<ClaudeClient, AgentError> {
        Ok(self.connect_offering(resume).await?.0)
    }

    /// [`Self::connect`], also returning the built-in tools the client is offered (`None`:
    /// the CLI's default set), so the session can tell when the offer falls behind (issue 17).
    pub(crate) async fn connect_offering(
        &self,
        resume: Option<SessionId>,
    ) -> Result<(ClaudeClient, Option<Vec<String>>), AgentError> {
        let options = self.options(resume);
        let (live_rules, offer_rules) = match self.tools {
            ClientTools::Main(rules) => (Some(Arc::clone(rules)), job_offer_rules(self.services)),
            ClientTools::Run(_) => (None, Vec::new()),
        };
        let mut offer_basis = options.allowed_tools.clone();
        offer_basis.extend(offer_rules.iter().cloned());
        let offered = interactive_offer(self.permissions, &offer_basis);
        let description = SessionDescription {
            services: self.services,
            front_end: self.front_end,
            chain: Arc::clone(self.chain),
            kind: SessionKind::Interactive {
                permissions: Arc::clone(self.permissions),
                turn: self.turn.clone(),
                fork_control: Arc::clone(self.fork_control),
                fork: self.fork,
                scope: Arc::clone(&self.scope),
                live_rules,
                offer_rules,
            },
        };
        let client = connect_session(description, &options).await?;
        let pending = super::executable_content::pending_content(self.services);
        crate::content_approval::ask_owner(
            &self.services.content_approvals,
            self.front_end.as_ref(),
            &pending,
        )
        .await;
        Ok((client, offered))
    }
}

/// The hook that puts a CLI child into the agent's sandbox (issue 23, BOX-1), in a container
/// of its own whose network is what `gate` allows (issue 39).
pub(crate) fn confine_in(
    sandbox: &Sandbox,
    confinement: Confinement,
    gate: Arc<Gate>,
) -> crate::claude::Confine {
    let sandbox = sandbox.clone();
    Arc::new(move |invocation| {
        let confined = sandbox
            .confine(invocation, confinement, Some(Arc::clone(&gate)))
            .map_err(std::io::Error::other)?;
        Ok(Some(Box::new(confined) as crate::claude::Attachment))
    })
}

/// Records which CLI home holds each session the CLI reports (issue 39).
fn observe_sessions(sandbox: &Sandbox) -> crate::claude::SessionObserver {
    let homes = sandbox.homes().clone();
    std::sync::Arc::new(move |session, home| homes.record(session.as_str(), home))
}

/// Options every client shares (AGT-1, AGT-3, AGT-4): the data dir as cwd, no setting
/// sources but the content the owner approved (issue 23 §2), the preset system prompt with ours appended and its per-machine sections moved into
/// the first user message (so the system prompt is byte-identical across turns, days and
/// restarts and the API can cache it, issue 17), the CLI's extra environment, and the
/// `discord` (in-process) and `docs` MCP servers.
pub(crate) fn base_options(services: &Services) -> ClientOptions {
    // First: the system prompt lists the approved skills this installs.
    let mut content = ClientOptions::default();
    super::executable_content::deliver(services, &mut content);
    let config = &services.config;
    let data_dir = &services.data_dir;
    let prompt = build_system_prompt(&SystemPromptInputs {
        user_name: &config.user_name,
        bot_name: &config.bot_name,
        timezone: config.timezone,
        data_dir: data_dir.root(),
        google_connected: crate::google::GoogleFiles::new(data_dir).is_connected(),
    });
    let mut options = ClientOptions {
        cli_path: config.claude_cli.clone(),
        cwd: data_dir.root().to_path_buf(),
        system_prompt: SystemPrompt::Preset {
            append: Some(prompt),
        },
        exclude_dynamic_sections: super::tool_offer::narrowed(),
        setting_sources: content.setting_sources,
        plugin_dirs: content.plugin_dirs,
        agents: content.agents,
        settings: content.settings,
        env: config.cli_env.clone(),
        session_observer: Some(observe_sessions(&services.sandbox)),
        ..ClientOptions::default()
    };
    options
        .mcp_servers
        .insert("discord".to_owned(), McpServerConfig::Sdk);
    if let Some(url) = &config.docs_mcp_url {
        options.mcp_servers.insert(
            "docs".to_owned(),
            McpServerConfig::Http { url: url.clone() },
        );
    }
    options
}
