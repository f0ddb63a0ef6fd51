//! The judge's answer and what it makes of a scenario (CMD-9): scores 1–5 per criterion, the
//! overall mean (kept in hundredths, so 3.00 is exactly 3), and the pass rule — overall at least
//! 3.0, no criterion under 2, and for a `file_created` scenario the file made.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::scenario::Criterion;

/// The lowest overall that passes, in hundredths.
const PASS_OVERALL: u32 = 300;
/// The lowest criterion score that passes.
const PASS_MIN: u8 = 2;
/// A fall of more than this (hundredths) between two runs is a regression.
pub(super) const REGRESSION_DROP: i64 = 30;

/// The judge's verdict on one conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Verdict {
    /// Score per criterion.
    pub scores: BTreeMap<String, u8>,
    /// One sentence per criterion.
    pub reasons: BTreeMap<String, String>,
    /// The judge's one line.
    pub summary: String,
}

#[derive(Deserialize)]
struct Raw {
    scores: BTreeMap<String, serde_json::Value>,
    #[serde(default)]
    reasons: BTreeMap<String, String>,
    #[serde(default)]
    summary: String,
}

/// Reads the judge's answer: the JSON object in it (prose around it is ignored), with an
/// integer score from 1 to 5 for exactly the scenario's criteria.
pub(super) fn parse_verdict(answer: &str, criteria: &[Criterion]) -> Result<Verdict, String> {
    let start = answer
        .find('{')
        .ok_or("the judge's answer holds no JSON object")?;
    let end = answer
        .rfind('}')
        .ok_or("the judge's answer holds no JSON object")?;
    let raw: Raw = answer
        .get(start..=end)
        .and_then(|json| serde_json::from_str(json).ok())
        .ok_or("the judge's answer is not the JSON asked for")?;
    let mut scores = BTreeMap::new();
    for criterion in criteria {
        let value = raw
            .scores
            .get(&criterion.id)
            .ok_or_else(|| format!("the judge gave no score for {}", criterion.id))?;
        let score = value
            .as_u64()
            .and_then(|n| u8::try_from(n).ok())
            .filter(|n| (1..=5).contains(n))
            .ok_or_else(|| format!("the judge's score for {} is not 1 to 5", criterion.id))?;
        scores.insert(criterion.id.clone(), score);
    }
    if let Some(extra) = raw.scores.keys().find(|key| !scores.contains_key(*key)) {
        return Err(format!("the judge scored an unknown criterion {extra}"));
    }
    let reasons = raw
        .reasons
        .into_iter()
        .filter(|(key, _)| scores.contains_key(key))
        .collect();
    Ok(Verdict {
        scores,
        reasons,
        summary: raw.summary,
    })
}

/// The mean of `scores` in hundredths, rounded half up.
pub(super) fn overall_centi(scores: &BTreeMap<String, u8>) -> u32 {
    let count = u32::try_from(scores.len()).unwrap_or(u32::MAX);
    if count == 0 {
        return 0;
    }
    let sum: u32 = scores.values().map(|score| u32::from(*score)).sum();
    (sum * 100 * 2 + count) / (count * 2)
}

/// Whether a run passes: overall ≥ 3.0, no criterion < 2 and, where the scenario has one, its
/// goal met.
pub(super) fn passes(scores: &BTreeMap<String, u8>, goal_met: Option<bool>) -> bool {
    !scores.is_empty()
        && overall_centi(scores) >= PASS_OVERALL
        && scores.values().all(|score| *score >= PASS_MIN)
        && goal_met != Some(false)
}

/// Hundredths as `3.25`.
pub(super) fn centi_text(centi: i64) -> String {
    let sign = if centi < 0 { "-" } else { "" };
    let centi = centi.unsigned_abs();
    format!("{sign}{}.{:02}", centi / 100, centi % 100)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn criteria(ids: &[&str]) -> Vec<Criterion> {
        ids.iter()
            .map(|id| Criterion {
                id: (*id).to_owned(),
                what: String::new(),
                anchors: BTreeMap::new(),
            })
            .collect()
    }

    fn scores(values: &[u8]) -> BTreeMap<String, u8> {
        values
            .iter()
            .enumerate()
            .map(|(i, v)| (format!("c{i}"), *v))
            .collect()
    }

    #[test]
    fn the_pass_rule_has_its_edges() {
        assert!(passes(&scores(&[3, 3, 3, 3]), None));
        assert!(passes(&scores(&[4, 2, 3, 3]), None));
        assert!(!passes(&scores(&[5, 1, 3, 3]), None), "a 1 fails");
        assert!(!passes(&scores(&[3, 3, 3, 2]), None), "2.75 fails");
        assert!(!passes(&scores(&[5, 5, 5, 5]), Some(false)), "goal not met");
        assert!(passes(&scores(&[5, 5, 5, 5]), Some(true)));
        assert_eq!(overall_centi(&scores(&[3, 3, 4])), 333);
        assert_eq!(overall_centi(&scores(&[3, 4, 4])), 367);
        assert_eq!(centi_text(-30), "-0.30");
        assert_eq!(centi_text(325), "3.25");
    }

    #[test]
    fn the_verdict_is_read_from_prose_and_checked() {
        let c = criteria(&["a", "b"]);
        let verdict = parse_verdict(
            "Here you go:\n{\"scores\": {\"a\": 4, \"b\": 2}, \"reasons\": {\"a\": \"ok\"}, \
             \"summary\": \"fine\"}\nthanks",
            &c,
        )
        .unwrap();
        assert_eq!(verdict.scores["a"], 4);
        assert_eq!(verdict.reasons["a"], "ok");
        assert_eq!(verdict.summary, "fine");
        for bad in [
            "no json",
            "{\"scores\": {\"a\": 4}}",
            "{\"scores\": {\"a\": 4, \"b\": 6}}",
            "{\"scores\": {\"a\": 4, \"b\": 2.5}}",
            "{\"scores\": {\"a\": 4, \"b\": 2, \"c\": 3}}",
        ] {
            assert!(parse_verdict(bad, &c).is_err(), "{bad}");
        }
    }
}
