//! Configuration from `.env` and the environment, validated once at start-up.
//!
//! Every invalid or missing value yields one line naming the variable and an example value.

mod claude_cli;
mod dirs;
pub mod env_keys;
pub mod environment;
mod fs_events;
mod launch;
mod network;
pub mod runtime;
mod session_limits;
mod timezone;
mod webhook;

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
};

use chrono_tz::Tz;

pub use claude_cli::{
    ClaudeCli, CliOrigin, bot_cli_dir, bot_cli_executable, claude_cli_from, inside_data_dir,
};
use dirs::cli_env_for;
pub(crate) use dirs::expand_home;
pub use dirs::{bot_cli_config_dir, cli_env_from, data_dir_from};
pub use fs_events::FsEvents;
pub use launch::{EnvFileSource, Launch, LaunchError};
pub use network::UpstreamProxy;
pub use runtime::{ConfigFile, RuntimeConfig};
pub use session_limits::SessionLimits;
pub use timezone::system_timezone;
pub use webhook::{DEFAULT_WEBHOOK_BIND, WebhookSecret, WebhookSetting};

/// The default remote MCP server with the ollim-bot documentation (AGT-4).
pub const DEFAULT_DOCS_MCP_URL: &str = "https://docs.ollim.ai/mcp";
/// The variable overriding the Google API host (`google::client::DEFAULT_API_BASE`): the fake
/// Google in tests.
pub const GOOGLE_API_URL_ENV: &str = "OLLIM_GOOGLE_API_URL";
/// The variable naming the test clock's file (issue 40 §2; see [`crate::clock`]).
pub const TEST_CLOCK_ENV: &str = "OLLIM_TEST_CLOCK";

/// A configuration problem, phrased for the person fixing it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// A required variable is unset or empty.
    #[error("{name} is not set: {hint} (e.g. {name}={example} in .env)")]
    Missing {
        /// Variable name.
        name: &'static str,
        /// What it is for.
        hint: &'static str,
        /// An example value.
        example: &'static str,
    },
    /// A variable has an unusable value.
    #[error("{name}={value:?} is invalid: {reason} (e.g. {name}={example})")]
    Invalid {
        /// Variable name.
        name: &'static str,
        /// The value found.
        value: String,
        /// Why it is refused.
        reason: &'static str,
        /// An example value.
        example: &'static str,
    },
}

/// Static configuration of one ollim-bot instance. Its `Debug` shows the names of
/// [`Self::cli_env`] but never their values (API keys live there).
#[derive(Clone, PartialEq)]
pub struct Config {
    /// The owner's first name (`OLLIM_USER_NAME`).
    pub user_name: String,
    /// The bot's name (`OLLIM_BOT_NAME`).
    pub bot_name: String,
    /// The owner's timezone (`OLLIM_TIMEZONE`, default: the system zone).
    pub timezone: Tz,
    /// The data dir (`OLLIM_DATA_DIR`, default `~/.ollim-bot`).
    pub data_dir: PathBuf,
    /// The `claude` executable: `OLLIM_CLAUDE_CLI`, else the bot's own copy that `setup`
    /// installed, else `claude` on PATH ([`claude_cli_from`]).
    pub claude_cli: PathBuf,
    /// The docs MCP server (`OLLIM_DOCS_MCP_URL`; empty disables it).
    pub docs_mcp_url: Option<String>,
    /// Extra environment for every CLI child, on top of the inherited environment.
    pub cli_env: BTreeMap<String, String>,
    /// The project `.env`: the one loaded at start-up, which `update_names` rewrites and
    /// `send_file` never sends (`OLLIM_ENV_FILE`; else the one [`Launch`] loaded; else
    /// `DATA_DIR/.env`).
    pub env_file: PathBuf,
    /// How often the scheduler reads the routine and reminder folders without file events
    /// (`OLLIM_SCHEDULER_SYNC_SECS`, default 10 s; tests shorten it); with events, its slow
    /// full read comes every 5 minutes or this often, whichever is longer.
    pub scheduler_sync: std::time::Duration,
    /// Whether the scheduler watches its folders for file events (`OLLIM_FS_EVENTS`, `on` by
    /// default; `off` for filesystems without events, and for the fallback test; issue 17).
    pub fs_events: FsEvents,
    /// How long a main-session turn may go without a frame from the CLI before the CLI is
    /// stopped and the owner told (`OLLIM_TURN_IDLE_SECS`, default 15 minutes: longer than
    /// the CLI's own request timeout and a long Bash command; issue 16).
    pub turn_idle_limit: std::time::Duration,
    /// A file saying how far ahead (in milliseconds) the process's clock runs
    /// (`OLLIM_TEST_CLOCK`): the end-to-end tests move the clock through it (issue 40 §2).
    /// Unset, the clock is the system's.
    pub test_clock: Option<PathBuf>,
    /// The webhook server (`WEBHOOK_PORT`, `WEBHOOK_SECRET`; WHK-1). Its secret never shows
    /// in `Debug`.
    pub webhook: WebhookSetting,
    /// The address the webhook server listens on (`WEBHOOK_BIND`, default `127.0.0.1`).
    pub webhook_bind: std::net::IpAddr,
    /// Extra folders the agent's sandbox may read and execute (`OLLIM_SANDBOX_READ`, `:`
    /// separated): a node or tool install outside the system dirs (issue 23).
    pub sandbox_read: Vec<PathBuf>,
    /// Hosts every agent session may reach through its container's proxy, even after it read
    /// mail and in background runs (`OLLIM_NETWORK_ALLOW`, comma or space separated:
    /// `example.com`, `*.example.com`, `example.com:8443`; issue 39 §3).
    pub network_allow: Vec<String>,
    /// What one session's container may use (issue 39 §1).
    pub session_limits: SessionLimits,
    /// The proxy the containers' proxies chain to (`HTTPS_PROXY`…; issue 39 §3).
    pub upstream_proxy: Option<UpstreamProxy>,
    /// The `ollim-bot` executable that confines each CLI from inside its container (issue
    /// 39); `None`: this process's own executable. Set by harnesses that run the bot's code
    /// inside another program (the tests).
    pub sandbox_launcher: Option<PathBuf>,
    /// Another base URL for every Google API call the bot makes (`OLLIM_GOOGLE_API_URL`: a
    /// proxy, the tests' fake Google); `None`: Google itself.
    pub google_api_url: Option<String>,
    /// `OLLIM_HOME_CHANNEL`: the home channel's id until the owner chooses one with `/home`
    /// (or `/home off`), CHN-1.
    pub home_channel: Option<u64>,
}

impl std::fmt::Debug for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Config")
            .field("user_name", &self.user_name)
            .field("bot_name", &self.bot_name)
            .field("timezone", &self.timezone)
            .field("data_dir", &self.data_dir)
            .field("claude_cli", &self.claude_cli)
            .field("docs_mcp_url", &self.docs_mcp_url)
            .field("cli_env", &RedactedEnv(&self.cli_env))
            .field("env_file", &self.env_file)
            .field("scheduler_sync", &self.scheduler_sync)
            .field("fs_events", &self.fs_events)
            .field("turn_idle_limit", &self.turn_idle_limit)
            .field("test_clock", &self.test_clock)
            .field("webhook", &self.webhook)
            .field("webhook_bind", &self.webhook_bind)
            .field("sandbox_read", &self.sandbox_read)
            .field("network_allow", &self.network_allow)
            .field("session_limits", &self.session_limits)
            .field("upstream_proxy", &self.upstream_proxy)
            .field("sandbox_launcher", &self.sandbox_launcher)
            .field("google_api_url", &self.google_api_url)
            .field("home_channel", &self.home_channel)
            .finish()
    }
}

/// Shows an environment's names with every value replaced.
struct RedactedEnv<'a>(&'a BTreeMap<String, String>);

impl std::fmt::Debug for RedactedEnv<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map()
            .entries(self.0.keys().map(|name| (name, "<redacted>")))
            .finish()
    }
}

/// The Discord REST base (`…/api/v10`) for one-shot calls outside serenity: under
/// `OLLIM_DISCORD_API_URL` (a stand-in for `https://discord.com`, as serenity's proxy is)
/// when set and not blank, else Discord's own.
pub fn discord_rest_base(override_url: Option<&str>) -> String {
    let host = override_url
        .map(str::trim)
        .filter(|url| !url.is_empty())
        .unwrap_or("https://discord.com");
    format!("{}/api/v10", host.trim_end_matches('/'))
}

/// How long a turn may hear nothing from the CLI by default.
pub const DEFAULT_TURN_IDLE_LIMIT: std::time::Duration = std::time::Duration::from_secs(15 * 60);

/// How often the scheduler reads its folders by default (SCH-2).
pub const DEFAULT_SCHEDULER_SYNC: std::time::Duration = std::time::Duration::from_secs(10);

/// The absolute paths of a `:`-separated list.
fn absolute_paths(raw: &str) -> Vec<PathBuf> {
    std::env::split_paths(raw)
        .filter(|path| path.is_absolute())
        .collect()
}

impl Config {
    /// Reads the configuration as `launch` sees it (the `.env` already loaded, `--data-dir`
    /// over `OLLIM_DATA_DIR`). The env file `update_names` rewrites is `OLLIM_ENV_FILE`, else
    /// the one loaded, else `DATA_DIR/.env`. Flags reach the CLI's children too, so an
    /// `ollim-bot reminder add` run by the agent finds the same data dir and `.env`.
    pub fn from_launch(launch: &Launch) -> Result<Self, ConfigError> {
        let mut config = Self::from_lookup(|name| launch.var(name))?;
        let env_file_set = launch
            .var("OLLIM_ENV_FILE")
            .is_some_and(|v| !v.trim().is_empty());
        if !env_file_set {
            config.env_file = launch
                .env_file
                .path()
                .map_or_else(|| config.data_dir.join(".env"), Path::to_path_buf);
            if matches!(launch.env_file, EnvFileSource::Flag(_)) {
                config.cli_env.insert(
                    "OLLIM_ENV_FILE".to_owned(),
                    config.env_file.display().to_string(),
                );
            }
        }
        if launch.data_dir_flag.is_some() {
            config.cli_env.insert(
                "OLLIM_DATA_DIR".to_owned(),
                config.data_dir.display().to_string(),
            );
        }
        Ok(config)
    }

    /// The configuration for the subcommands that only read the data dir (`history`,
    /// `usage`): from the environment, the names not required (`-` stands in).
    pub fn for_reading() -> Result<Self, ConfigError> {
        Self::from_lookup(|name| match name {
            "OLLIM_USER_NAME" | "OLLIM_BOT_NAME" => {
                Some(environment::var(name).unwrap_or_else(|| "-".to_owned()))
            }
            _ => environment::var(name),
        })
    }

    /// Reads the configuration through `lookup` (testable without touching the environment).
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, ConfigError> {
        let get = |name: &str| {
            lookup(name)
                .map(|v| v.trim().to_owned())
                .filter(|v| !v.is_empty())
        };
        let user_name = get("OLLIM_USER_NAME").ok_or(ConfigError::Missing {
            name: "OLLIM_USER_NAME",
            hint: "your first name, the one the bot calls you",
            example: "Julia",
        })?;
        let bot_name = get("OLLIM_BOT_NAME").ok_or(ConfigError::Missing {
            name: "OLLIM_BOT_NAME",
            hint: "the bot's name",
            example: "Ollim",
        })?;
        let timezone = match get("OLLIM_TIMEZONE") {
            Some(raw) => raw.parse::<Tz>().map_err(|_| ConfigError::Invalid {
                name: "OLLIM_TIMEZONE",
                value: raw.clone(),
                reason: "not an IANA timezone name",
                example: "America/Los_Angeles",
            })?,
            None => system_timezone(),
        };
        let data_dir = if let Some(raw) = get("OLLIM_DATA_DIR") {
            expand_home(&raw, get("HOME").as_deref())
        } else {
            let home = get("HOME").ok_or(ConfigError::Missing {
                name: "HOME",
                hint: "needed to find the default data dir ~/.ollim-bot; or set OLLIM_DATA_DIR",
                example: "/home/julia",
            })?;
            PathBuf::from(home).join(".ollim-bot")
        };
        if data_dir.is_relative() {
            return Err(ConfigError::Invalid {
                name: "OLLIM_DATA_DIR",
                value: data_dir.display().to_string(),
                reason: "must be an absolute path",
                example: "/home/julia/.ollim-bot",
            });
        }
        let claude_cli = claude_cli_from(&lookup).path;
        let docs_mcp_url = match lookup("OLLIM_DOCS_MCP_URL") {
            Some(raw) if raw.trim().is_empty() => None,
            Some(raw) => Some(raw.trim().to_owned()),
            None => Some(DEFAULT_DOCS_MCP_URL.to_owned()),
        };
        // The CLI keeps its sessions, settings and login in a config dir of the bot's own
        // (issue 23): the agent's sandbox must write there, and the owner's own `~/.claude`
        // (their hooks, settings and MCP servers for their interactive use) stays out of its
        // reach. An explicit `CLAUDE_CONFIG_DIR` is the owner's choice and wins.
        let cli_env = cli_env_for(get("CLAUDE_CONFIG_DIR").is_some(), &data_dir);
        let home_channel = match get("OLLIM_HOME_CHANNEL") {
            None => None,
            Some(raw) => Some(runtime::channel_id(&raw).ok_or(ConfigError::Invalid {
                name: "OLLIM_HOME_CHANNEL",
                value: raw.clone(),
                reason: "not a channel id (in Discord: Developer Mode on, right-click the \
                         channel, Copy Channel ID)",
                example: "1234567890123456789",
            })?),
        };
        let sandbox_read = get("OLLIM_SANDBOX_READ")
            .map(|raw| absolute_paths(&raw))
            .unwrap_or_default();
        Ok(Self {
            user_name,
            bot_name,
            timezone,
            data_dir,
            claude_cli,
            docs_mcp_url,
            sandbox_read,
            network_allow: get("OLLIM_NETWORK_ALLOW")
                .map(|raw| network::allow_list(&raw))
                .unwrap_or_default(),
            session_limits: SessionLimits::read(get)?,
            upstream_proxy: UpstreamProxy::read(get),
            sandbox_launcher: None,
            cli_env,
            env_file: get("OLLIM_ENV_FILE").map_or_else(|| PathBuf::from(".env"), PathBuf::from),
            scheduler_sync: get("OLLIM_SCHEDULER_SYNC_SECS")
                .and_then(|raw| raw.trim().parse::<u64>().ok())
                .filter(|secs| *secs > 0)
                .map_or(DEFAULT_SCHEDULER_SYNC, std::time::Duration::from_secs),
            fs_events: FsEvents::read(get("OLLIM_FS_EVENTS"))?,
            turn_idle_limit: get("OLLIM_TURN_IDLE_SECS")
                .and_then(|raw| raw.trim().parse::<u64>().ok())
                .filter(|secs| *secs > 0)
                .map_or(DEFAULT_TURN_IDLE_LIMIT, std::time::Duration::from_secs),
            test_clock: get(TEST_CLOCK_ENV)
                .filter(|raw| !raw.trim().is_empty())
                .map(PathBuf::from),
            webhook: WebhookSetting::read(get)?,
            webhook_bind: webhook::read_webhook_bind(get)?,
            google_api_url: get(GOOGLE_API_URL_ENV),
            home_channel,
        })
    }

    /// The CLI's own config dir (where it keeps transcripts): `CLAUDE_CONFIG_DIR`, else
    /// `$HOME/.claude`, looking at [`Self::cli_env`] before the process environment.
    pub fn claude_config_dir(&self) -> Option<PathBuf> {
        let var = |name: &str| {
            self.cli_env
                .get(name)
                .cloned()
                .or_else(|| environment::var(name))
                .filter(|v| !v.is_empty())
        };
        var("CLAUDE_CONFIG_DIR")
            .map(PathBuf::from)
            .or_else(|| var("HOME").map(|home| PathBuf::from(home).join(".claude")))
    }
}

#[cfg(test)]
mod tests;
