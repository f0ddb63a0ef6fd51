//! The eval scenarios (CMD-9): six simulated owners, each a markdown file under `cases/` with
//! YAML frontmatter (persona, opening, goal, criteria with anchors) and notes for the judge as
//! the body, built into the binary so `eval list` works anywhere.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::domain::frontmatter::split;

/// The scenario files, in the order `eval list` and `eval run` take them.
const CASES: [(&str, &str); 6] = [
    (
        "overwhelmed-by-tasks",
        include_str!("cases/overwhelmed-by-tasks.md"),
    ),
    (
        "vague-routine-request",
        include_str!("cases/vague-routine-request.md"),
    ),
    (
        "proactive-morning-checkin",
        include_str!("cases/proactive-morning-checkin.md"),
    ),
    (
        "frustrated-nothing-works",
        include_str!("cases/frustrated-nothing-works.md"),
    ),
    (
        "reminder-negotiation",
        include_str!("cases/reminder-negotiation.md"),
    ),
    (
        "context-recovery-after-gap",
        include_str!("cases/context-recovery-after-gap.md"),
    ),
];

/// What ends a scenario's conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GoalType {
    /// Met once the bot writes a routine or reminder file; the conversation stops there.
    FileCreated,
    /// Always runs to `max_turns`; only the judge counts.
    Qualitative,
}

impl GoalType {
    /// The name in the files and the history.
    pub fn name(self) -> &'static str {
        match self {
            Self::FileCreated => "file_created",
            Self::Qualitative => "qualitative",
        }
    }
}

/// One criterion the judge scores from 1 to 5.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Criterion {
    /// Its key in the scores.
    pub id: String,
    /// What it asks.
    pub what: String,
    /// What a 1, a 3 and a 5 look like.
    pub anchors: BTreeMap<u8, String>,
}

/// A scheduled job that fires before the simulated owner says anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Fire {
    /// A foreground routine.
    Routine,
    /// A foreground reminder.
    Reminder,
}

/// What happens before the opening message.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Setup {
    /// A job that fires first, so the bot speaks first.
    pub fire: Option<Fire>,
    /// What the job says (its file's body).
    pub job: Option<String>,
    /// Earlier messages of the owner's, each answered by the bot before the opening.
    #[serde(default)]
    pub prior: Vec<String>,
}

/// One scenario.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Its name (the file's).
    pub id: String,
    /// What ends it.
    pub goal_type: GoalType,
    /// How many messages the simulated owner sends at most.
    pub max_turns: u32,
    /// What the bot should achieve.
    pub goal: String,
    /// The simulated owner.
    pub personality: String,
    /// The owner's first message, sent as written.
    pub opening: String,
    /// What happens before the opening.
    #[serde(default)]
    pub setup: Setup,
    /// What the judge scores.
    pub criteria: Vec<Criterion>,
    /// Notes for the judge (the file's body).
    #[serde(skip)]
    pub notes: String,
}

/// Why a scenario file is unusable (a fault of the build, caught by the tests).
#[derive(Debug, thiserror::Error)]
#[error("scenario {id}: {reason}")]
pub struct ScenarioError {
    id: String,
    reason: String,
}

impl Scenario {
    /// Reads and checks one scenario file named `id`.
    pub fn parse(id: &str, text: &str) -> Result<Self, ScenarioError> {
        let fail = |reason: String| ScenarioError {
            id: id.to_owned(),
            reason,
        };
        let (yaml, body) = split(text).map_err(fail)?;
        let mut scenario: Self =
            serde_yaml::from_str(yaml).map_err(|error| fail(error.to_string()))?;
        body.trim().clone_into(&mut scenario.notes);
        scenario.check(id).map_err(fail)?;
        Ok(scenario)
    }

    fn check(&self, id: &str) -> Result<(), String> {
        if self.id != id {
            return Err(format!("its id is {:?}, its file {id:?}", self.id));
        }
        if !(1..=20).contains(&self.max_turns) {
            return Err("max_turns must be 1 to 20".to_owned());
        }
        if !(3..=6).contains(&self.criteria.len()) {
            return Err("it needs 3 to 6 criteria".to_owned());
        }
        for criterion in &self.criteria {
            if criterion.anchors.keys().copied().collect::<Vec<_>>() != [1, 3, 5] {
                return Err(format!("{}: anchors must be 1, 3 and 5", criterion.id));
            }
        }
        let mut ids: Vec<&str> = self.criteria.iter().map(|c| c.id.as_str()).collect();
        ids.sort_unstable();
        ids.dedup();
        if ids.len() != self.criteria.len() {
            return Err("two criteria share an id".to_owned());
        }
        if self.setup.fire.is_some() != self.setup.job.is_some() {
            return Err("setup: fire and job go together".to_owned());
        }
        Ok(())
    }

    /// Every scenario, in order.
    pub fn all() -> Result<Vec<Self>, ScenarioError> {
        CASES
            .iter()
            .map(|(id, text)| Self::parse(id, text))
            .collect()
    }

    /// The ids of every scenario, in order.
    pub fn ids() -> Vec<&'static str> {
        CASES.iter().map(|(id, _)| *id).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_scenario_file_is_well_formed() {
        let all = Scenario::all().expect("the built-in scenarios parse");
        assert_eq!(all.len(), 6);
        for scenario in &all {
            assert!(!scenario.opening.trim().is_empty(), "{}", scenario.id);
            assert!(!scenario.notes.is_empty(), "{}", scenario.id);
        }
        assert_eq!(
            all.iter()
                .filter(|s| s.goal_type == GoalType::FileCreated)
                .count(),
            2
        );
    }

    #[test]
    fn a_malformed_scenario_is_refused_with_its_reason() {
        let text = "---\nid: x\ngoal_type: qualitative\nmax_turns: 30\ngoal: g\npersonality: p\n\
                    opening: o\ncriteria: []\n---\nnotes\n";
        let error = Scenario::parse("x", text).unwrap_err().to_string();
        assert!(error.contains("max_turns"), "{error}");
        let error = Scenario::parse("y", text).unwrap_err().to_string();
        assert!(error.contains("its file"), "{error}");
    }
}
