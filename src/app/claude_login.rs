//! BOOT-4: a daemon whose Claude CLI is not logged in (and has no API key or auth token)
//! starts `claude auth login` itself, DMs the owner the login link through the Discord REST
//! API (the gateway is not connected yet), and hands the CLI the code the owner replies with.
//!
//! The CLI (2.1.197 and the pinned 2.1.332 alike) needs no terminal for this: with the browser
//! suppressed it prints `If the browser didn't open, visit: https://…` (the manual flow, whose
//! page ends by showing a code), then reads that code from stdin and exits 0 when logged in,
//! 1 otherwise. The code comes from the owner's next DM, read by polling the channel, or from
//! this terminal when it is one. Also here: the CLI version logged at start (issue 15).

mod lines;
mod output;
mod rest;

use std::{
    io::IsTerminal, os::unix::process::ExitStatusExt, path::Path, process::Stdio, time::Duration,
};

use tokio::{io::AsyncWriteExt, process::Command, sync::mpsc};
use tokio_util::sync::CancellationToken;

use self::{
    lines::{forward_lines, terminal_lines},
    output::{last_words, refusal_detail, says_failed},
    rest::DiscordRest,
};
use crate::{claude::installed_cli_version, discord::client::ConnectError};

/// The DM with the link (BOOT-4).
pub const LOGIN_REQUIRED: &str = "claude login required — click to authenticate:";
/// What the owner is asked to do after signing in.
pub const CODE_REQUEST: &str =
    "after signing in, the page shows a code: reply here with it and i'll finish the login.";
/// Printed when the login did not succeed.
pub const LOGIN_FAILED: &str = "Login failed — run `ollim-bot auth login` to try again";
/// Printed when it did.
pub const LOGIN_SUCCEEDED: &str = "Login successful!";

/// How long the CLI may take to print its link.
const URL_TIMEOUT: Duration = Duration::from_secs(60);
/// How long the owner has to finish signing in.
const LOGIN_TIMEOUT: Duration = Duration::from_secs(30 * 60);
/// How often the DM is read for the owner's code.
const REPLY_POLL: Duration = Duration::from_secs(2);
/// How long the CLI may take to exit after it said the login failed.
const EXIT_GRACE: Duration = Duration::from_secs(3);
/// How long after the link the CLI is taken to read codes even without its `Paste code`
/// prompt (a code written before it reads is lost).
const PROMPT_GRACE: Duration = Duration::from_secs(3);

/// Why the login through Discord did not happen.
#[derive(Debug, thiserror::Error)]
pub enum LoginError {
    /// Discord refused the bot token (HTTP 401).
    #[error("{}", ConnectError::InvalidToken)]
    InvalidToken,
    /// Another Discord API failure.
    #[error("Discord API error: {0}")]
    Discord(String),
    /// The CLI could not be started.
    #[error("could not run {cli} auth login: {source}")]
    Spawn {
        /// The CLI path.
        cli: String,
        /// What the OS said.
        source: std::io::Error,
    },
    /// The CLI printed no link.
    #[error("`claude auth login` printed no https:// link")]
    NoUrl,
    /// The owner did not finish in time.
    #[error("the login was not finished within {} minutes", LOGIN_TIMEOUT.as_secs() / 60)]
    TimedOut,
    /// A stop signal ended the login (issue 44 §3): not a failure, nothing is told.
    #[error("the login was stopped")]
    Stopped,
    /// The CLI said no; `said` is its last words, when it printed any.
    #[error("`claude auth login` failed{}", refusal_detail(said.as_deref()))]
    Refused {
        /// The CLI's last output line (`Couldn't log in: getaddrinfo ENOTFOUND …`).
        said: Option<String>,
    },
}

/// Logs the installed CLI's version at start, warning when it is not the tested one; returns
/// it for the ready line.
pub async fn log_cli_version(cli: &Path) -> Option<String> {
    match installed_cli_version(cli).await {
        Ok(version) => {
            match version.fit().concern() {
                None => tracing::info!("Claude Code CLI {version} (the tested version)"),
                Some(concern) => tracing::warn!("{concern}"),
            }
            Some(version.to_string())
        }
        Err(error) => {
            tracing::warn!(%error, "could not read the Claude Code CLI version");
            None
        }
    }
}

/// How the login through Discord ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Login {
    /// The CLI is logged in.
    LoggedIn,
    /// It is not (the reason was printed).
    Failed,
    /// A stop signal came first: nothing was printed or sent as a failure (BOOT-14).
    Stopped,
}

/// BOOT-4 for the daemon: prints what happens, logs in through Discord (`discord` is the bot
/// token and the API base URL). Every failure is printed (a refused token with the token
/// message, anything else followed by [`LOGIN_FAILED`]); once `stop` is cancelled the login
/// ends without a word of failure, here or in the DM.
pub async fn log_in_through_discord(
    cli: &Path,
    env: &std::collections::BTreeMap<String, String>,
    (token, api_url): (&str, Option<&str>),
    stop: &CancellationToken,
) -> Login {
    eprintln!(
        "Claude is not logged in: starting `claude auth login` and sending the link to your Discord DMs"
    );
    let rest = DiscordRest::new(token, api_url);
    let login = run_login(cli, env, &rest, stop);
    // Dropping the login ends its CLI (`kill_on_drop`).
    let outcome = tokio::select! {
        biased;
        () = stop.cancelled() => Err(LoginError::Stopped),
        outcome = login => outcome,
    };
    match outcome {
        Ok(()) => {
            eprintln!("{LOGIN_SUCCEEDED}");
            Login::LoggedIn
        }
        Err(LoginError::Stopped) => {
            tracing::info!("the Claude login was stopped by a signal");
            Login::Stopped
        }
        Err(LoginError::InvalidToken) => {
            eprintln!("{}", LoginError::InvalidToken);
            Login::Failed
        }
        Err(error) => {
            eprintln!("{error}");
            eprintln!("{LOGIN_FAILED}");
            Login::Failed
        }
    }
}

/// Starts `<cli> auth login` with the browser suppressed; returns it, its output lines (stdout
/// and stderr, prompts included) and the sign-in link it printed.
async fn spawn_login(
    cli: &Path,
    env: &std::collections::BTreeMap<String, String>,
) -> Result<
    (
        tokio::process::Child,
        mpsc::UnboundedReceiver<String>,
        String,
    ),
    LoginError,
> {
    let mut child = Command::new(cli)
        .args(["auth", "login"])
        .envs(env)
        .env("BROWSER", "echo")
        .env("DISABLE_AUTOUPDATER", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|source| LoginError::Spawn {
            cli: cli.display().to_string(),
            source,
        })?;
    let (lines_tx, mut lines) = mpsc::unbounded_channel();
    if let Some(out) = child.stdout.take() {
        tokio::spawn(forward_lines(out, lines_tx.clone()));
    }
    if let Some(err) = child.stderr.take() {
        tokio::spawn(forward_lines(err, lines_tx));
    }
    let url = tokio::time::timeout(URL_TIMEOUT, async {
        while let Some(line) = lines.recv().await {
            if let Some(url) = first_https_url(&line) {
                return Some(url.to_owned());
            }
        }
        None
    })
    .await
    .ok()
    .flatten()
    .ok_or(LoginError::NoUrl)?;
    Ok((child, lines, url))
}

async fn run_login(
    cli: &Path,
    env: &std::collections::BTreeMap<String, String>,
    discord: &DiscordRest,
    stop: &CancellationToken,
) -> Result<(), LoginError> {
    let owner = discord.owner_id().await?;
    let channel = discord.open_dm(owner).await?;
    let (mut child, mut lines, url) = spawn_login(cli, env).await?;
    let asked = discord
        .send(channel, &format!("{LOGIN_REQUIRED}\n{url}"))
        .await?;
    // Replies are read from the link on: an owner who answers before the code request below
    // is posted is still heard.
    if let Err(error) = discord.send(channel, CODE_REQUEST).await {
        tracing::debug!(%error, "could not ask for the code in the DM");
    }
    eprintln!(
        "Sent the login link to your Discord DMs: {url}\nAfter signing in, reply to that DM with \
         the code the page shows{}.",
        if std::io::stdin().is_terminal() {
            ", or paste it here"
        } else {
            ""
        }
    );
    let mut stdin = child.stdin.take();
    let mut typed = terminal_lines();
    let mut last_seen = asked;
    let mut poll = tokio::time::interval(REPLY_POLL);
    let deadline = tokio::time::sleep(LOGIN_TIMEOUT);
    tokio::pin!(deadline);
    let grace = tokio::time::sleep(PROMPT_GRACE);
    tokio::pin!(grace);
    // The CLI drops what arrives before it asks, so a code waits for its prompt.
    let mut reading = false;
    let mut pending: Option<String> = None;
    let mut said: Option<String> = None;
    // CLI 2.1.332 can stay alive after it said the login failed (its sign-in callback server
    // keeps it up): it gets a moment to exit by itself, then is ended.
    let mut gave_up: Option<std::pin::Pin<Box<tokio::time::Sleep>>> = None;
    // Ended by a signal from outside (a Ctrl-C or a service stop reaches the CLI too).
    let mut signalled = false;
    let ok = loop {
        let code = tokio::select! {
            status = child.wait() => {
                signalled = status.as_ref().is_ok_and(|status| status.signal().is_some());
                break status.is_ok_and(|status| status.success());
            }
            () = &mut deadline => return Err(LoginError::TimedOut),
            () = async { gave_up.as_mut().expect("armed").await }, if gave_up.is_some() => {
                if let Err(error) = child.kill().await {
                    tracing::debug!(%error, "could not end `claude auth login`");
                }
                break false;
            }
            () = &mut grace, if !reading => {
                reading = true;
                None
            }
            Some(line) = lines.recv() => {
                tracing::info!("claude auth login: {line}");
                said = last_words(&line).or(said);
                if gave_up.is_none() && says_failed(&line) {
                    gave_up = Some(Box::pin(tokio::time::sleep(EXIT_GRACE)));
                }
                reading |= line.contains("Paste code");
                None
            }
            Some(line) = typed.recv() => code_from_reply(&line),
            _ = poll.tick() => {
                let replies = match discord.messages_after(channel, last_seen).await {
                    Ok(replies) => replies,
                    Err(LoginError::InvalidToken) => return Err(LoginError::InvalidToken),
                    Err(error) => {
                        tracing::debug!(%error, "could not read the DM for the login code");
                        continue;
                    }
                };
                last_seen = replies.last().map_or(last_seen, |m| m.id);
                replies
                    .iter()
                    .filter(|m| m.author == owner)
                    .find_map(|m| code_from_reply(&m.content))
            }
        };
        pending = code.or(pending);
        if !reading {
            continue;
        }
        if let (Some(code), Some(pipe)) = (pending.take(), stdin.as_mut()) {
            let written = pipe.write_all(format!("{code}\n").as_bytes()).await;
            if written.is_err() || pipe.flush().await.is_err() {
                stdin = None;
            }
        }
    };
    let ended = Ended {
        ok,
        signalled,
        stop,
    };
    finish(discord, channel, ended, lines, said).await
}

/// How the CLI's `auth login` ended.
struct Ended<'a> {
    /// It exited 0: logged in.
    ok: bool,
    /// A signal from outside ended it.
    signalled: bool,
    /// Cancelled once the bot got a stop signal.
    stop: &'a CancellationToken,
}

/// Once the CLI exited: its last lines logged, and the owner told how the login went, unless
/// a stop ended it (issue 44 §3).
async fn finish(
    discord: &DiscordRest,
    channel: u64,
    ended: Ended<'_>,
    mut lines: mpsc::UnboundedReceiver<String>,
    mut said: Option<String>,
) -> Result<(), LoginError> {
    // The CLI's last lines may still be on their way when it exits.
    let drained = async {
        while let Some(line) = lines.recv().await {
            tracing::info!("claude auth login: {line}");
            said = last_words(&line).or(said.take());
        }
    };
    let _ = tokio::time::timeout(Duration::from_secs(1), drained).await;
    let ok = ended.ok;
    // Asked after the last lines: the bot's own signal may come a moment after the CLI's.
    if !ok && (ended.signalled || ended.stop.is_cancelled()) {
        return Err(LoginError::Stopped);
    }
    let refusal = LoginError::Refused { said };
    let answer = if ok {
        "claude login successful, starting up.".to_owned()
    } else {
        format!("{refusal} — run `ollim-bot auth login` on the machine to try again.")
    };
    if let Err(error) = discord.send(channel, &answer).await {
        tracing::debug!(%error, "could not confirm the login in the DM");
    }
    if ok { Ok(()) } else { Err(refusal) }
}

/// The first `https://` URL in `line`, up to the next whitespace.
pub fn first_https_url(line: &str) -> Option<&str> {
    let start = line.find("https://")?;
    let rest = &line[start..];
    let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
    Some(&rest[..end])
}

/// The code in an owner's reply: its first word, without the backticks or quotes a phone may
/// add; `None` for an empty reply.
pub fn code_from_reply(reply: &str) -> Option<String> {
    let word = reply
        .split_whitespace()
        .next()?
        .trim_matches(|c| matches!(c, '`' | '"' | '\'' | '<' | '>'));
    (!word.is_empty()).then(|| word.to_owned())
}

#[cfg(test)]
mod tests;
