//! A reminder that is open until the owner answers it (issue 28 §1, NAG-4…NAG-8): what it
//! says, how it nags, and where it stands. Plain data with its moves; the caller passes the
//! clock, keeps it (`state::nags`) and puts the cards in front of the owner.

use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};
use chrono_tz::Tz;
use serde::{Deserialize, Serialize};

use super::{nag::NagPolicy, wall_clock::hh_mm};

/// The longest label a card and the nag list show; longer texts are cut at a word.
pub const LABEL_CHARS: usize = 60;

/// What an open reminder waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum NagWait {
    /// The next nag is due at `at` (it waits longer in quiet time or for the ping budget).
    Due {
        /// When.
        at: DateTime<Utc>,
    },
    /// The owner snoozed it until `at`; the nag then counts its gaps afresh.
    Snoozed {
        /// When it comes back.
        at: DateTime<Utc>,
    },
    /// It nagged as often as its policy allows: it stays in the nag list, quiet, until the
    /// owner answers or drops it.
    Resting,
}

impl NagWait {
    /// When the next nag is due; `None` while resting.
    pub fn due_at(&self) -> Option<DateTime<Utc>> {
        match self {
            Self::Due { at } | Self::Snoozed { at } => Some(*at),
            Self::Resting => None,
        }
    }
}

/// One open reminder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpenNag {
    /// The reminder's (or routine's) id; one open nag per id.
    pub id: String,
    /// A short name for cards, lists and outcome lines: the description, else the start of
    /// the text ([`label_of`]).
    pub label: String,
    /// The reminder's text, for the wording of its nags.
    pub message: String,
    /// How it nags.
    pub policy: NagPolicy,
    /// When it opened (the reminder fired).
    pub opened: DateTime<Utc>,
    /// Nags sent since it opened, in all.
    #[serde(default)]
    pub nudges: u32,
    /// Nags sent since it opened or was last snoozed: the policy counts its gaps from these.
    #[serde(default)]
    pub round: u32,
    /// What it waits for.
    pub wait: NagWait,
}

impl OpenNag {
    /// A reminder opened at `now`: its first nag is due after the policy's first gap.
    pub fn open(
        id: String,
        label: String,
        message: String,
        policy: NagPolicy,
        now: DateTime<Utc>,
    ) -> Self {
        let wait = next_wait(&policy, now, 0);
        Self {
            id,
            label,
            message,
            policy,
            opened: now,
            nudges: 0,
            round: 0,
            wait,
        }
    }

    /// Whether a nag is due at `now`.
    pub fn is_due(&self, now: DateTime<Utc>) -> bool {
        self.wait.due_at().is_some_and(|at| at <= now)
    }

    /// A nag went out at `now`: counted, and the next one due after the next gap, or resting
    /// once the policy's limit is reached.
    pub fn nagged(&mut self, now: DateTime<Utc>) {
        self.nudges = self.nudges.saturating_add(1);
        self.round = self.round.saturating_add(1);
        self.wait = next_wait(&self.policy, now, self.round);
    }

    /// The owner snoozed it until `until`: it comes back then, its gaps counted afresh.
    pub fn snoozed(&mut self, until: DateTime<Utc>) {
        self.round = 0;
        self.wait = NagWait::Snoozed { at: until };
    }

    /// Whether this nag just reached its limit (it rests).
    pub fn is_resting(&self) -> bool {
        self.wait == NagWait::Resting
    }

    /// Where it stands at `now`, for lists (`/nags`, `reminder list`, the agent's
    /// `list_reminders`): `meds (since 09:00): nudged twice, next nudge at 10:30`, the times
    /// on the owner's clock in `tz`.
    pub fn status(&self, now: DateTime<Utc>, tz: Tz) -> String {
        let clock = |at| hh_mm(at, tz);
        let nudged = match self.nudges {
            0 => "not nudged yet".to_owned(),
            1 => "nudged once".to_owned(),
            2 => "nudged twice".to_owned(),
            n => format!("nudged {n} times"),
        };
        let next = match self.wait {
            NagWait::Due { at } if at <= now => "next nudge due now".to_owned(),
            NagWait::Due { at } => format!("next nudge at {}", clock(at)),
            NagWait::Snoozed { at } => format!("snoozed until {}", clock(at)),
            NagWait::Resting => "no more nudges".to_owned(),
        };
        format!(
            "{} (since {}): {nudged}, {next}",
            self.label,
            clock(self.opened)
        )
    }
}

/// What comes after `round` nags, the last at `last`: the next gap (never under a second),
/// or rest.
fn next_wait(policy: &NagPolicy, last: DateTime<Utc>, round: u32) -> NagWait {
    if round >= policy.limit() {
        return NagWait::Resting;
    }
    let gap = policy.gap_before(round + 1).max(Duration::from_secs(1));
    TimeDelta::from_std(gap)
        .ok()
        .and_then(|gap| last.checked_add_signed(gap))
        .map_or(NagWait::Resting, |at| NagWait::Due { at })
}

/// A short label for a reminder: its description when it has one, else the first line of its
/// text, cut at a word to at most [`LABEL_CHARS`] characters.
pub fn label_of(description: &str, message: &str) -> String {
    let source = if description.trim().is_empty() {
        message
    } else {
        description
    };
    let line = source.lines().map(str::trim).find(|l| !l.is_empty());
    let line = line.unwrap_or("reminder");
    if line.chars().count() <= LABEL_CHARS {
        return line.to_owned();
    }
    let cut: String = line.chars().take(LABEL_CHARS).collect();
    let at_word = cut
        .rfind(char::is_whitespace)
        .filter(|at| *at > LABEL_CHARS / 2)
        .map_or(cut.as_str(), |at| &cut[..at]);
    format!("{}…", at_word.trim_end())
}

#[cfg(test)]
#[path = "open_nag_tests.rs"]
mod tests;
