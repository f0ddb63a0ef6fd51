//! The Claude Code CLI step of `setup` and `doctor --fix`: when the CLI the bot would run is
//! missing or not the tested version, offer to install the tested one with npm into the bot's
//! own folder (outside the data dir, issue 44 §4), which the bot then runs unless
//! `OLLIM_CLAUDE_CLI` names another. A CLI the owner named is never replaced: the step says
//! what to change instead.

use std::path::{Path, PathBuf};

use crate::{
    claude::{CliFit, CliVersion, TESTED_CLI_VERSION, installed_cli_version, tested_package},
    config::{
        ClaudeCli, CliOrigin, Launch, bot_cli_dir, bot_cli_executable, claude_cli_from,
        data_dir_from, environment::search_path, inside_data_dir,
    },
    sandbox::locate_executable,
};

/// What runs where the bot looks for its CLI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Found {
    /// Nothing: no such file, or no `claude` on PATH.
    Missing,
    /// It runs and says its version.
    Version(CliVersion),
    /// It is there, but `--version` said no version (a broken install): why.
    Broken(String),
}

/// What set-up does about the CLI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Plan {
    /// The tested version is in use: nothing to do.
    Ready,
    /// The owner named a CLI (`OLLIM_CLAUDE_CLI`) that is not the tested version: say so,
    /// install nothing (the named one would still win).
    OwnersChoice,
    /// Ask whether to install the tested version for the bot.
    Offer,
}

/// The decision, from where the CLI came from and what was found there.
pub(crate) fn plan(origin: CliOrigin, found: &Found) -> Plan {
    match (origin, found) {
        (_, Found::Version(version)) if version.fit() == CliFit::Tested => Plan::Ready,
        (CliOrigin::Named, _) => Plan::OwnersChoice,
        (CliOrigin::BotCopy | CliOrigin::SearchPath, _) => Plan::Offer,
    }
}

/// Where `cli` resolves on this machine's PATH, and what it says it is.
pub(crate) async fn probe(cli: &Path) -> (Option<PathBuf>, Found) {
    let Some(found) = locate_executable(cli, search_path().as_deref()) else {
        return (None, Found::Missing);
    };
    let state = match installed_cli_version(&found).await {
        Ok(version) => Found::Version(version),
        Err(error) => Found::Broken(error.to_string()),
    };
    (Some(found), state)
}

/// The CLI `cli`, where it is and what was found, in a few words:
/// `Claude Code CLI 2.1.200 (/usr/bin/claude, `claude` on PATH)`.
pub(crate) fn describe(cli: &ClaudeCli, at: Option<&Path>, found: &Found) -> String {
    let place = format!(
        "{}, {}",
        at.unwrap_or(&cli.path).display(),
        cli.origin.describe()
    );
    match (found, cli.origin) {
        (Found::Missing, CliOrigin::SearchPath) => {
            "no Claude Code CLI found (no `claude` on PATH)".to_owned()
        }
        (Found::Missing, _) => format!("no Claude Code CLI found at {place}"),
        (Found::Version(version), _) => format!("Claude Code CLI {version} ({place})"),
        (Found::Broken(why), _) => format!("a Claude Code CLI that doesn't run ({place}: {why})"),
    }
}

/// The command that installs the tested CLI into `dir` by hand, as set-up would.
pub(crate) fn manual_install(dir: &Path) -> String {
    format!(
        "npm install --prefix {} {}",
        dir.display(),
        tested_package()
    )
}

/// An answer to a yes-or-no question: `Some(true)` for y or yes, `Some(false)` for n, no or
/// nothing (Enter is no), `None` for anything else.
pub(crate) fn yes_or_no(answer: &str) -> Option<bool> {
    match answer.trim().to_ascii_lowercase().as_str() {
        "y" | "yes" => Some(true),
        "" | "n" | "no" => Some(false),
        _ => None,
    }
}

/// Asks `question` on stdin until the answer is yes or no (`doctor --fix`); end of input is
/// no.
pub(crate) fn ask_on_stdin(question: &str) -> std::io::Result<bool> {
    use std::io::{BufRead, Write};
    let mut lines = std::io::stdin().lock();
    loop {
        print!("{question} [y/N]: ");
        std::io::stdout().flush()?;
        let mut line = String::new();
        if lines.read_line(&mut line)? == 0 {
            println!();
            return Ok(false);
        }
        match yes_or_no(&line) {
            Some(answer) => return Ok(answer),
            None => println!("  y or n, please"),
        }
    }
}

/// Whether the CLI is ready once the step ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CliStep {
    /// The tested version is in use.
    Tested,
    /// Another version, or none: the step said what to do.
    NotTested,
}

/// Runs the step, its first line starting with `number` (`5. ` in set-up), asking with `ask`
/// (a question in, yes or no out); returns the CLI the bot runs afterwards.
pub(crate) async fn cli_step<E>(
    launch: &Launch,
    number: &str,
    mut ask: impl FnMut(&str) -> Result<bool, E>,
) -> Result<(ClaudeCli, CliStep), E> {
    let cli = claude_cli_from(|name| launch.var(name));
    let (at, found) = probe(&cli.path).await;
    let said = describe(&cli, at.as_deref(), &found);
    match plan(cli.origin, &found) {
        Plan::Ready => {
            println!("{number}{said}: the tested version.");
            return Ok((cli, CliStep::Tested));
        }
        Plan::OwnersChoice => {
            let gap = match found {
                Found::Version(_) => format!(", not the tested version {TESTED_CLI_VERSION}"),
                Found::Missing | Found::Broken(_) => String::new(),
            };
            println!(
                "{number}{said}{gap}. The CLI you named is left alone: {}.",
                cli.origin.fix()
            );
            return Ok((cli, CliStep::NotTested));
        }
        Plan::Offer => {}
    }
    let Some(dir) = bot_cli_dir(|name| launch.var(name)) else {
        println!(
            "{number}{said}. Set HOME (or XDG_DATA_HOME) to install the tested version \
             {TESTED_CLI_VERSION} for the bot, or set OLLIM_CLAUDE_CLI."
        );
        return Ok((cli, CliStep::NotTested));
    };
    if data_dir_from(|name| launch.var(name)).is_some_and(|data| inside_data_dir(&dir, &data)) {
        println!(
            "{number}{said}. {} is inside the data dir, which the agent can change: set \
             XDG_DATA_HOME to a folder outside it, or set OLLIM_CLAUDE_CLI.",
            dir.display()
        );
        return Ok((cli, CliStep::NotTested));
    }
    let Some(npm) = locate_executable(Path::new("npm"), search_path().as_deref()) else {
        println!(
            "{number}{said}. Installing the tested version {TESTED_CLI_VERSION} takes npm, \
             which is not on PATH: install Node.js 20 or newer with npm (https://nodejs.org, \
             or your system's packages: `sudo apt install nodejs npm`), then run `ollim-bot \
             setup` again; or set OLLIM_CLAUDE_CLI to a `claude` you have."
        );
        return Ok((cli, CliStep::NotTested));
    };
    println!("{number}{said}; the bot is tested with {TESTED_CLI_VERSION}.");
    let question = format!(
        "   Install Claude Code CLI {TESTED_CLI_VERSION} for the bot into {} with npm?",
        dir.display()
    );
    if !ask(&question)? {
        println!(
            "   Not installed. By hand: `{}` (the bot then uses it), or set OLLIM_CLAUDE_CLI.",
            manual_install(&dir)
        );
        return Ok((cli, CliStep::NotTested));
    }
    println!("   Installing with npm (a minute or two)…");
    if let Err(why) = npm_install(&npm, &dir).await {
        println!(
            "   npm could not install it: {why}\n   Nothing else changed; try again, or by \
             hand: `{}`",
            manual_install(&dir)
        );
        return Ok((cli, CliStep::NotTested));
    }
    let installed = claude_cli_from(|name| launch.var(name));
    let (at, found) = probe(&installed.path).await;
    let said = describe(&installed, at.as_deref(), &found);
    if installed.origin == CliOrigin::BotCopy && plan(installed.origin, &found) == Plan::Ready {
        println!("   Installed: {said}.");
        Ok((installed, CliStep::Tested))
    } else {
        println!(
            "   npm finished, but {} is not the tested version: {said}",
            bot_cli_executable(&dir).display()
        );
        Ok((installed, CliStep::NotTested))
    }
}

/// At the daemon's start: the bot's own copy (the owner agreed to it in set-up) is brought to
/// the tested version when it is another (an update moved the tested one on) or doesn't run;
/// a failure leaves the copy as it is and says so, and the bot goes on with it. A CLI the
/// owner named, or one on PATH, is theirs: left alone (the start warns about its version).
pub async fn keep_bot_copy_current(launch: &Launch, cli: &ClaudeCli) {
    if cli.origin != CliOrigin::BotCopy {
        return;
    }
    let (at, found) = probe(&cli.path).await;
    if plan(cli.origin, &found) == Plan::Ready {
        return;
    }
    let Some(dir) = bot_cli_dir(|name| launch.var(name)) else {
        return;
    };
    let said = describe(cli, at.as_deref(), &found);
    let Some(npm) = locate_executable(Path::new("npm"), search_path().as_deref()) else {
        eprintln!(
            "warning: the bot's {said} is not the tested {TESTED_CLI_VERSION}, and there is              no npm on PATH to update it: `{}`",
            manual_install(&dir)
        );
        return;
    };
    eprintln!("Updating the bot's {said} to the tested {TESTED_CLI_VERSION} with npm…");
    match npm_install(&npm, &dir).await {
        Ok(()) => eprintln!("The bot's Claude Code CLI is now {TESTED_CLI_VERSION}."),
        Err(why) => eprintln!(
            "warning: could not update the bot's Claude Code CLI, going on with it as it is: \
             {why}"
        ),
    }
}

/// `npm install --prefix <dir> … <the tested package>`, as `.ci/test.sh` installs it; npm's
/// last words when it fails.
async fn npm_install(npm: &Path, dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir)
        .map_err(|error| format!("cannot create {}: {error}", dir.display()))?;
    let output = tokio::process::Command::new(npm)
        .arg("install")
        .arg("--prefix")
        .arg(dir)
        .args(["--no-audit", "--no-fund", "--loglevel=error"])
        .arg(tested_package())
        .stdin(std::process::Stdio::null())
        .output()
        .await
        .map_err(|error| format!("cannot run {}: {error}", npm.display()))?;
    if output.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let tail: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    let tail = tail[tail.len().saturating_sub(5)..].join("\n   ");
    Err(format!("npm install failed ({})\n   {tail}", output.status))
}

#[cfg(test)]
#[path = "claude_install_tests.rs"]
mod tests;
