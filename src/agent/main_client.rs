//! How a main-session client is built: options (AGT-1…6), hooks, the permission policy and
//! the `discord` MCP server bound to this session.

use std::sync::Arc;

use super::{
    AgentError,
    hooks::{MainHookDeps, main_hooks},
    main_tools::main_allowed_tools,
    permissions::{PermissionPolicy, PermissionState},
    session::{MainSettings, cli_permission_mode},
    system_prompt::{SystemPromptInputs, build_system_prompt},
};
use crate::front_end::{CurrentTurn, FrontEnd};
use crate::services::Services;
use crate::{
    claude::{
        ClaudeClient, ClientOptions, ControlHandlers, McpMessageHandler, McpServerConfig,
        PermissionHandler, SessionId, SystemPrompt,
    },
    domain::fork_control::ForkControl,
    mcp::{DiscordTools, McpBridge, ToolContext, availability::ScopeCell},
    scheduling::chain::ChainSlot,
};

/// What a main-session or interactive-fork client is made from.
pub(crate) struct MainClientParts<'a> {
    pub services: &'a Arc<Services>,
    pub front_end: &'a Arc<dyn FrontEnd>,
    pub permissions: &'a Arc<PermissionState>,
    pub turn: &'a CurrentTurn,
    pub settings: &'a MainSettings,
    pub fork_control: &'a Arc<ForkControl>,
    /// The chain reminder a foreground fire is running, for `follow_up_chain` (REM-8).
    pub chain: &'a Arc<ChainSlot>,
    /// The client's scope: main, or an interactive fork (which may later become main).
    pub scope: Arc<ScopeCell>,
    /// Branch `resume` into a new session id instead of continuing it (AGT-11).
    pub fork_session: bool,
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
            allowed_tools: main_allowed_tools(self.services),
            thinking: Some(self.settings.thinking),
            include_partial_messages: true,
            ..base_options(self.services)
        }
    }

    /// Starts the CLI, resuming `resume` when given.
    pub(crate) async fn connect(
        &self,
        resume: Option<SessionId>,
    ) -> Result<ClaudeClient, AgentError> {
        let options = self.options(resume);
        let data_dir = &self.services.data_dir;
        let tools = DiscordTools::new(ToolContext {
            scope: Arc::clone(&self.scope),
            front_end: Arc::clone(self.front_end),
            services: Some(Arc::clone(self.services)),
            fork_control: Some(Arc::clone(self.fork_control)),
            bg_run: None,
            chain: Some(Arc::clone(self.chain)),
        });
        let bridge: Arc<dyn McpMessageHandler> = Arc::new(Arc::new(McpBridge::start(tools).await?));
        let policy = Arc::new(
            PermissionPolicy::new(
                data_dir.clone(),
                Arc::clone(self.permissions),
                Arc::clone(self.front_end),
                self.turn.clone(),
            )
            .with_live_policy(Arc::clone(&self.services.tool_policy)),
        );
        let permissions: Arc<dyn PermissionHandler> = Arc::new(policy);
        let handlers = ControlHandlers {
            permissions: Some(permissions),
            hooks: main_hooks(MainHookDeps {
                data_dir: data_dir.clone(),
                git: Some(self.services.git.clone()),
                permissions: Arc::clone(self.permissions),
                turn: self.turn.clone(),
                allowed_tools: options.allowed_tools.clone(),
                live_policy: Some(Arc::clone(&self.services.tool_policy)),
            }),
            mcp_servers: vec![("discord".to_owned(), bridge)],
        };
        Ok(ClaudeClient::connect(&options, handlers).await?)
    }
}

/// Options every client shares (AGT-1, AGT-3, AGT-4): the data dir as cwd, project settings
/// only, the preset system prompt with ours appended, the CLI's extra environment, and the
/// `discord` (in-process) and `docs` MCP servers.
pub(crate) fn base_options(services: &Services) -> ClientOptions {
    let config = &services.config;
    let data_dir = &services.data_dir;
    let prompt = build_system_prompt(&SystemPromptInputs {
        user_name: &config.user_name,
        bot_name: &config.bot_name,
        timezone: config.timezone,
        data_dir: data_dir.root(),
    });
    let mut options = ClientOptions {
        cli_path: config.claude_cli.clone(),
        cwd: data_dir.root().to_path_buf(),
        system_prompt: SystemPrompt::Preset {
            append: Some(prompt),
        },
        setting_sources: Some(vec!["project".to_owned()]),
        env: config.cli_env.clone(),
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
