//! BOOT-12: what the daemon says on its terminal whatever `RUST_LOG` is (issue 44 §1): one line once it
//! is ready (who it is in Discord, where to talk to it, the Claude CLI's version) and one when
//! it stops. Both go to stderr, where the log and the other start-up messages are (the login,
//! a second instance), so they keep their order in a terminal and in journald; everything else
//! stays at the log level.

use std::sync::Arc;

use serenity::all::{Channel, ChannelId};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::discord::bot::Bot;

/// Why the daemon stopped, for the stop line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// A signal (`SIGTERM`, `SIGINT`).
    Signal(&'static str),
    /// A signal came while the Claude CLI was being logged in, before Discord was connected.
    SignalDuringLogin(&'static str),
    /// The owner asked for a restart (`/restart`, `/update`).
    Restart,
    /// A fatal error (already printed above the line).
    Error,
    /// The gateway ended without a signal.
    Disconnected,
}

impl Ending {
    /// How the daemon ended: with an error, after a signal (`signalled`), for a restart, or
    /// otherwise because the gateway ended.
    pub fn of(failed: bool, signalled: Option<&&'static str>, restarting: bool) -> Self {
        match (failed, signalled) {
            (true, _) => Self::Error,
            (false, Some(name)) => Self::Signal(name),
            (false, None) if restarting => Self::Restart,
            (false, None) => Self::Disconnected,
        }
    }
}

/// The ready line: `bot_name` is the configured name, `user` who the bot is in Discord,
/// `home` the home channel as shown (`#name`), `cli` the Claude CLI's version.
pub fn ready_line(bot_name: &str, user: &str, home: Option<&str>, cli: Option<&str>) -> String {
    let places = match home {
        Some(home) => format!("your Discord DMs and {home}"),
        None => "your Discord DMs".to_owned(),
    };
    let cli = cli.map_or_else(
        || "Claude Code CLI version unknown".to_owned(),
        |version| format!("Claude Code CLI {version}"),
    );
    format!("{bot_name} is ready: connected to Discord as {user}; talk to it in {places}. {cli}.")
}

/// The stop line.
pub fn stopped_line(bot_name: &str, ending: Ending) -> String {
    match ending {
        Ending::Signal(name) => format!("{bot_name} stopped ({name})."),
        Ending::SignalDuringLogin(name) => {
            format!("{bot_name} stopped ({name} during the Claude login; nothing was changed).")
        }
        Ending::Restart => format!("{bot_name} stopped to restart."),
        Ending::Error => format!("{bot_name} stopped after the error above."),
        Ending::Disconnected => format!("{bot_name} stopped: the Discord connection ended."),
    }
}

/// Waits for the bot to start, then prints the ready line; nothing once `stop` is cancelled
/// first. `cli_version` is the version check started beside the boot.
pub(super) async fn announce_ready(
    bot: Arc<Bot>,
    cli_version: JoinHandle<Option<String>>,
    stop: CancellationToken,
) {
    let user = tokio::select! {
        user = bot.started() => user,
        () = stop.cancelled() => return,
    };
    let cli = cli_version.await.ok().flatten();
    let home = match bot.reach.places.home() {
        Some(home) => Some(home_name(&bot, home).await),
        None => None,
    };
    let config = &bot.reach.services.config;
    eprintln!(
        "{}",
        ready_line(&config.bot_name, &user, home.as_deref(), cli.as_deref())
    );
}

/// The home channel as shown: `#name`, or its id when Discord can't say.
async fn home_name(bot: &Bot, home: ChannelId) -> String {
    match home.to_channel(&bot.reach.http).await {
        Ok(Channel::Guild(channel)) => format!("#{}", channel.name),
        Ok(_) | Err(_) => format!("the home channel {home}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ready_line_says_who_where_and_which_cli() {
        assert_eq!(
            ready_line("Ollim", "ollim", None, Some("2.1.332")),
            "Ollim is ready: connected to Discord as ollim; talk to it in your Discord DMs. \
             Claude Code CLI 2.1.332."
        );
        assert_eq!(
            ready_line("Ollim", "ollim", Some("#home"), None),
            "Ollim is ready: connected to Discord as ollim; talk to it in your Discord DMs and \
             #home. Claude Code CLI version unknown."
        );
    }

    #[test]
    fn the_stop_line_says_why() {
        assert_eq!(
            stopped_line("Ollim", Ending::Signal("SIGTERM")),
            "Ollim stopped (SIGTERM)."
        );
        assert!(stopped_line("Ollim", Ending::SignalDuringLogin("SIGINT")).contains("login"));
        assert_eq!(
            stopped_line("Ollim", Ending::Restart),
            "Ollim stopped to restart."
        );
    }
}
