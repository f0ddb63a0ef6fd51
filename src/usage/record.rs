//! One ledger record: a finished turn or run, what it used and how it ended (USE-1).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// The kind of work a record is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UsageKind {
    /// A turn of the main conversation (Discord or `chat`).
    Main,
    /// A turn of an interactive fork.
    Fork,
    /// A routine's background run.
    Routine,
    /// A reminder's background run.
    Reminder,
    /// A webhook's background run.
    Webhook,
    /// The tool-less screening of a webhook payload.
    Screening,
    /// The trace of a background run's reflection (BGF-22).
    Reflection,
    /// A subagent's work inside a turn or run: its tokens; its cost is in that turn's record.
    Subagent,
}

impl UsageKind {
    /// Every kind, in the order totals list them.
    pub const ALL: [Self; 8] = [
        Self::Main,
        Self::Fork,
        Self::Routine,
        Self::Reminder,
        Self::Webhook,
        Self::Screening,
        Self::Reflection,
        Self::Subagent,
    ];

    /// The name the owner sees and `--by kind` prints.
    pub fn name(self) -> &'static str {
        match self {
            Self::Main => "main",
            Self::Fork => "fork",
            Self::Routine => "routine",
            Self::Reminder => "reminder",
            Self::Webhook => "webhook",
            Self::Screening => "screening",
            Self::Reflection => "reflection",
            Self::Subagent => "subagent",
        }
    }

    /// Whether the owner didn't start it: what the background budget counts (USE-6).
    pub fn is_background(self) -> bool {
        matches!(
            self,
            Self::Routine | Self::Reminder | Self::Webhook | Self::Screening | Self::Reflection
        )
    }
}

/// One finished turn or run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UsageRecord {
    /// When it finished.
    pub at: DateTime<Utc>,
    /// What kind of work it was.
    pub kind: UsageKind,
    /// The job (`routine:daily`, `webhook:github`), for background work; `subagent:<type>`
    /// for a subagent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job: Option<String>,
    /// The model that answered, when the CLI said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Input tokens not read from the cache.
    #[serde(default)]
    pub input_tokens: u64,
    /// Output tokens.
    #[serde(default)]
    pub output_tokens: u64,
    /// Input tokens read from the prompt cache.
    #[serde(default)]
    pub cache_read_tokens: u64,
    /// Input tokens written to the prompt cache.
    #[serde(default)]
    pub cache_write_tokens: u64,
    /// What the CLI reported it cost, in dollars.
    #[serde(default)]
    pub cost_usd: f64,
    /// Wall time, in milliseconds.
    #[serde(default)]
    pub duration_ms: u64,
    /// Model calls made.
    #[serde(default)]
    pub turns: u64,
    /// How it ended (`completed`, `error`, `interrupted`, `max_turns`, `timed_out`, …).
    #[serde(default)]
    pub ended: String,
    /// For a subagent: the kind or job of the turn or run it worked in (`main`,
    /// `routine:daily`), whose record holds its cost.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub within: Option<String>,
}

impl UsageRecord {
    /// Every input token, cached or not.
    pub fn all_input_tokens(&self) -> u64 {
        self.input_tokens + self.cache_read_tokens + self.cache_write_tokens
    }
}

#[cfg(test)]
impl UsageRecord {
    /// A record for tests: 100 input, 10 output and 300 cache-read tokens, one model call.
    pub(crate) fn example(
        at: DateTime<Utc>,
        kind: UsageKind,
        job: Option<&str>,
        cost_usd: f64,
    ) -> Self {
        Self {
            at,
            kind,
            job: job.map(str::to_owned),
            model: None,
            input_tokens: 100,
            output_tokens: 10,
            cache_read_tokens: 300,
            cache_write_tokens: 0,
            cost_usd,
            duration_ms: 0,
            turns: 1,
            ended: "completed".into(),
            within: None,
        }
    }
}
