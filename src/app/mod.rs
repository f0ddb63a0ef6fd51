//! The `ollim-bot` daemon: start-up checks (BOOT-1/2, PID), the Discord bot around the main
//! session, and an ordered shutdown on SIGTERM/SIGINT (BOOT-8): stop intake, let the turn in
//! progress finish within a deadline, stop the CLI, close the gateway, flush git, release the
//! instance lock.

mod auto_update;
mod background_loops;
pub mod claude_login;
pub mod console;
pub mod crash;
pub mod hardening;
pub mod network_wait;
pub mod pid;
mod signals;

use std::{
    sync::{Arc, OnceLock},
    time::Duration,
};

use tokio_util::sync::CancellationToken;

use self::crash::{FatalEnd, OwnedTasks, OwnerReach};
use crate::{
    agent::{MainSession, MainSettings, open_services},
    background::{
        BgRunner, budget::DailyBudget, job_dispatch::JobDispatch, nag_keeper::NagKeeper,
        webhook_dispatch::WebhookDispatch,
    },
    config::Config,
    discord::{
        approvals::reactions::ReactionApprovals,
        bot::Bot,
        client::{build_client, run_client},
        front_end::{Audience, DiscordFrontEnd},
        owner::OwnerGate,
        places::Places,
        reach::Reach,
    },
    front_end::FrontEnd,
    scheduling::Scheduler,
    state::{paths::DataDir, told::ToldMarks},
    webhooks::SpecStore,
};
use background_loops::{
    check_fork_idle, rest_when_idle, run_scheduler, run_webhooks, spawn_watches,
};
pub use signals::EarlyStop;
use signals::shut_down_on_signal;

/// How long a turn in progress may take to finish after a shutdown signal.
pub const TURN_DEADLINE: Duration = Duration::from_secs(30);
/// How long the CLI may take to stop.
const CLI_DEADLINE: Duration = Duration::from_secs(10);
/// How long serenity's client may take to end once every shard was told to close.
const GATEWAY_CLOSE_GRACE: Duration = Duration::from_secs(5);

/// What the daemon needs beyond [`Config`]. Its `Debug` never shows the token.
#[derive(Clone)]
pub struct DiscordSettings {
    /// The bot token (`DISCORD_TOKEN`).
    pub token: String,
    /// Another Discord API base URL (`OLLIM_DISCORD_API_URL`), e.g. a rate-limiting proxy.
    pub api_url: Option<String>,
}

impl std::fmt::Debug for DiscordSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DiscordSettings")
            .field("token", &"<redacted>")
            .field("api_url", &self.api_url)
            .finish()
    }
}

/// The lines of BOOT-2 for missing required variables, or `None` when all are set: each
/// variable, where the settings were looked for (`env_file`, as `Launch` describes it), and
/// how to write them (issue 24 §6).
pub fn missing_required(lookup: impl Fn(&str) -> Option<String>, env_file: &str) -> Option<String> {
    const REQUIRED: [(&str, &str); 3] = [
        (
            "DISCORD_TOKEN",
            "your bot token from the Discord Developer Portal",
        ),
        (
            "OLLIM_USER_NAME",
            "your first name, the one the bot calls you",
        ),
        ("OLLIM_BOT_NAME", "the bot's name, e.g. Ollim"),
    ];
    let missing: Vec<String> = REQUIRED
        .iter()
        .filter(|(name, _)| lookup(name).is_none_or(|v| v.trim().is_empty()))
        .map(|(name, hint)| format!("  {name} — {hint}"))
        .collect();
    (!missing.is_empty()).then(|| {
        format!(
            "Missing required env vars in .env:\n{}\nSettings file: {env_file}.\nRun `ollim-bot \
             setup` to write them (it asks for each and checks the token), or set them in the \
             environment.",
            missing.join("\n")
        )
    })
}

/// Runs the bot until a signal or a fatal error; returns the exit code. A panic anywhere in
/// the daemon, or an error once the owner's DM is open, is reported to the owner (BOOT-8) and
/// ends the process non-zero.
pub async fn run(config: Config, discord: DiscordSettings) -> anyhow::Result<i32> {
    let reach = Arc::new(OwnerReach::default());
    match tokio::spawn(run_daemon(config, discord, Arc::clone(&reach))).await {
        Ok(Ok(code)) => Ok(code),
        Ok(Err(error)) => {
            reach.report(&FatalEnd::Error(format!("{error:#}"))).await;
            Err(error)
        }
        Err(error) if error.is_panic() => {
            let end = FatalEnd::Panic(crash::panic_message(&*error.into_panic()));
            reach.report(&end).await;
            Ok(1)
        }
        Err(error) => Err(anyhow::anyhow!("the daemon task was cancelled: {error}")),
    }
}

#[allow(clippy::too_many_lines)] // the boot and shutdown sequence, told in order
async fn run_daemon(
    config: Config,
    discord: DiscordSettings,
    reach: Arc<OwnerReach>,
) -> anyhow::Result<i32> {
    let data_dir = DataDir::new(&config.data_dir);
    let state_dir = data_dir.state_dir();
    std::fs::create_dir_all(&state_dir)?;
    let pid_file = data_dir.pid_file();
    if let pid::PidCheck::Running(pid) = pid::check_pid_file(&pid_file) {
        eprintln!("ollim-bot is already running (pid {pid})");
        return Ok(1);
    }
    let instance = match pid::InstanceLock::acquire(&state_dir) {
        Ok(lock) => lock,
        Err(running) => {
            eprintln!("{running}");
            return Ok(1);
        }
    };
    if let Err(error) = pid::write_pid_file(&pid_file) {
        tracing::warn!(%error, "could not write state/bot.pid");
    }
    // The CLI's version is asked (a node start, a few hundred ms) beside the start-up instead
    // of before the gateway connects (issue 17); the ready line waits for it.
    let cli = config.claude_cli.clone();
    let cli_version = tokio::spawn(async move { claude_login::log_cli_version(&cli).await });
    let version = crate::update::running_version().await;
    tracing::info!("ollim-bot {version}");
    let opened = open_services(config)?;
    let runtime = opened.services.runtime.current();
    if opened.initialised_git {
        tracing::info!(
            "Initialized git tracking in {}",
            opened.services.data_dir.root().display()
        );
    }
    let services = opened.services;
    crate::agent::client::main_tools::check_declared_tools(&services);

    let bot_slot = Arc::new(OnceLock::new());
    let mut client = build_client(
        &discord.token,
        discord.api_url.as_deref(),
        Arc::clone(&bot_slot),
    )
    .await?;
    let http = Arc::clone(&client.http);
    let places = Arc::new(Places::new(
        Arc::clone(&services.runtime),
        services.config.home_channel,
    ));
    reach.connect(Arc::clone(&http), Arc::clone(&places));
    let approvals = Arc::new(ReactionApprovals::default());
    let inquiries = Arc::new(services.inquiries.clone());
    let owner = Arc::new(OwnerGate::default());
    let front_end_for = |audience| {
        Arc::new(DiscordFrontEnd::new(
            Arc::clone(&http),
            (Arc::clone(&places), Arc::clone(&owner)),
            audience,
            Arc::clone(&approvals),
            Arc::clone(&inquiries),
        )) as Arc<dyn FrontEnd>
    };
    // The conversation's output goes where the owner last asked; what background work and
    // webhooks start goes where the owner wants unasked messages (CHN-5).
    let conversation_front_end = front_end_for(Audience::Conversation);
    let front_end = front_end_for(Audience::Unasked);
    let settings = MainSettings {
        model: runtime.model_main.clone(),
        thinking: runtime.thinking_main,
        permission_mode: runtime.permission_mode,
    };
    let session = Arc::new(MainSession::new(
        Arc::clone(&services),
        conversation_front_end,
        settings,
    ));
    let busy_session = Arc::clone(&session);
    let runner = Arc::new(BgRunner::new(
        Arc::clone(&services),
        Arc::clone(&front_end),
        Arc::new(move || busy_session.owner_mid_conversation()),
    ));
    // One budget for scheduled runs and webhook requests: the owner hears of it once a day.
    let budget = Arc::new(DailyBudget::new(ToldMarks::new(
        services.data_dir.told_file(),
    )));
    let nags = Arc::new(NagKeeper::new(
        Arc::clone(&services),
        Arc::clone(&front_end),
        Arc::clone(&budget),
    ));
    let dispatch = JobDispatch::new(
        Arc::clone(&services),
        (Arc::clone(&session), Arc::clone(&runner)),
        Arc::clone(&front_end),
        Arc::clone(&budget),
        Arc::clone(&nags),
    );
    let scheduler = Arc::new(Scheduler::new(
        Arc::clone(&services),
        Arc::new(dispatch),
        services.config.scheduler_sync,
    ));
    let specs = Arc::new(SpecStore::new(services.data_dir.webhooks_dir()));
    let webhooks = WebhookDispatch::new(
        Arc::clone(&services),
        runner,
        front_end,
        (Arc::clone(&scheduler), Arc::clone(&specs)),
        budget,
    );
    webhooks.watch_waiting(services.config.scheduler_sync);
    let shared = Reach::new(
        http,
        (places, owner),
        session,
        Arc::clone(&services),
        inquiries,
    );
    let bot = Arc::new(Bot::new(shared, approvals));
    let _ = bot_slot.set(Arc::clone(&bot));
    bot.reconnects.bind(Arc::clone(&client.shard_manager));
    bot.approvals.bind_webhooks(webhooks.clone());

    // Written until everything else has stopped, so work cut off by the shutdown itself is
    // on record for the next start.
    let stop_ledger = CancellationToken::new();
    let ledger_writer = tokio::spawn(
        services
            .unfinished
            .clone()
            .keep_written(stop_ledger.clone()),
    );
    let mut tasks = OwnedTasks::default();
    let gateway_closed = CancellationToken::new();
    let signalled = Arc::new(OnceLock::new());
    let shutdown = tasks.spawn(
        "signal handling",
        shut_down_on_signal(
            Arc::clone(&bot),
            Arc::clone(&client.shard_manager),
            (gateway_closed.clone(), Arc::clone(&signalled)),
        ),
    );
    let stop_background = CancellationToken::new();
    tasks.spawn(
        "ready line",
        console::announce_ready(Arc::clone(&bot), cli_version, stop_background.clone()),
    );
    tasks.spawn(
        "fork idle check",
        check_fork_idle(
            Arc::clone(&bot.reach.session),
            services.clock.clone(),
            stop_background.clone(),
        ),
    );
    tasks.spawn(
        "CLI rest",
        rest_when_idle(
            Arc::clone(&bot.reach.session),
            services.clock.clone(),
            stop_background.clone(),
        ),
    );
    spawn_watches(&mut tasks, &bot, &services, &stop_background);
    tasks.spawn(
        "busy calendar watch",
        crate::background::busy_calendar::watch_busy_calendar(
            Arc::clone(&services),
            services.config.scheduler_sync * 6,
            stop_background.clone(),
        ),
    );
    tasks.spawn(
        "nag keeper",
        nags.run(services.config.scheduler_sync, stop_background.clone()),
    );
    tasks.spawn(
        "auto-update loop",
        auto_update::run_auto_update(
            Arc::clone(&bot),
            crate::update::source::poll_interval_from_env(),
            stop_background.clone(),
        ),
    );
    tasks.spawn(
        "scheduler",
        run_scheduler(Arc::clone(&bot), scheduler, stop_background.clone()),
    );
    tasks.spawn(
        "webhook server",
        run_webhooks(
            Arc::clone(&bot),
            (
                services.config.webhook.clone(),
                services.config.webhook_bind,
            ),
            specs,
            webhooks.clone(),
            stop_background.clone(),
        ),
    );
    let shards = Arc::clone(&client.shard_manager);
    let outcome = tokio::select! {
        outcome = run_client(&mut client) => {
            outcome.map_err(|error| FatalEnd::Gateway(error.to_string()))
        }
        fatal = tasks.first_panic() => {
            shards.shutdown_all().await;
            Err(fatal)
        }
        // serenity's client ends when a running shard confirms its shutdown; with none running
        // (paused after a reconnect storm, or between two of serenity's own restarts) none
        // would, so a shutdown that closed the gateway also ends it after a grace.
        () = async {
            gateway_closed.cancelled().await;
            tokio::time::sleep(GATEWAY_CLOSE_GRACE).await;
        } => Ok(()),
    };
    if let Err(end) = &outcome {
        eprintln!("{}", end.message());
        reach.report(end).await;
    }
    shutdown.abort();
    stop_background.cancel();
    tasks.join_all().await;
    webhooks.shutdown().await;
    bot.stop_intake();
    tracing::debug!("intake stopped: no new DM is taken up");
    let _ = tokio::time::timeout(CLI_DEADLINE, bot.reach.session.shutdown()).await;
    stop_ledger.cancel();
    if let Err(error) = ledger_writer.await {
        tracing::warn!(%error, "the unfinished-work writer failed");
    }
    opened.usage_worker.shutdown().await;
    opened.git_worker.shutdown().await;
    pid::remove_pid_file(&pid_file);
    let ending = console::Ending::of(outcome.is_err(), signalled.get(), bot.is_restarting());
    eprintln!(
        "{}",
        console::stopped_line(&services.config.bot_name, ending)
    );
    if bot.is_restarting() && outcome.is_ok() {
        drop(instance);
        return Err(restart_in_place());
    }
    Ok(i32::from(outcome.is_err()))
}

/// Replaces this process with a fresh copy of itself, same arguments (UPD-7): after an
/// update, the binary `cargo install` put where this one was. Only returns on failure.
fn restart_in_place() -> anyhow::Error {
    use std::os::unix::process::CommandExt;
    tracing::info!("restarting");
    let program = match std::env::current_exe() {
        Ok(path) => crate::update::restart_program(path),
        Err(error) => return anyhow::anyhow!("cannot find this program to restart it: {error}"),
    };
    let error = std::process::Command::new(program)
        .args(std::env::args_os().skip(1))
        .exec();
    anyhow::anyhow!("restart failed: {error}")
}

#[cfg(test)]
mod tests;
