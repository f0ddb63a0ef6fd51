//! `ollim-bot setup`: the first-hour questions in the terminal — Discord token, names,
//! timezone, the Claude Code CLI (installed for the bot when missing, after asking), Claude
//! auth — written into the `.env` the bot will read (the one in use, else
//! `DATA_DIR/.env`, so the bot and a service find it from any directory). Enter keeps a
//! current value; secrets are read without echo on a terminal and never printed. Works over
//! pipes too (one answer per line). End of input before the last answer writes nothing.

use std::{
    io::{BufRead, IsTerminal, Write},
    path::PathBuf,
};

use chrono_tz::Tz;

use super::{
    auth::claude_is_authenticated,
    claude_install::{CliStep, cli_step, yes_or_no},
};
use crate::{
    config::{Launch, data_dir_from, system_timezone},
    state::env_file::set_vars,
};

/// How often a refused answer is asked again.
const ATTEMPTS: usize = 3;

/// Why set-up stopped without writing.
#[derive(Debug, thiserror::Error)]
enum SetupError {
    #[error("input ended before set-up was complete; nothing was written")]
    EndOfInput,
    #[error("{0}")]
    Refused(String),
    #[error("could not read the terminal: {0}")]
    Io(#[from] std::io::Error),
}

/// Runs the questions; returns the exit code.
pub async fn run(launch: &Launch) -> i32 {
    let target = target_file(launch);
    println!("Setting up ollim-bot; answers go to {}", target.display());
    println!("Press Enter to keep a value shown in [brackets].\n");
    match ask_everything(launch).await {
        Ok((vars, claude, cli)) => {
            let pairs: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (*k, v.as_str())).collect();
            if let Some(dir) = target.parent()
                && let Err(error) = std::fs::create_dir_all(dir)
            {
                eprintln!("error: cannot create {}: {error}", dir.display());
                return 1;
            }
            if let Err(error) = set_vars(&target, &pairs) {
                eprintln!("error: {error}");
                return 1;
            }
            println!("\nSaved {} (owner-only).", target.display());
            println!("Next:");
            if cli == CliStep::NotTested {
                println!("  the Claude Code CLI          as question 5 said: the bot runs it");
            }
            if claude == Claude::NeedsLogin {
                println!(
                    "  ollim-bot auth login         log in to Claude (needed before the bot starts)"
                );
            }
            println!("  ollim-bot doctor             check everything, Discord included");
            println!("  ollim-bot                    start the bot, then DM it on Discord");
            println!("  ollim-bot service install    or keep it running as a service");
            0
        }
        Err(error) => {
            eprintln!("error: {error}");
            1
        }
    }
}

/// The `.env` in use, else `DATA_DIR/.env`.
fn target_file(launch: &Launch) -> PathBuf {
    if let Some(path) = launch.env_file.path() {
        return path.to_owned();
    }
    data_dir_from(|name| launch.var(name))
        .unwrap_or_else(|| PathBuf::from(".ollim-bot"))
        .join(".env")
}

/// Whether Claude can answer once set-up ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Claude {
    /// Logged in, or a key was given.
    Ready,
    /// Neither: `ollim-bot auth login` comes next.
    NeedsLogin,
}

/// The answers: the variables to write, whether Claude can answer, whether the CLI is the
/// tested one.
type Asked = (Vec<(&'static str, String)>, Claude, CliStep);

async fn ask_everything(launch: &Launch) -> Result<Asked, SetupError> {
    let mut input = Answers::new();
    let current = |name: &str| launch.var(name).filter(|v| !v.trim().is_empty());
    let mut vars = Vec::new();

    println!("1. Discord: Developer Portal → your application → Bot → Reset Token.");
    if let Some(token) = input.token(current("DISCORD_TOKEN").is_some())? {
        vars.push(("DISCORD_TOKEN", token));
    }
    let user = input.text(
        "2. Your first name",
        current("OLLIM_USER_NAME").as_deref(),
        |v| (!v.is_empty()).then_some(()).ok_or("a name, please"),
    )?;
    vars.push(("OLLIM_USER_NAME", user));
    let bot = input.text(
        "3. The bot's name",
        Some(current("OLLIM_BOT_NAME").as_deref().unwrap_or("Ollim")),
        |v| (!v.is_empty()).then_some(()).ok_or("a name, please"),
    )?;
    vars.push(("OLLIM_BOT_NAME", bot));
    let zone = input.text(
        "4. Your timezone (IANA name)",
        Some(
            current("OLLIM_TIMEZONE")
                .as_deref()
                .unwrap_or(system_timezone().name()),
        ),
        |v| {
            v.parse::<Tz>()
                .map(drop)
                .map_err(|_| "not an IANA timezone, e.g. Europe/Berlin or America/New_York")
        },
    )?;
    vars.push(("OLLIM_TIMEZONE", zone));

    let (cli, step) = cli_step(launch, "5. ", |question| input.yes_no(question)).await?;
    let env = crate::config::cli_env_from(current);
    if matches!(claude_is_authenticated(&cli.path, &env).await, Ok(true)) {
        println!("6. Claude: ready.");
        return Ok((vars, Claude::Ready, step));
    }
    {
        println!(
            "6. Claude is not logged in. Paste an Anthropic API key, or press Enter and run \
             `ollim-bot auth login` afterwards (a Claude subscription works too)."
        );
        if let Some(key) = input
            .api_key(current("ANTHROPIC_BASE_URL").as_deref())
            .await?
        {
            vars.push(("ANTHROPIC_API_KEY", key));
            return Ok((vars, Claude::Ready, step));
        }
    }
    Ok((vars, Claude::NeedsLogin, step))
}

/// A pasted bot token as the bot uses it: without a `Bot ` prefix, and shaped like one (three
/// dot-separated parts of letters, digits, `-` and `_`).
fn bot_token(pasted: &str) -> Result<String, &'static str> {
    let token = pasted.trim();
    let token = token
        .strip_prefix("Bot ")
        .or_else(|| token.strip_prefix("bot "))
        .unwrap_or(token)
        .trim();
    let parts: Vec<&str> = token.split('.').collect();
    let shaped = parts.len() == 3
        && parts.iter().all(|part| {
            !part.is_empty()
                && part
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        });
    if shaped {
        Ok(token.to_owned())
    } else {
        Err(
            "that isn't a bot token: it has three parts separated by dots (Bot → Reset Token \
             → Copy); the application id or the client secret won't work",
        )
    }
}

/// Answers from a terminal or a pipe.
struct Answers {
    terminal: bool,
    lines: std::io::StdinLock<'static>,
}

impl Answers {
    fn new() -> Self {
        Self {
            terminal: std::io::stdin().is_terminal(),
            lines: std::io::stdin().lock(),
        }
    }

    fn line(&mut self) -> Result<String, SetupError> {
        let mut line = String::new();
        if self.lines.read_line(&mut line)? == 0 {
            return Err(SetupError::EndOfInput);
        }
        Ok(line.trim().to_owned())
    }

    /// A visible answer checked by `valid`; Enter takes `default`.
    fn text(
        &mut self,
        question: &str,
        default: Option<&str>,
        valid: impl Fn(&str) -> Result<(), &'static str>,
    ) -> Result<String, SetupError> {
        for _ in 0..ATTEMPTS {
            match default {
                Some(value) => print!("{question} [{value}]: "),
                None => print!("{question}: "),
            }
            let _ = std::io::stdout().flush();
            let answer = self.line()?;
            let answer = match (default, answer.is_empty()) {
                (Some(value), true) => value.to_owned(),
                _ => answer,
            };
            match valid(&answer) {
                Ok(()) => return Ok(answer),
                Err(why) => println!("  {why}"),
            }
        }
        Err(SetupError::Refused(format!(
            "no usable answer to \"{question}\""
        )))
    }

    /// A yes-or-no question; Enter is no.
    fn yes_no(&mut self, question: &str) -> Result<bool, SetupError> {
        for _ in 0..ATTEMPTS {
            print!("{question} [y/N]: ");
            let _ = std::io::stdout().flush();
            match yes_or_no(&self.line()?) {
                Some(answer) => return Ok(answer),
                None => println!("  y or n, please"),
            }
        }
        Err(SetupError::Refused(format!(
            "no yes or no to \"{}\"",
            question.trim()
        )))
    }

    /// The bot token: required on a first run, a pasted `Bot ` prefix dropped, and the shape
    /// of a token checked (three dot-separated parts), so a typo is caught here and not at
    /// the first start (issue 24 §8). `None` keeps the current one.
    fn token(&mut self, has_current: bool) -> Result<Option<String>, SetupError> {
        for _ in 0..ATTEMPTS {
            let Some(answer) = self.secret("Bot token", has_current)? else {
                if has_current {
                    return Ok(None);
                }
                println!("  the bot can't start without its token: paste it here");
                continue;
            };
            match bot_token(&answer) {
                Ok(token) => return Ok(Some(token)),
                Err(why) => println!("  {why}"),
            }
        }
        Err(SetupError::Refused("no usable bot token".to_owned()))
    }

    /// An API key, checked with one free request (issue 24 §2): a refused key is asked again,
    /// a key that can't be checked now is kept. `None` skips.
    async fn api_key(&mut self, base: Option<&str>) -> Result<Option<String>, SetupError> {
        for _ in 0..ATTEMPTS {
            let Some(key) = self.secret("API key", false)? else {
                return Ok(None);
            };
            match crate::cli::doctor::api_key::probe(base, "ANTHROPIC_API_KEY", &key).await {
                Ok(200..=299) => {
                    println!("  the Claude API accepts it.");
                    return Ok(Some(key));
                }
                Ok(code @ (401 | 403)) => {
                    println!(
                        "  the Claude API refused that key ({code}): paste it again, or \
                              press Enter to skip"
                    );
                }
                Ok(code) => {
                    println!("  couldn't check it now (the API answered {code}); keeping it.");
                    return Ok(Some(key));
                }
                Err(error) => {
                    println!("  couldn't check it now ({error}); keeping it.");
                    return Ok(Some(key));
                }
            }
        }
        Err(SetupError::Refused("no usable API key".to_owned()))
    }

    /// A secret, not echoed on a terminal; `None` keeps the current one (or skips).
    fn secret(&mut self, question: &str, has_current: bool) -> Result<Option<String>, SetupError> {
        let shown = if has_current {
            format!("{question} [keep the current one]: ")
        } else {
            format!("{question}: ")
        };
        let answer = if self.terminal {
            rpassword::prompt_password(&shown)?.trim().to_owned()
        } else {
            print!("{shown}");
            let _ = std::io::stdout().flush();
            self.line()?
        };
        Ok((!answer.is_empty()).then_some(answer))
    }
}

#[cfg(test)]
mod tests {
    use super::bot_token;

    #[test]
    fn a_pasted_token_loses_its_prefix_and_odd_shapes_are_refused() {
        let token = "MTA0.Gx7_ab.c-d_ef";
        assert_eq!(bot_token(&format!("Bot {token}")).unwrap(), token);
        assert_eq!(bot_token(&format!("  {token} ")).unwrap(), token);
        for bad in [
            "",
            "Bot abc.def",
            "1234567890",
            "a.b.c.d",
            "a..c",
            "a b.c.d",
        ] {
            assert!(bot_token(bad).is_err(), "{bad}");
        }
    }
}
