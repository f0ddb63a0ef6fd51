//! The `ollim-bot` binary: parses the command line, loads `.env`, and runs a subcommand.

use std::process::ExitCode;

use clap::{Parser, error::ErrorKind};
use ollim_bot::config::environment;
use ollim_bot::{
    app,
    cli::{
        Cli, Command, auth, cal, chat, doctor, eval, gmail, google, history, recall, reminder,
        routine, service, setup, tasks, webhook,
    },
    config::{Config, Launch},
    state::paths::DataDir,
};
use tracing_subscriber::EnvFilter;

fn main() -> ExitCode {
    // Inside a session's container: enter the Landlock domain and become the CLI (issue 39).
    // Before anything else: no `.env`, no logging, no threads.
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args
        .get(1)
        .is_some_and(|arg| arg == ollim_bot::sandbox::launcher::SUBCOMMAND)
    {
        let error = ollim_bot::sandbox::launcher::exec(&args[2..]);
        eprintln!("ollim-bot: {error}");
        return ExitCode::from(126);
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            let code = usage_error(&error);
            // CMD-10: a usage error of `counterfactual` is exit 2, as its callers script it.
            return if subcommand_of(&args) == Some("counterfactual") && code == ExitCode::FAILURE {
                ExitCode::from(2)
            } else {
                code
            };
        }
    };
    // Before any thread exists (the `.env` sets process variables) and before logging starts
    // (so `RUST_LOG` in the file counts).
    let launch = match Launch::load(cli.env_file.clone(), cli.data_dir.clone()) {
        Ok(launch) => launch,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::FAILURE;
        }
    };
    init_logging();
    ollim_bot::app::hardening::harden_process();
    // One owner's daemon: the CLI does the heavy work in its own process, so two workers are
    // plenty, and the thread count (and memory) doesn't grow with the host's cores (issue 17).
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("error: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(cli, launch)) {
        Ok(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

async fn run(cli: Cli, launch: Launch) -> anyhow::Result<i32> {
    match cli.command {
        Some(Command::Chat { model }) => {
            let config = Config::from_launch(&launch)?;
            if !claude_auth_ok(&config).await {
                return Ok(1);
            }
            chat::run(config, model).await
        }
        Some(Command::Auth { args }) => {
            let cli = ollim_bot::config::claude_cli_from(|name| launch.var(name));
            let env = ollim_bot::config::cli_env_from(|name| launch.var(name));
            auth::run_auth(&cli.path, &env, &args)
                .await
                .map_err(anyhow::Error::msg)
        }
        Some(Command::Routine { action }) => {
            let (data_dir, tz) = scheduling_env(&launch)?;
            Ok(routine::run(&data_dir, tz, clock_of(&launch).now(), action))
        }
        Some(Command::Reminder { action }) => {
            let (data_dir, tz) = scheduling_env(&launch)?;
            Ok(reminder::run(
                &data_dir,
                tz,
                clock_of(&launch).now(),
                action,
            ))
        }
        Some(Command::Webhook { action }) => {
            let (data_dir, _) = scheduling_env(&launch)?;
            Ok(webhook::run(&data_dir, action))
        }
        Some(Command::Service { action }) => {
            let (data_dir, _) = scheduling_env(&launch)?;
            Ok(service::run(&action, &launch, data_dir.root()))
        }
        Some(Command::Doctor { fix }) => Ok(doctor::run(&launch, fix).await),
        Some(Command::Approve(args)) => {
            let (data_dir, _) = scheduling_env(&launch)?;
            let user = launch.var("OLLIM_USER_NAME").unwrap_or_default();
            let bot = launch.var("OLLIM_BOT_NAME").unwrap_or_default();
            Ok(ollim_bot::cli::approve::run(
                &data_dir,
                (&user, &bot),
                &args,
            ))
        }
        Some(Command::Eval { action }) => eval_command(action, &launch).await,
        Some(Command::Counterfactual(args)) => {
            let config = Config::from_launch(&launch)?;
            Ok(ollim_bot::cli::counterfactual::run(config, args).await)
        }
        Some(Command::History(args)) => Ok(history::run(&args, clock_of(&launch).now())),
        Some(Command::Recall(args)) => Ok(recall::run(&args, clock_of(&launch).now())),
        Some(Command::Usage(args)) => {
            Ok(ollim_bot::cli::usage::run(&args, clock_of(&launch).now()))
        }
        Some(Command::Setup) => Ok(setup::run(&launch).await),
        Some(Command::Completions { shell }) => {
            ollim_bot::cli::print_completions(shell);
            Ok(0)
        }
        Some(Command::Tasks(args)) => Ok(tasks::run(&google_env(&launch)?, args).await),
        Some(Command::Cal(args)) => Ok(cal::run(&google_env(&launch)?, args).await),
        Some(Command::Gmail(args)) => Ok(gmail::run(&google_env(&launch)?, args).await),
        Some(Command::Google { action }) => Ok(google::run(&google_env(&launch)?, action).await),
        None => run_bot(&launch).await,
    }
}

/// `eval`: `run` needs the whole configuration and a Claude login; the rest read the history.
async fn eval_command(action: eval::EvalCommand, launch: &Launch) -> anyhow::Result<i32> {
    let eval::EvalCommand::Run { scenario, verbose } = action else {
        let (data_dir, _) = scheduling_env(launch)?;
        return Ok(eval::run_offline(&action, &data_dir));
    };
    let scenarios = match eval::select(scenario.as_deref()) {
        Ok(scenarios) => scenarios,
        Err(error) => {
            eprintln!("{error}");
            return Ok(2);
        }
    };
    let config = Config::from_launch(launch)?;
    if !claude_auth_ok(&config).await {
        return Ok(1);
    }
    eval::run_scenarios(config, scenarios, verbose, clock_of(launch).now()).await
}

/// The data dir and timezone for `routine` / `reminder`, which need nothing else: no Discord
/// token and no names (F-36).
fn scheduling_env(launch: &Launch) -> anyhow::Result<(DataDir, chrono_tz::Tz)> {
    let config = Config::from_lookup(|name| match name {
        "OLLIM_USER_NAME" | "OLLIM_BOT_NAME" => {
            Some(launch.var(name).unwrap_or_else(|| "-".to_owned()))
        }
        _ => launch.var(name),
    })?;
    let data_dir = DataDir::new(&config.data_dir);
    std::fs::create_dir_all(data_dir.root())?;
    Ok((data_dir, config.timezone))
}

/// The Google commands' context: the data dir and zone of [`scheduling_env`], the configured
/// list and calendars, `OLLIM_GOOGLE_API_URL`.
fn google_env(launch: &Launch) -> anyhow::Result<google::GoogleContext> {
    let (data_dir, tz) = scheduling_env(launch)?;
    Ok(google::GoogleContext::new(&data_dir, tz, clock_of(launch)))
}

/// The clock a subcommand reads time by: the system's, or the test clock `OLLIM_TEST_CLOCK`
/// names (issue 40 §2).
fn clock_of(launch: &Launch) -> ollim_bot::clock::Clock {
    ollim_bot::clock::Clock::from_test_file(
        launch
            .var(ollim_bot::config::TEST_CLOCK_ENV)
            .map(std::path::PathBuf::from),
    )
}

/// The daemon: required variables (BOOT-2), configuration, Claude auth, then the bot.
async fn run_bot(launch: &Launch) -> anyhow::Result<i32> {
    // A misspelt key first: it is often why a required one is missing.
    if let Some(path) = launch.env_file.path() {
        for note in ollim_bot::config::env_keys::misspelt_keys(path) {
            eprintln!("warning: {}: {note}", path.display());
        }
    }
    if let Some(missing) =
        app::missing_required(|name| launch.var(name), &launch.env_file.describe())
    {
        eprintln!("{missing}");
        return Ok(1);
    }
    let config = Config::from_launch(launch)?;
    let cli = ollim_bot::config::claude_cli_from(|name| launch.var(name));
    if ollim_bot::sandbox::locate_executable(&cli.path, environment::search_path().as_deref())
        .is_none()
    {
        eprintln!("{}", cli.not_found());
        return Ok(1);
    }
    let discord = app::DiscordSettings {
        token: environment::discord_token().unwrap_or_default(),
        api_url: environment::discord_api_url(),
    };
    // The network first: at boot it may not be up yet, and every later step would fail with
    // a confusing cause (issue 24 §7).
    let (host, port) = app::network_wait::discord_endpoint(discord.api_url.as_deref());
    // A stop before the daemon runs ends it quietly, the Claude login included (issue 44 §3).
    let early_stop = app::EarlyStop::watch();
    tokio::select! {
        () = app::network_wait::wait_for(&host, port) => {}
        () = early_stop.token().cancelled() => return Ok(0),
    }
    // The bot's own CLI copy at the tested version before anything runs it (issue 44 §4).
    tokio::select! {
        () = ollim_bot::cli::claude_install::keep_bot_copy_current(launch, &cli) => {}
        () = early_stop.token().cancelled() => return Ok(0),
    }
    let auth = auth::claude_is_authenticated(&config.claude_cli, &config.cli_env).await;
    let logged_in = match auth {
        Ok(true) => true,
        // BOOT-4: log in through the owner's DMs before connecting.
        Ok(false) => match app::claude_login::log_in_through_discord(
            &config.claude_cli,
            &config.cli_env,
            (&discord.token, discord.api_url.as_deref()),
            early_stop.token(),
        )
        .await
        {
            app::claude_login::Login::LoggedIn => true,
            app::claude_login::Login::Failed => false,
            app::claude_login::Login::Stopped => {
                let name = early_stop.name().unwrap_or("a stop signal");
                let ending = app::console::Ending::SignalDuringLogin(name);
                eprintln!("{}", app::console::stopped_line(&config.bot_name, ending));
                return Ok(0);
            }
        },
        Err(message) => {
            eprintln!("{message}");
            false
        }
    };
    drop(early_stop);
    if !logged_in {
        return Ok(1);
    }
    app::run(config, discord).await
}

/// Checks Claude auth for `chat`, printing what to do when it is missing.
async fn claude_auth_ok(config: &Config) -> bool {
    match auth::claude_is_authenticated(&config.claude_cli, &config.cli_env).await {
        Ok(true) => true,
        Ok(false) => {
            eprintln!(
                "Claude is not logged in: run `ollim-bot auth login`, or set ANTHROPIC_API_KEY or \
                 ANTHROPIC_AUTH_TOKEN in .env"
            );
            false
        }
        Err(message) => {
            eprintln!("{message}");
            false
        }
    }
}

/// The subcommand named in `args` (the program first): the first word that is neither an
/// option nor the value of a global one.
fn subcommand_of(args: &[std::ffi::OsString]) -> Option<&str> {
    let mut words = args.iter().skip(1).filter_map(|arg| arg.to_str());
    while let Some(word) = words.next() {
        match word {
            "--env-file" | "--data-dir" => {
                words.next();
            }
            option if option.starts_with('-') => {}
            subcommand => return Some(subcommand),
        }
    }
    None
}

/// `--help`/`--version` print and exit 0; anything unrecognised prints the help and exits 1.
fn usage_error(error: &clap::Error) -> ExitCode {
    match error.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let _ = error.print();
            ExitCode::SUCCESS
        }
        ErrorKind::InvalidSubcommand | ErrorKind::UnknownArgument => {
            use clap::CommandFactory;
            let rendered = error.render().to_string();
            let suggests = rendered.lines().any(|l| l.trim_start().starts_with("tip:"));
            let top_level = rendered
                .lines()
                .any(|l| l.starts_with("Usage: ollim-bot [OPTIONS] [COMMAND]"));
            if suggests || !top_level {
                // A likely meant word, or a subcommand's own usage: clap's error says it.
                eprint!("{rendered}");
            } else {
                eprintln!("{}\n", rendered.lines().next().unwrap_or_default());
                eprintln!("{}", Cli::command().render_help());
            }
            ExitCode::FAILURE
        }
        _ => {
            let _ = error.print();
            ExitCode::FAILURE
        }
    }
}

fn init_logging() {
    // Unset: warnings, the Discord link's own lines (BOOT-13), and none of serenity's gateway
    // reconnect warnings (one per retry, every 5 s while Discord is away; issue 44 §2).
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| {
        EnvFilter::new("warn,serenity::gateway=error,ollim_bot::discord::link=info")
    });
    // Colour only on a terminal: journald and log files get plain text (issue 24 §8).
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(ansi)
        .init();
}
