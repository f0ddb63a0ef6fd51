//! `ollim-bot recall` (issue 42 §2): ranked recall over everything the assistant knows, in the
//! terminal — the owner's words, the replies, what background runs did, the notes — with
//! `--since`/`--until`, `--kind`, `--json`; `--reindex` rebuilds the index from its sources;
//! `--forget` removes the passages holding every word asked, for good. Needs the data dir, the
//! timezone and `HOME` / `CLAUDE_CONFIG_DIR`; never `DISCORD_TOKEN`.

use std::{collections::BTreeSet, fmt::Write as _};

use chrono::{DateTime, Utc};
use clap::Args;

use crate::{
    config::Config,
    recall::{
        gather::Places,
        index::{Index, refreshed},
        query::{DEFAULT_LIMIT, Hit, MOST, Query, parse_kinds, parse_when},
        words::Words,
    },
    state::{
        paths::DataDir, recall_forgotten::RecallForgotten, untrusted_sessions::UntrustedSessions,
    },
};

/// The language recall stems in until the owner's is a setting.
pub const LANGUAGE: &str = "english";

/// `ollim-bot recall` options.
#[derive(Debug, Args)]
pub struct RecallArgs {
    /// What to look for, in your own words.
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
    let data_dir = DataDir::new(&config.data_dir);
    let claude_dir = config.claude_config_dir().ok_or(
        "cannot find the Claude CLI's config dir: set HOME or CLAUDE_CONFIG_DIR".to_owned(),
    )?;
    let homes: Vec<std::path::PathBuf> = std::fs::read_dir(data_dir.cli_homes_dir())
        .map(|entries| entries.flatten().map(|entry| entry.path()).collect())
        .unwrap_or_default();
    let places = Places {
        data_dir: config.data_dir.clone(),
        claude_dirs: std::iter::once(claude_dir).chain(homes).collect(),
    };
    let words = || Words::new(LANGUAGE).ok_or("recall's language is unknown".to_owned());
    let index_dir = data_dir.recall_index_dir();
    if args.reindex {
        Index::remove(&index_dir).map_err(|e| e.to_string())?;
    }
    let forgotten_store = RecallForgotten::new(data_dir.recall_forgotten_file());
    let forgotten: BTreeSet<String> = forgotten_store
        .all()
        .map_err(|e| format!("can't read what you told recall to forget: {e}"))?
        .into_keys()
        .collect();
    let untrusted = UntrustedSessions::new(data_dir.untrusted_sessions_file())
        .all()
        .ok();
    let (mut index, updated) = refreshed(
        &index_dir,
        words()?,
        &places,
        untrusted.as_ref(),
        &forgotten,
    )
    .map_err(|e| e.to_string())?;
    let Some(query) = query else {
        return Ok(format!(
            "recall's index rebuilt: {} passage{} from {} source{}.\n",
            updated.passages,
            if updated.passages == 1 { "" } else { "s" },
            updated.read,
            if updated.read == 1 { "" } else { "s" }
        ));
    };
    if args.forget {
        let gone = index.forget(&query).map_err(|e| e.to_string())?;
        #[allow(clippy::cast_precision_loss)] // seconds of a date
        let at = now.timestamp() as f64;
        forgotten_store
            .forget(
                gone.iter().map(crate::recall::entry::Entry::fingerprint),
                at,
            )
            .map_err(|e| format!("forgotten from the index, but not kept as forgotten: {e}"))?;
        return Ok(forgotten_text(&query.words, &gone, tz));
    }
    let hits = index.search(&query, now).map_err(|e| e.to_string())?;
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

/// The passages found, for a person.
pub fn hits_text(words: &str, hits: &[Hit], tz: chrono_tz::Tz) -> String {
    if hits.is_empty() {
        return format!("nothing found for \"{words}\".\n");
    }
    let mut text = format!(
        "{} passage{} for \"{words}\", best first (times in {}):\n",
        hits.len(),
        if hits.len() == 1 { "" } else { "s" },
        tz.name()
    );
    for (n, hit) in hits.iter().enumerate() {
        let _ = write!(text, "\n{}. {}\n", n + 1, hit.line(tz));
    }
    text
}

/// The passages found, as JSON.
pub fn hits_json(hits: &[Hit]) -> serde_json::Value {
    serde_json::Value::Array(
        hits.iter()
            .map(|hit| {
                serde_json::json!({
                    "at": hit.entry.at.to_rfc3339(),
                    "kind": hit.entry.kind.name(),
                    "source": hit.entry.origin.handle(),
                    "untrusted": hit.entry.untrusted,
                    "score": hit.score,
                    "text": hit.entry.text,
                })
            })
            .collect(),
    )
}

/// What was forgotten, said back.
pub fn forgotten_text(
    words: &str,
    gone: &[crate::recall::entry::Entry],
    tz: chrono_tz::Tz,
) -> String {
    if gone.is_empty() {
        return format!("nothing holds every word of \"{words}\"; nothing forgotten.\n");
    }
    let mut text = format!(
        "forgot {} passage{} holding \"{words}\" (a rebuild won't bring {} back):\n",
        gone.len(),
        if gone.len() == 1 { "" } else { "s" },
        if gone.len() == 1 { "it" } else { "them" }
    );
    for entry in gone {
        let hit = Hit {
            entry: entry.clone(),
            score: 0.0,
        };
        let _ = write!(text, "\n- {}\n", hit.line(tz));
    }
    text
}
