//! What the owner's approval of a job's tools holds for (issue 23 §2, issue 39 §4, BOX-7):
//! the whole job as it was when they approved it. Not only its instructions and tools, but how
//! it runs (main session or background, forked, isolated or persistent), when (its cron, its
//! time, or each webhook request), whether it may ping and how it reports, its reminder chain
//! and every other option. A job the agent rewrote in any of these is another version, which
//! the owner is asked about again.
//!
//! The version is a hash over named settings, each spelt as its frontmatter key, so it doesn't
//! move when a type's `Debug` output does. It starts with [`VERSION_PREFIX`]: versions recorded
//! before this scope existed (16 bare hex digits over instructions, tools, skills and subagent
//! only) never equal a new one, so those approvals are asked about again rather than carried
//! over to a job whose run mode or schedule nobody recorded.

use chrono::{DateTime, FixedOffset, Utc};

use super::{BgSession, RunMode, RunOptions, ToolRestriction};

/// Marks the version format that covers the whole job.
pub const VERSION_PREFIX: &str = "v2:";

/// When a job fires.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Schedule<'a> {
    /// A routine's five-field cron expression.
    Cron(&'a str),
    /// A reminder's one time.
    At(DateTime<FixedOffset>),
    /// A webhook spec: at each accepted request.
    OnRequest,
}

/// One setting the approval covers: its frontmatter key and its value as the owner reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setting {
    /// The key, e.g. `allow-ping`.
    pub key: &'static str,
    /// The value, e.g. `false`.
    pub value: String,
    /// Whether the approval embed names it: how and when the job runs always; other options
    /// when they differ from their defaults.
    pub shown: bool,
}

impl Setting {
    /// A setting named `key` with `value`; `shown` when the embed names it.
    pub fn new(key: &'static str, value: impl Into<String>, shown: bool) -> Self {
        Self {
            key,
            value: value.into(),
            shown,
        }
    }
}

/// A job's settings and the version they hash to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovalScope {
    settings: Vec<Setting>,
    version: String,
}

impl ApprovalScope {
    /// The scope of a job whose instructions are `body`, run as `run` on `schedule` with
    /// `options`; `extra` are the settings of its kind (a reminder's chain, a routine's or
    /// reminder's `until-done`, a webhook's `fields`), each hashed and named as given.
    pub fn new(
        body: &str,
        (run, schedule): (RunMode, Schedule<'_>),
        options: &RunOptions,
        extra: Vec<Setting>,
    ) -> Self {
        let mut settings = vec![
            Setting::new("run", run_text(run), true),
            schedule_setting(schedule),
            Setting::new("allow-ping", options.allow_ping.to_string(), true),
            Setting::new("update-main-session", options.update_mode.as_str(), true),
        ];
        settings.extend(extra);
        settings.extend(option_settings(options));
        let version = version_of(body, &settings);
        Self { settings, version }
    }

    /// The version the owner's approvals are recorded for.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// Every setting the version covers, in hashing order.
    pub fn settings(&self) -> &[Setting] {
        &self.settings
    }

    /// The settings the approval embed names, one `key: value` each, joined by ` · `.
    pub fn summary(&self) -> String {
        self.settings
            .iter()
            .filter(|setting| setting.shown)
            .map(|setting| format!("{}: {}", setting.key, setting.value))
            .collect::<Vec<_>>()
            .join(" · ")
    }
}

/// A reminder's chain settings (REM-6): hashed always, named when it is a chain.
pub fn chain_settings(depth: u32, max: u32, parent: Option<&str>) -> Vec<Setting> {
    let chain = max > 0;
    vec![
        Setting::new("max-chain", max.to_string(), chain),
        Setting::new("chain-depth", depth.to_string(), chain),
        Setting::new("chain-parent", parent.unwrap_or("none"), false),
    ]
}

fn run_text(run: RunMode) -> &'static str {
    match run {
        RunMode::Foreground => "foreground (in the main conversation)",
        RunMode::Background(BgSession::Forked) => "background, forked",
        RunMode::Background(BgSession::Isolated) => "background, isolated",
        RunMode::Background(BgSession::Persistent) => "background, persistent session",
    }
}

fn schedule_setting(schedule: Schedule<'_>) -> Setting {
    match schedule {
        Schedule::Cron(cron) => Setting::new("cron", format!("`{}`", cron.trim()), true),
        // The instant, whatever offset the file spelt it with.
        Schedule::At(at) => Setting::new(
            "run-at",
            at.with_timezone(&Utc)
                .format("%Y-%m-%d %H:%M:%S UTC")
                .to_string(),
            true,
        ),
        Schedule::OnRequest => Setting::new("runs", "at each webhook request", true),
    }
}

/// The run's other options: hashed always, named when not at their defaults. The tool lists
/// are named elsewhere in the embed.
fn option_settings(options: &RunOptions) -> Vec<Setting> {
    let defaults = RunOptions::default();
    let (tools_key, tools) = match &options.tools {
        ToolRestriction::None => ("allowed-tools", "none".to_owned()),
        ToolRestriction::Allowed(list) => ("allowed-tools", list.join("\n")),
        ToolRestriction::Disallowed(list) => ("disallowed-tools", list.join("\n")),
    };
    vec![
        Setting::new(tools_key, tools, false),
        Setting::new(
            "model",
            options
                .model
                .clone()
                .unwrap_or_else(|| "default".to_owned()),
            options.model.is_some(),
        ),
        Setting::new(
            "thinking",
            options.thinking.to_string(),
            options.thinking != defaults.thinking,
        ),
        Setting::new(
            "reflect",
            options.reflect.to_string(),
            options.reflect != defaults.reflect,
        ),
        Setting::new(
            "skills",
            options.skills.join(", "),
            !options.skills.is_empty(),
        ),
        Setting::new(
            "subagent",
            options.subagent.clone().unwrap_or_default(),
            options.subagent.is_some(),
        ),
    ]
}

/// `v2:` and 16 hex digits of a SHA-256 over the body and every key and value, each
/// length-prefixed so no two different jobs share an input.
fn version_of(body: &str, settings: &[Setting]) -> String {
    use sha2::{Digest, Sha256};
    use std::fmt::Write as _;
    let mut hasher = Sha256::new();
    let parts =
        std::iter::once(body).chain(settings.iter().flat_map(|s| [s.key, s.value.as_str()]));
    for part in parts {
        hasher.update((part.len() as u64).to_le_bytes());
        hasher.update(part.as_bytes());
    }
    hasher.finalize()[..8]
        .iter()
        .fold(VERSION_PREFIX.to_owned(), |mut hex, byte| {
            let _ = write!(hex, "{byte:02x}");
            hex
        })
}

#[cfg(test)]
#[path = "approval_scope_tests.rs"]
mod tests;
