//! What `ollim-bot tasks | cal | gmail` share, and `ollim-bot google auth` (GOO-3): the client,
//! the zone and the configured list / calendars; one `error: …` line and exit 1 on any
//! failure; setup instructions when `credentials.json` is missing; and the loopback consent
//! flow, started by `google auth` or — in the owner's own terminal only — by a command that
//! finds Google not connected.

use std::io::IsTerminal;

use chrono_tz::Tz;
use clap::Subcommand;
use tokio::io::AsyncBufReadExt;

use crate::{
    config::runtime::RuntimeConfig,
    google::{
        GoogleClient, GoogleError, GoogleFiles, RequestError,
        calendar::CalendarChoice,
        loopback::{FLOW_TIMEOUT, LoopbackFlow, Offer, looks_like_redirect},
        oauth::RedirectRejection,
        setup_instructions,
    },
    state::paths::DataDir,
};

/// `ollim-bot google …`
#[derive(Debug, Subcommand)]
pub enum GoogleCommand {
    /// Connect Google (Tasks, Calendar, Gmail read-only): opens a sign-in on 127.0.0.1.
    Auth,
    /// Say whether Google is connected.
    Status,
}

/// Everything a Google command needs.
#[derive(Debug, Clone)]
pub struct GoogleContext {
    /// The API client.
    pub client: GoogleClient,
    /// `OLLIM_TIMEZONE`.
    pub tz: Tz,
    /// `google_task_list` (default `@default`).
    pub task_list: String,
    /// `google_calendars` (default `primary`).
    pub calendars: Vec<String>,
}

impl GoogleContext {
    /// Reads `state/config.json` for the list and the calendars; the client takes
    /// `OLLIM_GOOGLE_API_URL` from the environment.
    pub fn new(data_dir: &DataDir, tz: Tz, clock: crate::clock::Clock) -> Self {
        let config = RuntimeConfig::load(&data_dir.config_file());
        Self {
            client: GoogleClient::from_env(data_dir).with_clock(clock),
            tz,
            task_list: config.google_task_list,
            calendars: config.google_calendars,
        }
    }

    /// The calendars a command uses: `only` if given, else the configured ones (GOO-6).
    pub fn calendar_choice(&self, only: Option<String>) -> CalendarChoice {
        CalendarChoice::new(self.calendars.clone(), only)
    }
}

/// Prints a failure the way every Google command does, and gives the exit code (1).
pub fn report(context: &GoogleContext, failure: &RequestError) -> i32 {
    match failure {
        RequestError::Google(GoogleError::NoCredentials { .. }) => {
            eprintln!("{}", setup_instructions(context.client.files()));
        }
        other => eprintln!("error: {other}"),
    }
    1
}

/// A `--json` listing's text.
pub fn pretty(value: &impl serde::Serialize) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

/// Prints a request's answer (or its failure) and gives the exit code.
pub fn print_outcome(context: &GoogleContext, outcome: Result<String, RequestError>) -> i32 {
    match outcome {
        Ok(text) => {
            println!("{text}");
            0
        }
        Err(failure) => report(context, &failure),
    }
}

/// Makes sure Google is connected before a command runs. Without `credentials.json` the
/// setup steps are printed; without a usable token a consent flow runs, but only in the
/// owner's own terminal: the agent's shells (and scripts without a terminal) get the error
/// line at once instead of a command that waits five minutes for a browser.
pub async fn ensure_connected(context: &GoogleContext) -> Result<(), GoogleError> {
    let files = context.client.files();
    match files.check_connected() {
        Err(GoogleError::NotConnected)
            if !crate::config::environment::is_agent_child() && std::io::stderr().is_terminal() =>
        {
            consent(context, files).await
        }
        checked => checked,
    }
}

/// Runs `ollim-bot google …`.
pub async fn run(context: &GoogleContext, command: GoogleCommand) -> i32 {
    let files = context.client.files();
    match command {
        GoogleCommand::Status => {
            if files.is_connected() {
                println!("google connected.");
                0
            } else {
                println!("google not connected.");
                if let Err(error) = files.load_secrets() {
                    // What connecting needs first (the setup steps), as `google auth` says.
                    return report(context, &error.into());
                }
                println!("Connect it with `ollim-bot google auth` (or /google-auth in Discord).");
                1
            }
        }
        GoogleCommand::Auth => {
            if let Err(error) = files.load_secrets() {
                return report(context, &error.into());
            }
            if files.is_connected() {
                println!("google already connected.");
                return 0;
            }
            match consent(context, files).await {
                Ok(()) => {
                    println!("google connected.");
                    0
                }
                Err(error) => report(context, &error.into()),
            }
        }
    }
}

/// The loopback flow in a terminal: the URL on stderr, the browser's redirect or a pasted
/// redirect URL on stdin completes it (GOO-3).
async fn consent(context: &GoogleContext, files: &GoogleFiles) -> Result<(), GoogleError> {
    let flow = LoopbackFlow::start(files, context.client.http().clone()).await?;
    eprintln!(
        "Open this URL in a browser to connect Google (Tasks, Calendar, Gmail read-only):\n\n  \
         {}\n\nWaiting up to 5 minutes. Signing in on another device? When the browser ends on \
         a page at http://127.0.0.1:…, paste that address here and press Enter.",
        flow.url()
    );
    let paste = flow.paste_handle();
    let reader = tokio::spawn(async move {
        let mut lines = tokio::io::BufReader::new(tokio::io::stdin()).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            if !looks_like_redirect(&line) {
                continue;
            }
            match paste.offer_url(&line) {
                Offer::Accepted | Offer::AlreadyDone => return,
                Offer::Rejected(RedirectRejection::WrongState) => {
                    eprintln!("that address is not from this sign-in; still waiting");
                }
                Offer::Rejected(RedirectRejection::NotARedirect) => {}
            }
        }
    });
    let outcome = flow.finish(files, FLOW_TIMEOUT).await;
    reader.abort();
    outcome.map(|_| ())
}
