//! Sums over ledger records (USE-3, USE-4): a window's total, split by kind, job, model or
//! day (days in the owner's zone), the most expensive jobs, the cache's share of input, and
//! what background work spent on one day (the budget, USE-6). Plain functions; the caller
//! passes the time.

use std::collections::BTreeMap;

use chrono::{DateTime, NaiveDate, TimeZone as _, Utc};
use chrono_tz::Tz;
use serde::Serialize;

use super::record::UsageRecord;

/// Sums over some records.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Totals {
    /// Records summed.
    pub runs: u64,
    /// Dollars, as the CLI reported.
    pub cost_usd: f64,
    /// Input tokens not read from the cache.
    pub input_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
    /// Input tokens read from the cache.
    pub cache_read_tokens: u64,
    /// Input tokens written to the cache.
    pub cache_write_tokens: u64,
}

impl Totals {
    /// Adds one record.
    pub fn add(&mut self, record: &UsageRecord) {
        self.runs += 1;
        self.cost_usd += record.cost_usd;
        self.input_tokens += record.input_tokens;
        self.output_tokens += record.output_tokens;
        self.cache_read_tokens += record.cache_read_tokens;
        self.cache_write_tokens += record.cache_write_tokens;
    }

    /// The share of input tokens read from the cache (0–1); `None` with no input.
    #[allow(clippy::cast_precision_loss)] // token counts stay far below 2^52
    pub fn cache_hit_share(&self) -> Option<f64> {
        let all = self.input_tokens + self.cache_read_tokens + self.cache_write_tokens;
        (all > 0).then(|| self.cache_read_tokens as f64 / all as f64)
    }
}

/// How [`Summary::of`] splits the records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GroupBy {
    /// By [`super::UsageKind`].
    Kind,
    /// By job (`routine:daily`); work without one by its kind.
    Job,
    /// By model (`unknown` when the CLI didn't say).
    Model,
    /// By day in the owner's zone.
    Day,
}

/// A window's total and its split.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    /// The window's start.
    pub since: DateTime<Utc>,
    /// Everything in the window.
    pub total: Totals,
    /// The split: most expensive first, except by day (oldest first).
    pub groups: Vec<(String, Totals)>,
}

impl Summary {
    /// The records finished in `since..`, split `by` (days counted in `tz`).
    pub fn of(records: &[UsageRecord], since: DateTime<Utc>, by: GroupBy, tz: Tz) -> Self {
        let mut total = Totals::default();
        let mut groups: BTreeMap<String, Totals> = BTreeMap::new();
        for record in records.iter().filter(|r| r.at >= since) {
            total.add(record);
            groups
                .entry(group_name(record, by, tz))
                .or_default()
                .add(record);
        }
        let mut groups: Vec<(String, Totals)> = groups.into_iter().collect();
        if by != GroupBy::Day {
            groups.sort_by(|a, b| b.1.cost_usd.total_cmp(&a.1.cost_usd).then(a.0.cmp(&b.0)));
        }
        Self {
            since,
            total,
            groups,
        }
    }

    /// The `n` most expensive groups.
    pub fn top(&self, n: usize) -> &[(String, Totals)] {
        &self.groups[..n.min(self.groups.len())]
    }
}

fn group_name(record: &UsageRecord, by: GroupBy, tz: Tz) -> String {
    match by {
        GroupBy::Kind => record.kind.name().to_owned(),
        GroupBy::Job => record
            .job
            .clone()
            .unwrap_or_else(|| record.kind.name().to_owned()),
        GroupBy::Model => record.model.clone().unwrap_or_else(|| "unknown".to_owned()),
        GroupBy::Day => day_of(record.at, tz).to_string(),
    }
}

/// The owner's calendar day of `at`.
pub fn day_of(at: DateTime<Utc>, tz: Tz) -> NaiveDate {
    at.with_timezone(&tz).date_naive()
}

/// The first instant of `now`'s day in `tz` (midnight, or the day's first instant when a
/// clock change skips midnight).
pub fn day_start(now: DateTime<Utc>, tz: Tz) -> DateTime<Utc> {
    let midnight = day_of(now, tz).and_time(chrono::NaiveTime::MIN);
    // Clock changes happen on a whole minute: the first minute of the day that exists is
    // where the day starts (issue 40 §1: a skipped midnight; CLK-2).
    (0..24 * 60)
        .map(|minute| midnight + chrono::Duration::minutes(minute))
        .find_map(|local| tz.from_local_datetime(&local).earliest())
        .map_or(now, |start| start.with_timezone(&Utc).min(now))
}

/// Dollars background work (routines, reminders, webhooks, screening) spent on `day` in
/// `tz` (USE-6).
pub fn background_spent_on(records: &[UsageRecord], day: NaiveDate, tz: Tz) -> f64 {
    records
        .iter()
        .filter(|r| r.kind.is_background() && day_of(r.at, tz) == day)
        .map(|r| r.cost_usd)
        .sum()
}

#[cfg(test)]
#[path = "summary_tests.rs"]
mod tests;
