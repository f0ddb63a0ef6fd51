//! The `ollim-bot` binary: parses the command line, loads `.env`, and runs a subcommand.

use std::process::ExitCode;

use clap::{Parser, error::ErrorKind};
use ollim_bot::{
    cli::{Cli, Command, auth, chat},
    config::Config,
};
use tracing_subscriber::EnvFilter;

#[tokio::main]
async fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => return usage_error(&error),
    };
    init_logging();
    if let Err(error) = dotenvy::dotenv()
        && !error.not_found()
    {
        eprintln!("error: could not read .env: {error}");
        return ExitCode::FAILURE;
    }
    match run(cli).await {
        Ok(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

async fn run(cli: Cli) -> anyhow::Result<i32> {
    match cli.command {
        Some(Command::Chat { model }) => {
            let config = Config::from_env()?;
            match auth::claude_is_authenticated(&config.claude_cli).await {
                Ok(true) => {}
                Ok(false) => {
                    eprintln!(
                        "Claude is not logged in: run `ollim-bot auth login`, or set \
                         ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN in .env"
                    );
                    return Ok(1);
                }
                Err(message) => {
                    eprintln!("{message}");
                    return Ok(1);
                }
            }
            chat::run(config, model).await
        }
        Some(Command::Auth { args }) => {
            let cli_path =
                std::env::var("OLLIM_CLAUDE_CLI").unwrap_or_else(|_| "claude".to_owned());
            auth::run_auth(std::path::Path::new(&cli_path), &args)
                .await
                .map_err(anyhow::Error::msg)
        }
        None => {
            eprintln!(
                "The Discord front end is not part of this build yet; use `ollim-bot chat` to talk \
                 to your assistant in the terminal."
            );
            Ok(1)
        }
    }
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
            eprintln!(
                "{}\n",
                error
                    .render()
                    .to_string()
                    .lines()
                    .next()
                    .unwrap_or_default()
            );
            let _ = Cli::command().print_help();
            ExitCode::FAILURE
        }
        _ => {
            let _ = error.print();
            ExitCode::FAILURE
        }
    }
}

fn init_logging() {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("warn"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
}
