//! `ollim-bot counterfactual` (CMD-10, issue 43): replays one of the owner's messages from a
//! past session with an intervention — another system prompt, model or message, tools taken
//! away — and prints what the session answered then, optionally a fresh run with the same
//! settings (the baseline), and the run with the intervention (the variant).
//!
//! - the session and the message are found by `transcripts::session_ref` and
//!   `transcripts::rewind` (pure), over the transcripts of every CLI home, as `history` does;
//! - [`replay`] runs one replay in a scratch CLI home inside the owner's sandbox;
//! - [`output`] formats the comparison; [`recording`] is the front end a replay's `discord`
//!   tools talk to.

pub mod output;
mod recording;
pub mod replay;

use std::{io::IsTerminal, path::PathBuf, sync::Arc};

use clap::Args;

use self::{
    output::{Block, Header, Kind, Stats, Style, render},
    replay::{PromptChange, RunSettings},
};
use crate::{
    agent::open_services,
    config::{Config, RuntimeConfig},
    sandbox::SCRATCH_PREFIX,
    state::paths::DataDir,
    transcripts::{
        TranscriptDir, read_file,
        rewind::{answer_to, find_rewind_point, lines_before, parse_records},
        session_ref::{SessionRef, resolve_session, titles_of},
    },
};

/// How old a scratch home left by a killed replay must be before a replay removes it.
const STALE_SCRATCH: std::time::Duration = std::time::Duration::from_secs(24 * 60 * 60);

/// `ollim-bot counterfactual` options.
#[derive(Debug, Args)]
pub struct CounterfactualArgs {
    /// The session: `latest`, `prev`, `prev-N`, its title or slug, or the first characters of
    /// its id.
    pub session: String,
    /// The message to replay: its uuid or a unique prefix (a message you typed, not the
    /// session's first).
    pub rewind: String,
    /// Text added after the system prompt, after a blank line.
    #[arg(long, value_name = "TEXT", conflicts_with = "replace_prompt")]
    pub append: Option<String>,
    /// A system prompt used instead of the whole one (Claude Code's included).
    #[arg(long, value_name = "TEXT")]
    pub replace_prompt: Option<String>,
    /// The model (opus, sonnet, haiku, fable, opusplan or a full model id).
    #[arg(long, value_parser = super::routine::parse_model_flag)]
    pub model: Option<String>,
    /// Send this instead of the original message.
    #[arg(long, value_name = "TEXT")]
    pub message: Option<String>,
    /// Take a tool away (repeatable), e.g. `--disallow Bash`.
    #[arg(long, value_name = "TOOL")]
    pub disallow: Vec<String>,
    /// Model calls each run may make.
    #[arg(long, default_value_t = 5, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..))]
    pub max_turns: u32,
    /// Dollars each run may spend.
    #[arg(long, default_value_t = 0.5, value_name = "USD", value_parser = parse_budget)]
    pub max_budget: f64,
    /// Also run the message again with the same settings, for comparison (twice the cost).
    #[arg(long)]
    pub with_baseline: bool,
}

fn parse_budget(raw: &str) -> Result<f64, String> {
    match raw.trim().trim_start_matches('$').parse::<f64>() {
        Ok(dollars) if dollars.is_finite() && dollars > 0.0 => Ok(dollars),
        _ => Err(format!("'{raw}' is not an amount of dollars above 0")),
    }
}

/// Runs `ollim-bot counterfactual`; returns the exit code. Errors are `Error: <message>` on
/// stderr and exit code 1.
pub async fn run(config: Config, args: CounterfactualArgs) -> i32 {
    match execute(config, args).await {
        Ok(()) => 0,
        Err(error) => {
            eprintln!("Error: {error:#}");
            1
        }
    }
}

/// The rewound point: the session file, its lines before the message, and the header and
/// original block printed.
struct Rewound {
    resumed: String,
    message: String,
    header: Header,
    original: Block,
}

/// Finds the session and the message and reads what the session answered.
fn rewind(config: &Config, args: &CounterfactualArgs) -> anyhow::Result<Rewound> {
    let claude_dir = config.claude_config_dir().ok_or_else(|| {
        anyhow::anyhow!("cannot find the Claude CLI's config dir: set HOME or CLAUDE_CONFIG_DIR")
    })?;
    // Each container's CLI home holds its own sessions' transcripts (issue 39).
    let homes: Vec<PathBuf> = std::fs::read_dir(DataDir::new(&config.data_dir).cli_homes_dir())
        .map(|entries| {
            entries
                .flatten()
                .filter(|entry| {
                    !entry
                        .file_name()
                        .to_string_lossy()
                        .starts_with(SCRATCH_PREFIX)
                })
                .map(|entry| entry.path())
                .collect()
        })
        .unwrap_or_default();
    let dir = TranscriptDir::for_cwd_in(&claude_dir, &homes, &config.data_dir);
    let sessions = dir.sessions()?;
    let session = resolve_session(
        &sessions,
        &SessionRef::parse(&args.session),
        |file| titles_of(&file.path),
        (&config.data_dir, dir.path()),
    )?;
    let mut lines = Vec::new();
    read_file(&session.path, |line| lines.push(line.to_owned()))?;
    let records = parse_records(&lines);
    let point = find_rewind_point(&records, &args.rewind, &session.path.display().to_string())?;
    let answer = answer_to(&records, &point.uuid);
    let (input, output) = answer.tokens.unzip();
    Ok(Rewound {
        resumed: lines_before(&lines, &point),
        message: args
            .message
            .clone()
            .unwrap_or_else(|| point.message.clone()),
        header: Header {
            session: session.id.clone(),
            rewind: point.uuid.clone(),
            message: point.message,
            sent_instead: args.message.clone(),
        },
        original: Block {
            kind: Kind::Original,
            text: answer.text,
            tools: answer.tools,
            posted: Vec::new(),
            stats: Stats {
                turns: Some(answer.turns),
                input,
                output,
                ..Stats::default()
            },
        },
    })
}

async fn execute(config: Config, args: CounterfactualArgs) -> anyhow::Result<()> {
    let rewound = rewind(&config, &args)?;
    let opened = open_services(config)?;
    let services = Arc::clone(&opened.services);
    let homes = services.sandbox.homes();
    let now = std::time::SystemTime::from(services.clock.now());
    if let Some(before) = now.checked_sub(STALE_SCRATCH) {
        homes.sweep_scratch(before);
    }
    let runtime = RuntimeConfig::clone(&services.runtime.current());
    let variant = RunSettings {
        prompt: match (&args.append, &args.replace_prompt) {
            (Some(text), _) => PromptChange::Append(text.clone()),
            (None, Some(text)) => PromptChange::Replace(text.clone()),
            (None, None) => PromptChange::Keep,
        },
        model: args.model.clone(),
        disallow: args.disallow.clone(),
        max_turns: args.max_turns,
        max_budget: args.max_budget,
    };
    let baseline = RunSettings {
        prompt: PromptChange::Keep,
        model: None,
        disallow: Vec::new(),
        ..variant.clone()
    };
    let original_message = rewound.header.message.clone();
    let runs = async {
        let variant_run = replay::run(
            &services,
            &runtime,
            (Kind::Variant, &variant),
            &rewound.resumed,
            &rewound.message,
        );
        if args.with_baseline {
            let baseline_run = replay::run(
                &services,
                &runtime,
                (Kind::Baseline, &baseline),
                &rewound.resumed,
                &original_message,
            );
            let (baseline, variant) = tokio::join!(baseline_run, variant_run);
            Ok::<_, replay::ReplayError>(vec![baseline?, variant?])
        } else {
            Ok(vec![variant_run.await?])
        }
    };
    // Ctrl-C or SIGTERM drop the runs: their CLIs are stopped and their scratch homes removed.
    let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    let outcome = tokio::select! {
        outcome = runs => outcome.map_err(anyhow::Error::from),
        _ = tokio::signal::ctrl_c() => Err(anyhow::anyhow!("interrupted")),
        _ = terminate.recv() => Err(anyhow::anyhow!("terminated")),
    };
    opened.usage_worker.shutdown().await;
    opened.git_worker.shutdown().await;
    let mut blocks = vec![rewound.original];
    blocks.extend(outcome?);
    let style = Style::for_terminal(
        std::io::stdout().is_terminal(),
        crate::config::environment::is_set("NO_COLOR"),
    );
    print!("{}", render(&rewound.header, &blocks, style));
    Ok(())
}
