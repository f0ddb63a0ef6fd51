//! How recall orders what matched: text relevance (BM25, from the index) weighed by how many of
//! the question's words a passage holds, then lifted a little for what is recent, so of two
//! equally good passages the newer comes first, while an old passage that matches much better
//! still wins. Pure.

use std::collections::{BTreeSet, HashMap, hash_map};

use chrono::{DateTime, Utc};

use super::{query::Hit, words::Asked};

/// How much a passage from today is lifted over a very old one (a share of its relevance).
const RECENCY_LIFT: f64 = 0.3;

/// After how many days the lift has fallen to about a third.
const RECENCY_DAYS: f64 = 90.0;

/// A passage's final score: its text `relevance` with the lift for its age at `now`.
pub fn score(relevance: f64, at: DateTime<Utc>, now: DateTime<Utc>) -> f64 {
    #[allow(clippy::cast_precision_loss)] // seconds of an age: far inside f64's range
    let days = ((now - at).num_seconds().max(0) as f64) / 86_400.0;
    relevance * (1.0 + RECENCY_LIFT * (-days / RECENCY_DAYS).exp())
}

/// How much a question's word counts when a passage holds only a word that stands for it.
pub const ALTERNATIVE: f64 = 0.7;

/// How much of the question's `asked` words a passage whose stems are `found` holds: 1 for
/// each word it holds, [`ALTERNATIVE`] for each it holds only in other words.
pub fn covered(asked: &[Asked], found: &BTreeSet<&str>) -> f64 {
    asked
        .iter()
        .map(|word| {
            if found.contains(word.stem.as_str()) {
                1.0
            } else if word
                .alternatives
                .iter()
                .any(|alt| found.contains(alt.as_str()))
            {
                ALTERNATIVE
            } else {
                0.0
            }
        })
        .sum()
}

/// `hits` (best first) with each passage once: the same words turn up in more than one
/// session (a fork starts from the conversation's history; an update is in the run that
/// reported it and in the prompt that delivered it). The best-placed copy stays, marked
/// untrusted if any copy is.
pub fn distinct(hits: Vec<Hit>) -> Vec<Hit> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut kept: Vec<Hit> = Vec::new();
    for hit in hits {
        match seen.entry(hit.entry.fingerprint()) {
            hash_map::Entry::Occupied(first) => {
                kept[*first.get()].entry.untrusted |= hit.entry.untrusted;
            }
            hash_map::Entry::Vacant(slot) => {
                slot.insert(kept.len());
                kept.push(hit);
            }
        }
    }
    kept
}

/// Text `relevance` weighed by how much of the question's `asked` words a passage holds
/// (`covered`: 1 for each word held, [`ALTERNATIVE`] for each held only in other words): BM25
/// alone lets a short passage with one rare word beat a longer one holding them all.
pub fn covering(relevance: f64, covered: f64, asked: usize) -> f64 {
    if asked == 0 {
        return relevance;
    }
    #[allow(clippy::cast_precision_loss)] // a count of words
    let share = covered / asked as f64;
    relevance * share * share
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Of two equal matches the newer wins; a much better old match still beats a new one.
    #[test]
    fn recent_lifts_but_does_not_outweigh_relevance() {
        let now: DateTime<Utc> = "2026-12-01T00:00:00Z".parse().unwrap();
        let today = now - chrono::Duration::hours(1);
        let last_year = now - chrono::Duration::days(365);
        assert!(score(5.0, today, now) > score(5.0, last_year, now));
        assert!(score(8.0, last_year, now) > score(5.0, today, now));
        assert!((score(5.0, last_year, now) - 5.0).abs() < 0.1);
    }

    /// The same words found in two sessions are one hit, the better placed, untrusted if
    /// either copy is.
    #[test]
    fn the_same_passage_is_one_hit() {
        use crate::recall::entry::{Entry, Kind, Origin};
        let hit = |session: &str, untrusted: bool, score: f64| Hit {
            entry: Entry {
                at: "2026-12-01T00:00:00Z".parse().unwrap(),
                kind: Kind::Said,
                origin: Origin::Session(session.into()),
                untrusted,
                text: format!(
                    "the plumber comes {}",
                    if session == "c" { "later" } else { "Thursday" }
                ),
            },
            score,
        };
        let kept = distinct(vec![
            hit("a", false, 3.0),
            hit("b", true, 2.0),
            hit("c", false, 1.0),
        ]);
        assert_eq!(kept.len(), 2);
        assert_eq!(kept[0].entry.origin, Origin::Session("a".into()));
        assert!(kept[0].entry.untrusted);
        assert!(!kept[1].entry.untrusted);
    }

    /// A passage holding every word asked outranks one holding a single rarer word.
    #[test]
    fn holding_every_word_counts() {
        assert!(covering(4.0, 3.0, 3) > covering(9.0, 1.0, 3));
        assert!((covering(4.0, 0.0, 0) - 4.0).abs() < f64::EPSILON);
    }
}
