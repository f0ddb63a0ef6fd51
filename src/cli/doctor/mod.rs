//! `ollim-bot doctor` (CMD-7): checks an installation without a running bot and says what to
//! fix. Each group prints a header, then one `PASS`, `WARN` or `FAIL` line per check, and the
//! run ends with `SUMMARY: <n> passed, <w> warning(s), <f> failure(s)`; the exit code is 1 when
//! anything failed.
//!
//! Every check is a plain function returning [`Check`]s; the ones that touch the outside world
//! take what they found as input, so they are tested without a terminal. No line ever shows a
//! secret (the Discord token, an API key, the webhook secret): only variable names.

pub(crate) mod api_key;
mod claude_cli;
mod discord_app;
mod environment;
mod google_files;
mod home_channel;
mod jobs;
mod sandbox_checks;
mod skill_checks;
mod state_files;
mod tool_patterns;

#[cfg(test)]
mod data_files_tests;
#[cfg(test)]
mod tests;

use std::fmt;

use chrono_tz::Tz;

use crate::{
    config::{Config, Launch, WebhookSetting},
    state::paths::DataDir,
};

/// How a check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckStatus {
    /// Fine.
    Pass,
    /// Works, but something deserves a look.
    Warn,
    /// Broken: the bot would not start, or part of it would not work.
    Fail,
}

impl CheckStatus {
    /// The line's first word.
    pub fn label(self) -> &'static str {
        match self {
            Self::Pass => "PASS",
            Self::Warn => "WARN",
            Self::Fail => "FAIL",
        }
    }
}

/// The groups, in the order they are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Group {
    /// The `.env`, required variables, the configuration.
    Environment,
    /// The data dir: there, writable, a git repository.
    DataDirectory,
    /// The zone in use and the local time.
    Timezone,
    /// `routines/`: each file parses, with its next fire.
    Routines,
    /// `reminders/`: each file parses; overdue ones.
    Reminders,
    /// `webhooks/`: each spec parses; the port is free.
    Webhooks,
    /// `skills/` and `.claude/agents/`: each loads; misspelt keys.
    Skills,
    /// Declared tool patterns.
    ToolPolicy,
    /// `state/*.json`.
    StateFiles,
    /// The `claude` executable and its version.
    ClaudeCli,
    /// Claude credentials.
    ClaudeAuth,
    /// The bot token and the Message Content Intent.
    Discord,
    /// The Google connection (optional).
    Google,
    /// The agent's kernel sandbox (issue 23).
    Sandbox,
}

impl Group {
    /// The header line.
    pub fn title(self) -> &'static str {
        match self {
            Self::Environment => "ENVIRONMENT",
            Self::DataDirectory => "DATA DIRECTORY",
            Self::Timezone => "TIMEZONE & SCHEDULING",
            Self::Routines => "ROUTINES",
            Self::Reminders => "REMINDERS",
            Self::Webhooks => "WEBHOOKS",
            Self::Skills => "SKILLS & SUBAGENTS",
            Self::ToolPolicy => "TOOL POLICY",
            Self::StateFiles => "STATE FILES",
            Self::ClaudeCli => "CLAUDE CLI",
            Self::ClaudeAuth => "CLAUDE AUTH",
            Self::Discord => "DISCORD",
            Self::Google => "GOOGLE",
            Self::Sandbox => "SANDBOX",
        }
    }
}

/// One check's outcome: `PASS <what>`, `WARN <what>: <why and what to do>` or the same with
/// `FAIL`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    /// Where it is printed.
    pub group: Group,
    /// How it came out.
    pub status: CheckStatus,
    /// What was checked, and for a warning or failure why and what to do.
    pub text: String,
}

impl Check {
    /// A passed check.
    pub fn pass(group: Group, text: impl Into<String>) -> Self {
        Self::new(group, CheckStatus::Pass, text)
    }

    /// A warning.
    pub fn warn(group: Group, text: impl Into<String>) -> Self {
        Self::new(group, CheckStatus::Warn, text)
    }

    /// A failure.
    pub fn fail(group: Group, text: impl Into<String>) -> Self {
        Self::new(group, CheckStatus::Fail, text)
    }

    fn new(group: Group, status: CheckStatus, text: impl Into<String>) -> Self {
        Self {
            group,
            status,
            text: text.into(),
        }
    }
}

impl fmt::Display for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.status.label(), self.text)
    }
}

/// The counts of the last line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    /// `PASS` lines.
    pub passed: usize,
    /// `WARN` lines.
    pub warnings: usize,
    /// `FAIL` lines.
    pub failures: usize,
}

impl Summary {
    /// Counts `checks`.
    pub fn of<'a>(checks: impl IntoIterator<Item = &'a Check>) -> Self {
        let mut summary = Self::default();
        for check in checks {
            match check.status {
                CheckStatus::Pass => summary.passed += 1,
                CheckStatus::Warn => summary.warnings += 1,
                CheckStatus::Fail => summary.failures += 1,
            }
        }
        summary
    }

    /// 1 when anything failed, else 0.
    pub fn exit_code(self) -> i32 {
        i32::from(self.failures > 0)
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let plural =
            |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        write!(
            f,
            "SUMMARY: {} passed, {}, {}",
            self.passed,
            plural(self.warnings, "warning", "warnings"),
            plural(self.failures, "failure", "failures")
        )
    }
}

/// One group as printed: the header, then its lines.
pub fn render_group(group: Group, checks: &[Check]) -> String {
    let mut lines = vec![group.title().to_owned()];
    lines.extend(checks.iter().map(ToString::to_string));
    lines.push(String::new());
    lines.join("\n")
}

/// What the later groups need from the configuration.
struct Setup {
    data_dir: DataDir,
    sandbox: crate::sandbox::Layout,
    timezone: Tz,
    webhook: WebhookSetting,
    webhook_bind: std::net::IpAddr,
    names: (String, String),
    limits: crate::config::SessionLimits,
    /// The clock (`OLLIM_TEST_CLOCK` in tests).
    clock: crate::clock::Clock,
}

impl Setup {
    fn from_config(config: &Config) -> Self {
        let data_dir = DataDir::new(&config.data_dir);
        Self {
            sandbox: crate::agent::setup::sandbox::layout(config, &data_dir),
            data_dir,
            timezone: config.timezone,
            webhook: config.webhook.clone(),
            webhook_bind: config.webhook_bind,
            names: (config.user_name.clone(), config.bot_name.clone()),
            limits: config.session_limits,
            clock: crate::clock::Clock::from_test_file(config.test_clock.clone()),
        }
    }
}

/// One line of the report; a closed stdout (`doctor | head`) ends the output, not the run.
fn print_line(text: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stdout().lock(), "{text}");
}

/// Prints each group as soon as it is done and keeps the count.
#[derive(Default)]
struct Printer {
    checks: Vec<Check>,
}

impl Printer {
    fn group(&mut self, group: Group, checks: Vec<Check>) {
        print_line(&render_group(group, &checks));
        self.checks.extend(checks);
    }

    /// A group that can't run because the configuration is unusable.
    fn skipped(&mut self, group: Group) {
        self.group(
            group,
            vec![Check::warn(
                group,
                "skipped: fix the configuration under ENVIRONMENT first",
            )],
        );
    }
}

/// Runs every check, prints the report and returns the exit code (CMD-7); with `fix`, first
/// offers to install the tested Claude Code CLI for the bot.
pub async fn run(launch: &Launch, fix: bool) -> i32 {
    if fix {
        claude_cli::fix_cli(launch).await;
    }
    let mut printer = Printer::default();
    let (environment, setup) = environment::environment_checks(launch);
    printer.group(Group::Environment, environment);
    let setup = setup.as_ref().map(Setup::from_config);
    match &setup {
        Some(setup) => local_groups(&mut printer, launch, setup),
        None => {
            for group in [
                Group::DataDirectory,
                Group::Timezone,
                Group::Routines,
                Group::Reminders,
                Group::Webhooks,
                Group::Skills,
                Group::ToolPolicy,
                Group::StateFiles,
            ] {
                printer.skipped(group);
            }
        }
    }
    // The same choice as the configuration's, made again so its origin can be shown.
    let cli = crate::config::claude_cli_from(|name| launch.var(name));
    printer.group(Group::ClaudeCli, claude_cli::cli_checks(&cli).await);
    let mut auth = vec![claude_cli::auth_check(launch, &cli.path).await];
    if let Some(name) = claude_cli::credential_var(|name| launch.var(name)) {
        auth.push(api_key::key_check(launch, name).await);
    }
    printer.group(Group::ClaudeAuth, auth);
    let mut discord = discord_app::discord_checks(launch).await;
    if let Some(setup) = &setup
        && discord
            .iter()
            .all(|check| check.status == CheckStatus::Pass)
    {
        discord.extend(home_channel::home_channel_checks(launch, &setup.data_dir).await);
    }
    printer.group(Group::Discord, discord);
    match &setup {
        Some(setup) => printer.group(Group::Google, google_files::google_checks(&setup.data_dir)),
        None => printer.skipped(Group::Google),
    }
    match &setup {
        Some(setup) => {
            let mut checks = sandbox_checks::sandbox_checks(&setup.sandbox, &setup.data_dir).await;
            checks.insert(2, sandbox_checks::limits_check(&setup.limits));
            checks.push(sandbox_checks::approval_check(
                &setup.data_dir,
                &setup.names,
            ));
            printer.group(Group::Sandbox, checks);
        }
        None => printer.skipped(Group::Sandbox),
    }
    let summary = Summary::of(&printer.checks);
    print_line(&summary.to_string());
    summary.exit_code()
}

/// The groups that read the data dir.
fn local_groups(printer: &mut Printer, launch: &Launch, setup: &Setup) {
    let now = setup.clock.now().with_timezone(&setup.timezone);
    printer.group(
        Group::DataDirectory,
        environment::data_dir_checks(setup.data_dir.root()),
    );
    let zone_named = launch
        .var("OLLIM_TIMEZONE")
        .is_some_and(|v| !v.trim().is_empty());
    printer.group(
        Group::Timezone,
        environment::timezone_checks(now, zone_named),
    );
    let data_dir = &setup.data_dir;
    let port = jobs::port_check(&setup.webhook, setup.webhook_bind);
    if !data_dir.root().is_dir() {
        // Nothing to read yet: one line per group rather than a folder error in each.
        for group in [
            Group::Routines,
            Group::Reminders,
            Group::Webhooks,
            Group::Skills,
            Group::ToolPolicy,
            Group::StateFiles,
        ] {
            let mut checks = vec![Check::pass(group, "nothing yet (no data directory)")];
            if group == Group::Webhooks {
                checks.extend(port.clone());
            }
            printer.group(group, checks);
        }
        return;
    }
    printer.group(Group::Routines, jobs::routine_checks(data_dir, now));
    printer.group(Group::Reminders, jobs::reminder_checks(data_dir, now));
    let mut webhooks = jobs::webhook_spec_checks(data_dir, &setup.webhook);
    webhooks.extend(port);
    printer.group(Group::Webhooks, webhooks);
    printer.group(Group::Skills, skill_checks::skill_checks(data_dir));
    printer.group(
        Group::ToolPolicy,
        tool_patterns::tool_pattern_checks(data_dir, setup.timezone),
    );
    printer.group(Group::StateFiles, state_files::state_file_checks(data_dir));
}
