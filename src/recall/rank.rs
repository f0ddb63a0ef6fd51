//! How recall orders what matched: text relevance (BM25, from the index) weighed by how many of
//! the question's words a passage holds, then lifted a little for what is recent, so of two equally good passages the newer comes first, while an old passage
//! that matches much better still wins. Pure.

use chrono::{DateTime, Utc};

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

/// Text `relevance` weighed by how many of the question's `asked` words a passage holds
/// (`covered`): BM25 alone lets a short passage with one rare word beat a longer one holding
/// them all.
pub fn covering(relevance: f64, covered: usize, asked: usize) -> f64 {
    if asked == 0 {
        return relevance;
    }
    #[allow(clippy::cast_precision_loss)] // counts of words
    let share = covered as f64 / asked as f64;
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

    /// A passage holding every word asked outranks one holding a single rarer word.
    #[test]
    fn holding_every_word_counts() {
        assert!(covering(4.0, 3, 3) > covering(9.0, 1, 3));
        assert!((covering(4.0, 0, 0) - 4.0).abs() < f64::EPSILON);
    }
}
