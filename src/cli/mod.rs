//! The command line: argument parsing and the subcommands that run in the terminal.

pub mod approve;
pub mod auth;
pub mod cal;
pub mod chat;
pub mod claude_install;
pub mod counterfactual;
pub mod doctor;
pub mod eval;
pub mod gmail;
pub mod google;
pub mod history;
mod job_listing;
pub mod recall;
pub mod reminder;
pub mod routine;
pub mod service;
pub mod setup;
pub mod tasks;
pub mod tool_approval;
pub mod usage;
pub mod webhook;

use clap::{Parser, Subcommand};

/// The first line of `ollim-bot --help` (CMD-1).
pub const HELP_TITLE: &str = "ollim-bot -- ADHD-friendly Discord assistant powered by Claude";

const EXAMPLES: &str = "\
Examples:
  ollim-bot setup               answer a few questions; writes ~/.ollim-bot/.env
  ollim-bot                     start the bot (reads ./.env, else ~/.ollim-bot/.env)
  ollim-bot chat                talk to the same main session in the terminal
  ollim-bot chat --model haiku  ... with another model for this run
  ollim-bot auth status         show whether the Claude CLI is logged in
  ollim-bot doctor              check the setup (no running bot needed); exit 1 on a failure
  ollim-bot routine add -m \"Plan my day\" --cron \"0 9 * * 1-5\"
  ollim-bot reminder add -m \"Stretch\" --in 30m
  ollim-bot reminder add -m \"Call mum\" --at 18:00
  ollim-bot reminder list
  ollim-bot tasks add \"Call the dentist\" --due 2026-03-01
  ollim-bot cal today
  ollim-bot google auth         connect Google Tasks, Calendar and Gmail
  ollim-bot counterfactual latest 3f2a --append \"Be brief.\" --with-baseline
  ollim-bot webhook list        webhook specs; `webhook test <id> --data '{...}'` tries one
  ollim-bot completions zsh     tab completion for your shell (bash, zsh, fish)";

/// `ollim-bot` command-line arguments.
#[derive(Debug, Parser)]
#[command(
    name = "ollim-bot",
    version = concat!("v", env!("CARGO_PKG_VERSION")),
    before_help = HELP_TITLE,
    about = "Run without a command to start the bot; the commands below work beside it.",
    after_help = EXAMPLES
)]
pub struct Cli {
    /// The `.env` to read (default: `./.env`, else `DATA_DIR/.env`). Variables already set in
    /// the environment win over the file's.
    #[arg(long, global = true, value_name = "PATH")]
    pub env_file: Option<std::path::PathBuf>,
    /// The data dir (default: `OLLIM_DATA_DIR`, else `~/.ollim-bot`).
    #[arg(long, global = true, value_name = "DIR")]
    pub data_dir: Option<std::path::PathBuf>,
    /// What to do; without a subcommand the bot starts.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Chat with the main session in the terminal (the same conversation as in Discord).
    Chat {
        /// Model for this terminal session (opus, sonnet, haiku, fable, opusplan or a full model id).
        #[arg(long, value_parser = routine::parse_model_flag)]
        model: Option<String>,
    },
    /// Routines: markdown files with a cron schedule (add, list, cancel).
    #[command(subcommand_required = true, arg_required_else_help = true)]
    Routine {
        /// What to do.
        #[command(subcommand)]
        action: routine::RoutineCommand,
    },
    /// Reminders: one-off prompts to your future self (add, list, cancel).
    #[command(subcommand_required = true, arg_required_else_help = true)]
    Reminder {
        /// What to do.
        #[command(subcommand)]
        action: reminder::ReminderCommand,
    },
    /// Google Tasks: list, show, add, done, update, delete.
    #[command(subcommand_required = true, arg_required_else_help = true)]
    Tasks(tasks::TasksArgs),
    /// Google Calendar: today, upcoming, show, add, update, delete, calendars.
    #[command(subcommand_required = true, arg_required_else_help = true)]
    Cal(cal::CalArgs),
    /// Gmail, read-only: unread, search, read, labels.
    #[command(subcommand_required = true, arg_required_else_help = true)]
    Gmail(gmail::GmailArgs),
    /// Google connection: `auth` to connect, `status` to check.
    #[command(subcommand_required = true, arg_required_else_help = true)]
    Google {
        /// What to do.
        #[command(subcommand)]
        action: google::GoogleCommand,
    },
    /// Webhook specs: list them, or test a payload against one locally.
    #[command(subcommand_required = true, arg_required_else_help = true)]
    Webhook {
        /// What to do.
        #[command(subcommand)]
        action: webhook::WebhookCommand,
    },
    /// Simulated-owner evaluations of the agent: run, list, results, compare (real model
    /// calls on your Claude login, in throw-away data dirs).
    #[command(subcommand_required = true, arg_required_else_help = true)]
    Eval {
        /// What to do.
        #[command(subcommand)]
        action: eval::EvalCommand,
    },
    /// The bot's past Claude sessions: list them, print one, or search them.
    History(history::HistoryArgs),
    /// Replay one of your messages from a past session with a change (another system prompt,
    /// model or message, a tool taken away) and compare the answers.
    Counterfactual(counterfactual::CounterfactualArgs),
    /// Recall: the passages of everything said, noted and done that answer a question, best
    /// first; `--forget` removes some for good, `--reindex` rebuilds the index.
    Recall(recall::RecallArgs),
    /// What the agent's work cost, from the usage ledger: by kind, job, model or day.
    Usage(usage::UsageArgs),
    /// First-time set-up in the terminal: Discord token, names, timezone, the Claude Code CLI
    /// (installed for the bot when missing, after asking), Claude; writes the `.env` the bot
    /// reads.
    Setup,
    /// Print a shell completion script: `mkdir -p ~/.local/share/bash-completion/completions && ollim-bot completions bash > ~/.local/share/bash-completion/completions/ollim-bot`.
    Completions {
        /// The shell: bash, zsh, fish, elvish or powershell.
        shell: clap_complete::Shell,
    },
    /// Run the bot as a systemd user service: install, uninstall, status.
    #[command(subcommand_required = true, arg_required_else_help = true)]
    Service {
        /// What to do.
        #[command(subcommand)]
        action: service::ServiceCommand,
    },
    /// Check the installation without starting the bot: settings, files, CLI, Discord.
    Doctor {
        /// First install the tested Claude Code CLI for the bot when it is missing or another
        /// version (asks before running npm), as `setup` does.
        #[arg(long)]
        fix: bool,
    },
    /// Skills, slash commands, subagents and settings the CLI may load: list what waits for
    /// your approval, or approve files as they are now.
    Approve(approve::ApproveArgs),
    /// Claude CLI authentication: login, status or logout.
    Auth {
        /// `login`, `status` or `logout`, plus their options.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
}

/// Writes the completion script for `shell` to stdout.
pub fn print_completions(shell: clap_complete::Shell) {
    use clap::CommandFactory;
    use std::io::Write as _;
    let mut command = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, "ollim-bot", &mut script);
    // A closed pipe (`| head`) is not an error worth a panic.
    let _ = std::io::stdout().lock().write_all(&script);
}
