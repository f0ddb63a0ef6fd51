//! Recall over a synthetic year (issue 42); prints figures, asserts nothing about them.
//!
//! `cargo bench --bench recall` (release profile) makes, in a temp dir, a year of an ADHD
//! person's life with their assistant from 2026-01-01 (`recall/year.rs`): 365 days × 40
//! messages as the Claude Code CLI's transcripts (main sessions, forks, background runs) and
//! 500 markdown notes, with 43 facts planted among passages that share their words, some of
//! them later in the year. Then, with the real index (`recall::index::refreshed`, as the
//! daemon, the terminal and the tool call it):
//!
//! - the build for that year (empty index → every source read), its passages, its size on
//!   disk; a catch-up with nothing changed, and one with a day appended (2027-01-01);
//! - query latency: `Index::search` for every question and for the query the agent sends for
//!   it (its words and more, so longer), [`ROUNDS`] rounds, p50/p95/max;
//! - relevance at 2027-01-01: for each fact a question asked in other words (sharing two or
//!   more content words with the fact's passage, one, or none), where the passage ranks
//!   (top 1, top 5), and where it ranks for the agent's own query (written blind, see
//!   `recall/facts.rs`), side by side with today's `history --grep` and a generous grep of the
//!   question's words (`recall/grep.rs`); every question is listed with its ranks, and each
//!   one recall misses with its best hit (`recall/relevance.rs`);
//! - memory added at rest, in a child process of its own (so the build's heap isn't in it):
//!   `VmRSS` and `RssAnon` before the index is opened (after the catch-up the daemon makes
//!   before a search), open after a search, and after it is dropped.
//!
//! How long making the year takes is printed for context only. With `RECALL_BENCH_KEEP=<dir>`
//! the year, its index (`data/state/recall/`) and `questions.json` (each question, its
//! answer's words and how many it shares) are kept there, to study other ways of ranking.
// Figures printed for a person: counts and durations are far below 2^52 and percentiles
// index sorted samples, so these casts lose nothing.
#![allow(
    clippy::cast_precision_loss,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss
)]

#[path = "recall/chatter.rs"]
mod chatter;
#[path = "recall/day.rs"]
mod day;
#[path = "recall/facts.rs"]
mod facts;
#[path = "recall/facts_noted.rs"]
mod facts_noted;
#[path = "recall/facts_said.rs"]
mod facts_said;
#[path = "recall/grep.rs"]
mod grep;
#[path = "recall/notes.rs"]
mod notes;
#[path = "recall/relevance.rs"]
mod relevance;
#[path = "recall/transcript.rs"]
mod transcript;
#[path = "recall/vocabulary.rs"]
mod vocabulary;
#[path = "recall/year.rs"]
mod year;

use std::{
    collections::{BTreeMap, BTreeSet},
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

use chrono::{DateTime, Utc};
use ollim_bot::recall::{
    gather::Places,
    index::{Index, Updated, refreshed},
    query::Query,
    words::Words,
};
use ollim_test_support::procs::{mib, status_fields};

/// Rounds of every question for the latency figures.
const ROUNDS: usize = 20;
/// The argument that makes this binary the child measuring memory at rest.
const REST_CHILD: &str = "--recall-rest-child";

pub(crate) fn now() -> DateTime<Utc> {
    "2027-01-01T00:00:00Z".parse().expect("a date")
}

struct Dirs {
    data: PathBuf,
    claude: PathBuf,
    index: PathBuf,
}

impl Dirs {
    fn refreshed(&self) -> (Index, Updated) {
        let places = Places {
            data_dir: self.data.clone(),
            claude_dirs: vec![self.claude.clone()],
        };
        let words = Words::new("english").expect("english");
        let none = BTreeMap::new();
        refreshed(&self.index, words, &places, Some(&none), &BTreeSet::new()).expect("the index")
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(at) = args.iter().position(|arg| arg == REST_CHILD) {
        rest_child(&args[at + 1..]);
        return;
    }
    if !args.iter().any(|arg| arg == "--bench") {
        println!("benches/recall.rs prints figures only under `cargo bench --bench recall`");
        return;
    }
    let temp = tempfile::tempdir().expect("a temp dir");
    let keep = std::env::var_os("RECALL_BENCH_KEEP").map(PathBuf::from);
    let root = keep.clone().unwrap_or_else(|| temp.path().to_path_buf());
    let dirs = Dirs {
        data: root.join("data"),
        claude: root.join("claude"),
        index: root.join("data/state/recall"),
    };
    let started = Instant::now();
    let year = year::generate(&dirs.data);
    year::write(&year.files, &dirs.data, &dirs.claude).expect("the year written");
    let made = started.elapsed();
    let c = &year.counts;
    println!(
        "recall over a synthetic year (issue 42), now = {}",
        now().date_naive()
    );
    println!(
        "  the year: {} days, {} messages in {} sessions ({} main, {} forks, {} background \
         runs), {} notes, {} planted facts; made and written in {:.2} s (context only)",
        year::DAYS,
        c.messages,
        c.main + c.forks + c.background,
        c.main,
        c.forks,
        c.background,
        c.notes,
        year.facts.len(),
        made.as_secs_f64()
    );

    let started = Instant::now();
    let (index, built) = dirs.refreshed();
    let build_time = started.elapsed();
    println!("\nindex:");
    println!(
        "  build for the year:            {:7.2} s   {} passages from {} sources",
        build_time.as_secs_f64(),
        built.passages,
        built.read
    );
    println!(
        "  size on disk:                  {:7.2} MiB",
        mib(dir_size(&dirs.index) / 1024)
    );
    drop(index);
    let started = Instant::now();
    let (index, same) = dirs.refreshed();
    println!(
        "  catch-up, nothing changed:     {:7.1} ms  ({} sources read)",
        ms(started.elapsed()),
        same.read
    );

    let questions: Vec<&str> = year.facts.iter().map(|f| f.question.as_str()).collect();
    let agent: Vec<&str> = year.facts.iter().map(|f| f.agent.as_str()).collect();
    latency(&index, &questions, "the questions");
    latency(&index, &agent, "the agent's queries");

    relevance::relevance(&year.facts, &index, &dirs.data, &dirs.claude);
    if let Some(keep) = &keep {
        keep_questions(keep, &year.facts);
    }
    drop(index);
    rest(&dirs, &year.facts[0].question);

    year::write(&year.extra, &dirs.data, &dirs.claude).expect("the day appended");
    let started = Instant::now();
    let (_, appended) = dirs.refreshed();
    println!(
        "\ncatch-up after one more day:     {:7.1} ms  ({} sources read, {} dropped; {} passages)",
        ms(started.elapsed()),
        appended.read,
        appended.dropped,
        appended.passages
    );
}

/// Query latency over `queries`, [`ROUNDS`] rounds: p50, p95, max.
fn latency(index: &Index, queries: &[&str], label: &str) {
    let mut samples: Vec<Duration> = Vec::new();
    for _ in 0..ROUNDS {
        for words in queries {
            let started = Instant::now();
            let hits = index.search(&Query::new(words), now());
            samples.push(started.elapsed());
            std::hint::black_box(hits.expect("a search"));
        }
    }
    samples.sort();
    let at = |share: f64| samples[((samples.len() - 1) as f64 * share).round() as usize];
    println!(
        "  query, {label} ({} × {ROUNDS}):{:pad$}p50 {:.2} ms   p95 {:.2} ms   max {:.2} ms",
        queries.len(),
        "",
        ms(at(0.5)),
        ms(at(0.95)),
        ms(at(1.0)),
        pad = 24usize.saturating_sub(label.len())
    );
}

/// Memory at rest, measured in a child process of this binary (see [`rest_child`]).
fn rest(dirs: &Dirs, question: &str) {
    let output = std::process::Command::new(std::env::current_exe().expect("this bench"))
        .arg(REST_CHILD)
        .args([&dirs.data, &dirs.claude, &dirs.index])
        .arg(question)
        .output()
        .expect("the child");
    let text = String::from_utf8_lossy(&output.stdout);
    let kib: Vec<u64> = text
        .split_whitespace()
        .filter_map(|n| n.parse().ok())
        .collect();
    let [before, before_anon, open, open_anon, dropped, dropped_anon] = kib[..] else {
        println!("\nmemory at rest: the child said {text:?}");
        return;
    };
    println!("\nmemory at rest (a process of its own, VmRSS / RssAnon):");
    println!(
        "  before the index is opened:    {:6.1} MiB / {:5.1} MiB",
        mib(before),
        mib(before_anon)
    );
    for (label, rss, anon) in [
        ("open, after a search:", open, open_anon),
        ("dropped:", dropped, dropped_anon),
    ] {
        println!(
            "  {label:<31}{:6.1} MiB / {:5.1} MiB   (+{:.2} / +{:.2} MiB)",
            mib(rss),
            mib(anon),
            mib(rss.saturating_sub(before)),
            mib(anon.saturating_sub(before_anon))
        );
    }
}

/// Writes `questions.json` under `keep`: each question, its answer's words, how many it shares.
fn keep_questions(keep: &Path, facts: &[facts::Fact]) {
    let questions: Vec<serde_json::Value> = facts
        .iter()
        .map(|fact| {
            serde_json::json!({
                "question": fact.question,
                "agent": fact.agent,
                "answer": fact.answer,
                "shares": fact.shares.name(),
            })
        })
        .collect();
    std::fs::write(
        keep.join("questions.json"),
        serde_json::to_string_pretty(&questions).expect("json"),
    )
    .expect("questions.json written");
}

/// The child: `VmRSS` and `RssAnon` (KiB) before the index is opened (after a catch-up with
/// nothing changed, as the daemon does before a search), with it open after one search, and
/// after it is dropped.
fn rest_child(args: &[String]) {
    let [data, claude, index, question] = args else {
        println!("usage: {REST_CHILD} <data dir> <claude dir> <index dir> <question>");
        return;
    };
    let dirs = Dirs {
        data: data.into(),
        claude: claude.into(),
        index: index.into(),
    };
    let query = Query::new(question);
    let memory = || status_fields(std::process::id(), ["VmRSS", "RssAnon"]).unwrap_or([0, 0]);
    let [before, before_anon] = memory();
    let (index, _) = dirs.refreshed();
    std::hint::black_box(index.search(&query, now()).expect("a search"));
    let [open, open_anon] = memory();
    drop(index);
    let [dropped, dropped_anon] = memory();
    println!("{before} {before_anon} {open} {open_anon} {dropped} {dropped_anon}");
}

fn dir_size(dir: &Path) -> u64 {
    std::fs::read_dir(dir).map_or(0, |entries| {
        entries
            .flatten()
            .filter_map(|entry| entry.metadata().ok())
            .map(|meta| meta.len())
            .sum()
    })
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}
