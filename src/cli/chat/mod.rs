//! `ollim-bot chat` (CMD-8): a terminal REPL on the same main session the bot uses.
//!
//! Works on a terminal and with pipes. Replies stream as they arrive; `/clear`, `/compact`,
//! `/model`, `/thinking`, `/permissions`, `/config`, `/cost` and `/version` go through the
//! same parser and executor as Discord's (`agent::command`) and answer alike; Ctrl-D, Ctrl-C or SIGTERM
//! end the session cleanly, leaving no CLI process behind.

mod line_reader;
mod terminal;
mod terminal_text;

use std::{sync::Arc, time::Duration};

use tokio::signal::unix::{SignalKind, signal};

pub use line_reader::LineReader;
pub use terminal::{TerminalFrontEnd, render_embed, render_events};
pub(crate) use terminal_text::harmless;

use crate::{
    agent::{
        MainSession, MainSettings, Prompt,
        command::{self, CommandReply},
        open_services,
    },
    claude::{CliVersionError, installed_cli_version, missing_cli_fix},
    config::{Config, RuntimeConfig},
    state::{
        instance_lock::{InstanceLock, InstanceLockError},
        paths::DataDir,
    },
};

/// How long shutting down may wait for the CLI.
const SHUTDOWN_DEADLINE: Duration = Duration::from_secs(15);

const HELP: &str = "\
commands:
  /clear                 forget the conversation and start fresh
  /compact [focus]       compact the conversation (optionally saying what to keep)
  /model [name]          show or switch the model (opus, sonnet, haiku)
  /thinking [mode]       show or set thinking: off, adaptive, 8k/32k/64k budget or tokens
  /permissions [mode]    show or set tool permissions: dontAsk, default, acceptEdits,
                         bypassPermissions
  /config [key] [value]  show or change a setting (saved in state/config.json)
  /cost                  show what this session cost so far
  /version               show the bot's version
  /help                  this list
  /quit                  leave (Ctrl-D and Ctrl-C work too)";

/// Runs the REPL until end of input or a signal. Returns the process exit code.
pub async fn run(config: Config, model: Option<String>) -> anyhow::Result<i32> {
    match installed_cli_version(&config.claude_cli).await {
        Ok(version) => {
            if let Some(concern) = version.fit().concern() {
                eprintln!("[warn] {concern}");
            }
        }
        Err(error @ CliVersionError::Spawn { .. }) => {
            eprintln!("error: {error}\n{}", missing_cli_fix());
            return Ok(1);
        }
        Err(error) => eprintln!("[warn] {error}"),
    }
    let Some(_instance) = drive_the_session(&config)? else {
        return Ok(1);
    };
    let opened = open_services(config)?;
    let runtime = RuntimeConfig::clone(&opened.services.runtime.current());
    if opened.initialised_git {
        eprintln!(
            "Initialized git tracking in {}",
            opened.services.data_dir.root().display()
        );
    }
    let input = Arc::new(LineReader::spawn(
        opened.services.data_dir.state_dir().join("chat_history"),
    ));
    let front_end = Arc::new(TerminalFrontEnd::new(Arc::clone(&input)));
    let settings = MainSettings {
        model: model.or(runtime.model_main),
        thinking: runtime.thinking_main,
        permission_mode: runtime.permission_mode,
    };
    let session = Arc::new(MainSession::new(
        opened.services.clone(),
        front_end.clone(),
        settings,
    ));
    let warm_up = {
        let session = Arc::clone(&session);
        tokio::spawn(async move {
            if let Err(error) = session.connect().await {
                let error = error.to_string();
                eprintln!("[error] could not start Claude: {}", harmless(&error));
            }
        })
    };
    let mut interrupt = signal(SignalKind::interrupt())?;
    let mut terminate = signal(SignalKind::terminate())?;
    eprintln!("ollim-bot chat — /help for commands, Ctrl-D to leave.");
    loop {
        let line = tokio::select! {
            line = input.read("you> ") => line,
            _ = interrupt.recv() => None,
            _ = terminate.recv() => None,
        };
        let Some(line) = line else { break };
        let line = line.trim().to_owned();
        if line.is_empty() {
            continue;
        }
        // Ctrl-C stops the reply in progress; a second one leaves (issue 24 §8).
        let turn = handle_line(&session, &line, &opened.services.data_dir);
        tokio::pin!(turn);
        let mut interrupted = false;
        let keep_going = loop {
            tokio::select! {
                keep_going = &mut turn => break keep_going,
                _ = interrupt.recv() => {
                    session.interrupt();
                    if interrupted {
                        break false;
                    }
                    interrupted = true;
                    println!("\n[interrupted] (Ctrl-C again to leave)");
                }
                _ = terminate.recv() => { session.interrupt(); break false; }
            }
        };
        if !keep_going {
            break;
        }
    }
    // Let a start-up in progress finish, then stop the CLI cleanly (shutdown waits for it).
    let stopping = async {
        let _ = warm_up.await;
        session.shutdown().await;
    };
    if tokio::time::timeout(SHUTDOWN_DEADLINE, stopping)
        .await
        .is_err()
    {
        eprintln!("[warn] the Claude CLI did not stop in time");
    }
    opened.usage_worker.shutdown().await;
    opened.git_worker.shutdown().await;
    Ok(0)
}

/// The instance lock: one process drives the main session at a time (issue 24 §5). Beside
/// the running bot, or a second `chat`, both would resume it and each miss the other's turns;
/// `None` (after saying why) when another holds it.
fn drive_the_session(config: &Config) -> anyhow::Result<Option<InstanceLock>> {
    match InstanceLock::acquire(&DataDir::new(&config.data_dir).state_dir()) {
        Ok(lock) => Ok(Some(lock)),
        Err(InstanceLockError::AlreadyRunning { pid }) => {
            let who = pid.map_or_else(String::new, |pid| format!(" (pid {pid})"));
            eprintln!(
                "error: another ollim-bot{who} already drives this conversation: the bot itself \
                 or another `chat`. Talk to it in Discord, or stop it first (`systemctl --user \
                 stop ollim-bot`, Ctrl-C where it runs, or /quit in the other chat); two at once \
                 would each miss the other's turns."
            );
            Ok(None)
        }
        Err(error) => Err(error.into()),
    }
}

/// Handles one input line; returns `false` to leave.
async fn handle_line(session: &MainSession, line: &str, data_dir: &DataDir) -> bool {
    match line.split_whitespace().next().unwrap_or_default() {
        "/quit" | "/exit" => return false,
        "/help" => {
            println!("{HELP}");
            return true;
        }
        _ => {}
    }
    let reply = match command::parse_line(line) {
        Some(Ok(parsed)) => session.run_command(parsed).await,
        Some(Err(usage)) => CommandReply::from(usage),
        None => match session
            .exchange(Prompt::text(line).led_by_its_command(data_dir))
            .await
        {
            Ok(report)
                if report.result.is_error
                    && !report.result.was_interrupted()
                    && report.text.is_empty() =>
            {
                CommandReply::Failed(report.result.error_summary())
            }
            Ok(_) => return true,
            Err(error) => CommandReply::Failed(format!(
                "{error}\n[note] your next message resumes the same conversation."
            )),
        },
    };
    // A failure can quote the model or the API, so replies are made harmless too (CMD-8).
    match reply {
        // Replies are written for Discord; a terminal shows its bold marks as they are.
        CommandReply::Done(text) => println!("{}", harmless(&text).replace("**", "")),
        CommandReply::Failed(error) => println!("[error] {}", harmless(&error)),
    }
    true
}
