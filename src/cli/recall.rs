//! `ollim-bot recall` (issue 42 §2): ranked recall over everything the assistant knows, in the
//! terminal — the owner's words, the replies, what background runs did, the notes — with
//! `--since`/`--until`, `--kind`, `--json`; `--reindex` rebuilds the index from its sources;
//! `--forget` removes the passages holding every word asked, for good. Needs the data dir, the
//! timezone and `HOME` / `CLAUDE_CONFIG_DIR`; never `DISCORD_TOKEN`.

use chrono::{DateTime, Utc};
use clap::Args;

use crate::{
    config::{Config, runtime::RuntimeConfig},
    recall::{
        memory::Memory,
        query::{
            DEFAULT_LIMIT, MOST, Query, forgotten_text, hits_json, hits_text, parse_kinds,
            parse_when,
        },
    },
    state::paths::DataDir,
};

/// `ollim-bot recall` options.
#[derive(Debug, Args)]
pub struct RecallArgs {
    /// What to look for, and other words the answer may use (it matches words: "salon
    /// hairdresser haircut").
    pub query: Option<String>,
    /// Only from then on: a date (2026-03-01) or a window back from now (30d, 12h).
    #[arg(long)]
    pub since: Option<String>,
    /// Only before then: a date or a window back from now.
    #[arg(long)]
    pub until: Option<String>,
    /// Only these kinds, comma-separated: said, answer, tool, note, job, update.
    #[arg(long)]
    pub kind: Option<String>,
    /// How many passages (at most 20).
    #[arg(long, default_value_t = DEFAULT_LIMIT)]
    pub limit: usize,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// Rebuild the index from its sources first.
    #[arg(long)]
    pub reindex: bool,
    /// Remove the passages holding every word of the query from the index, for good (a
    /// rebuild never brings them back).
    #[arg(long)]
    pub forget: bool,
}

/// Runs `ollim-bot recall` with the process environment; returns the exit code. Errors are
/// one line on stderr and exit code 1.
pub fn run(args: &RecallArgs, now: DateTime<Utc>) -> i32 {
    match execute(args, now) {
        Ok(text) => {
            print!("{text}");
            0
        }
        Err(message) => {
            eprintln!("error: {message}");
            1
        }
    }
}

fn execute(args: &RecallArgs, now: DateTime<Utc>) -> Result<String, String> {
    let config = Config::for_reading().map_err(|e| e.to_string())?;
    let tz = config.timezone;
    let query = query_of(args, now, tz)?;
    if query.is_none() && !args.reindex {
        return Err("give what to look for: ollim-bot recall \"the flat in March\"".to_owned());
    }
    let language =
        RuntimeConfig::load(&DataDir::new(&config.data_dir).config_file()).recall_language;
    let memory = Memory::for_config(&config, language)?;
    if args.reindex {
        let updated = memory.rebuild()?;
        if query.is_none() {
            return Ok(format!(
                "recall's index rebuilt: {} passage{} from {} source{}.\n",
                updated.passages,
                if updated.passages == 1 { "" } else { "s" },
                updated.read,
                if updated.read == 1 { "" } else { "s" }
            ));
        }
    }
    let Some(query) = query else {
        return Ok(String::new());
    };
    if args.forget {
        let gone = memory.forget(&query, now)?;
        return Ok(forgotten_text(&query.words, &gone, tz));
    }
    let hits = memory.find(&query, now)?;
    if args.json {
        return Ok(format!("{}\n", hits_json(&hits)));
    }
    Ok(hits_text(&query.words, &hits, tz))
}

/// The query the arguments ask for (`None`: no words given).
fn query_of(
    args: &RecallArgs,
    now: DateTime<Utc>,
    tz: chrono_tz::Tz,
) -> Result<Option<Query>, String> {
    let Some(words) = args
        .query
        .as_deref()
        .map(str::trim)
        .filter(|w| !w.is_empty())
    else {
        return Ok(None);
    };
    let mut query = Query::new(words);
    query.since = args
        .since
        .as_deref()
        .map(|raw| parse_when(raw, now, tz))
        .transpose()?;
    query.until = args
        .until
        .as_deref()
        .map(|raw| parse_when(raw, now, tz))
        .transpose()?;
    query.kinds = args
        .kind
        .as_deref()
        .map(parse_kinds)
        .transpose()?
        .unwrap_or_default();
    query.limit = args.limit.clamp(1, MOST);
    Ok(Some(query))
}
