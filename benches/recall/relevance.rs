//! Relevance on the question set: for each planted fact, where its passage ranks when its
//! question is asked (recall's top 20, the greps' top 5) and when the agent asks recall in its
//! own query (`agent` in the facts table), judged by the fact's answer string;
//! top 1 and top 5 overall and by how many words the questions share with their facts, every
//! question listed, and each one recall misses shown with its best hit.

use std::{collections::BTreeSet, path::Path};

use ollim_bot::recall::{
    index::Index,
    query::{Hit, MOST, Query},
    words::Words,
};

use crate::facts::{Fact, Place, Shares, Side};
use crate::grep::{Found, Haystack};

/// One question's results.
struct Row<'a> {
    fact: &'a Fact,
    /// The rank of the fact's passage: recall asked the question, recall asked the agent's
    /// query, `history --grep`, the word greps.
    ranks: [Option<usize>; 5],
    /// The question's stems found in the fact's passage by recall's stemmer.
    shared: usize,
    /// Recall's best hit for the question and for the agent's query, cut.
    tops: [String; 2],
}

/// Where each question's fact ranks, for recall and the greps.
pub(crate) fn relevance(facts: &[Fact], index: &Index, data_dir: &Path, claude_dir: &Path) {
    let transcripts = Haystack::read(claude_dir, data_dir, false);
    let everything = Haystack::read(claude_dir, data_dir, true);
    let found_at = |found: Vec<&Found>, answer: &str| {
        let answer = answer.to_lowercase();
        found
            .iter()
            .position(|f| f.text.contains(&answer))
            .map(|i| i + 1)
    };
    let words = Words::new("english").expect("english");
    let mut rows = Vec::new();
    let search = |words: &str| -> Vec<Hit> {
        let mut query = Query::new(words);
        query.limit = MOST;
        index.search(&query, crate::now()).expect("a search")
    };
    let top = |hits: &[Hit]| {
        hits.first().map_or(String::new(), |hit| {
            hit.entry.text.chars().take(80).collect()
        })
    };
    for fact in facts {
        let answer = fact.answer.to_lowercase();
        let rank = |hits: &[Hit]| {
            hits.iter()
                .position(|hit| hit.entry.text.to_lowercase().contains(&answer))
                .map(|i| i + 1)
        };
        let hits = search(&fact.question);
        let agent_hits = search(&fact.agent);
        let held: BTreeSet<String> = words
            .stems(&fact.passage.text)
            .split(' ')
            .map(str::to_owned)
            .collect();
        let asked = words.query_stems(&fact.question);
        rows.push(Row {
            fact,
            ranks: [
                rank(&hits),
                rank(&agent_hits),
                found_at(transcripts.history_grep(&fact.question), &fact.answer),
                found_at(transcripts.word_grep(&fact.question), &fact.answer),
                found_at(everything.word_grep(&fact.question), &fact.answer),
            ],
            shared: asked.iter().filter(|stem| held.contains(*stem)).count(),
            tops: [top(&hits), top(&agent_hits)],
        });
    }
    summary(&rows);
    listing(&rows);
}

/// Top 1 / top 5 of each method, overall and by how many words the questions share.
fn summary(rows: &[Row]) {
    let methods = [
        "recall, asked the question",
        "recall, the agent's query",
        "history --grep <question>",
        "grep each word, transcripts",
        "grep each word, + notes",
    ];
    println!(
        "\nrelevance: the fact's passage in the top 1 / top 5, of {} questions:",
        rows.len()
    );
    print!("  {:<30}{:>14}", "", "all");
    for shares in Shares::ALL {
        let n = rows.iter().filter(|row| row.fact.shares == shares).count();
        print!("{:>14}", format!("{} ({n})", shares.name()));
    }
    println!();
    for (m, method) in methods.iter().enumerate() {
        print!("  {method:<30}");
        for shares in [
            None,
            Some(Shares::Two),
            Some(Shares::One),
            Some(Shares::None),
        ] {
            let of: Vec<Option<usize>> = rows
                .iter()
                .filter(|row| shares.is_none_or(|s| row.fact.shares == s))
                .map(|row| row.ranks[m])
                .collect();
            let top = |k| of.iter().filter(|r| r.is_some_and(|r| r <= k)).count();
            let five = top(5) as f64 * 100.0 / of.len().max(1) as f64;
            print!("{:>14}", format!("{} / {} {five:3.0}%", top(1), top(5)));
        }
        println!();
    }
}

/// Every question with its ranks, then each one recall misses with its best hit.
fn listing(rows: &[Row]) {
    println!(
        "\n  every question: the rank of the fact's passage (-: not in recall's 20 or a grep's \
         5); share: content words the question shares with it, as written; stems: the \
         question's stems found in it by recall's stemmer (its filler words left out)"
    );
    println!("  share  stems  recall  agent  history  words  +notes  day  where          question");
    let shown = |rank: Option<usize>| rank.map_or("-".to_owned(), |r| r.to_string());
    for row in rows {
        let [recall, agent, history, words, everything] = row.ranks.map(shown);
        println!(
            "  {:<5}  {:>5}  {recall:>6}  {agent:>5}  {history:>7}  {words:>5}  {everything:>6}  \
             {:>3}  \
             {:<13}  {}",
            row.fact.shares.name(),
            row.shared,
            row.fact.passage.day,
            place(row.fact),
            row.fact.question
        );
    }
    for (m, asked) in ["asked the question", "asked the agent's query"]
        .into_iter()
        .enumerate()
    {
        println!("\n  missed by recall {asked} (not in its top 5):");
        for row in rows.iter().filter(|row| row.ranks[m].is_none_or(|r| r > 5)) {
            let rank = row.ranks[m].map_or("not in top 20".to_owned(), |r| format!("rank {r}"));
            let fact = row.fact;
            println!("  [{}] {} → {rank}", fact.shares.name(), fact.question);
            if m == 1 {
                println!("      query: {}", fact.agent);
            }
            println!("      answer: {}", fact.passage.text.replace('\n', " "));
            println!("      top hit: {}", row.tops[m].replace('\n', " "));
        }
    }
}

fn place(fact: &Fact) -> String {
    match &fact.passage.place {
        Place::Main(Side::Said) => "main, owner".into(),
        Place::Main(Side::Answer) => "main, reply".into(),
        Place::Fork(Side::Said) => "fork, owner".into(),
        Place::Fork(Side::Answer) => "fork, reply".into(),
        Place::BgPrompt => "bg, prompt".into(),
        Place::BgAnswer => "bg, reply".into(),
        Place::BgTool(_) => "bg, tool".into(),
        Place::Note(path) if path.starts_with("routines/") => "routine file".into(),
        Place::Note(_) => "note".into(),
    }
}
