//! The daily ceiling for work nobody asked for (USE-6): what background runs spent today in
//! the owner's zone, from the usage ledger, against `bg_daily_budget`. Once it is reached,
//! scheduled background fires wait for the next day (a routine's fire is skipped, a reminder
//! keeps its file and fires after midnight) and the owner hears it once that day. What the
//! owner starts (replies, buttons, `/fork`, held webhooks they run) never passes through here.

use chrono::{DateTime, NaiveDate, Utc};

use crate::{
    front_end::FrontEnd,
    services::Services,
    state::told::ToldMarks,
    usage::{
        UsageLedger,
        summary::{background_spent_on, day_of, day_start},
    },
};

/// Today's background spend has reached the budget.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OverBudget {
    /// The owner's day.
    pub day: NaiveDate,
    /// Spent on background work that day, in dollars.
    pub spent: f64,
    /// The budget, in cents.
    pub limit_cents: u64,
}

impl OverBudget {
    /// The budget as the owner reads it.
    pub fn limit(&self) -> String {
        format!("${}.{:02}", self.limit_cents / 100, self.limit_cents % 100)
    }

    /// What the owner is told, once that day.
    pub fn notice(&self) -> String {
        format!(
            "Background work has spent ${:.2} today, which reaches today's budget of {}: \
             routines are skipped; reminders and webhook requests wait until tomorrow. What \
             you start yourself still runs. `/config bg_daily_budget 10` raises the budget; `off` lifts it.",
            self.spent,
            self.limit()
        )
    }
}

/// Whether `spent` dollars reach a budget of `limit_cents` (`None`: no budget).
pub fn reached(spent: f64, limit_cents: Option<u64>) -> bool {
    #[allow(clippy::cast_precision_loss)] // a budget in cents stays far below 2^52
    limit_cents.is_some_and(|cents| spent * 100.0 >= cents as f64)
}

/// `Some` when background work may not start at `now`: the budget is set and today's
/// background spend has reached it. Waits for the usage records queued so far.
pub async fn over_budget(services: &Services, now: DateTime<Utc>) -> Option<OverBudget> {
    let limit_cents = services.runtime.current().bg_daily_budget_cents?;
    services.usage.flush().await;
    let tz = services.config.timezone;
    let day = day_of(now, tz);
    let start = day_start(now, tz);
    let ledger = UsageLedger::new(services.data_dir.usage_dir());
    let records = match ledger.read_since(start) {
        Ok(read) => read.records,
        Err(error) => {
            tracing::warn!(%error, "the usage ledger can't be read; the budget isn't checked");
            return None;
        }
    };
    let spent = background_spent_on(&records, day, tz);
    reached(spent, Some(limit_cents)).then_some(OverBudget {
        day,
        spent,
        limit_cents,
    })
}

/// The gate, with the day the owner was last told (kept in `state/told.json`, so a restart
/// doesn't tell again, KEEP-5).
#[derive(Debug)]
pub struct DailyBudget {
    told: ToldMarks,
}

impl DailyBudget {
    /// The gate, keeping what the owner was told in `told`.
    pub fn new(told: ToldMarks) -> Self {
        Self { told }
    }

    /// `Some` when background work may not start at `now` ([`over_budget`]).
    pub async fn check(&self, services: &Services, now: DateTime<Utc>) -> Option<OverBudget> {
        over_budget(services, now).await
    }

    /// Tells the owner through `front_end` that background work is over budget, the first
    /// time that day.
    pub async fn tell_once(&self, front_end: &dyn FrontEnd, over: &OverBudget) {
        if !self.first_today(over) {
            return;
        }
        tracing::info!(spent = over.spent, limit = %over.limit(), "today's background budget is spent; background runs wait");
        if let Err(error) = front_end.send_text(over.notice()).await {
            tracing::warn!(%error, "could not tell the owner about the budget");
        }
    }

    /// Whether `over` is the first time the owner would hear of it that day (and marks it).
    fn first_today(&self, over: &OverBudget) -> bool {
        let day = over.day.to_string();
        self.told.first("bg_budget", &day)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_is_reached_at_its_amount_and_never_when_off() {
        assert!(!reached(0.09, Some(10)));
        assert!(reached(0.10, Some(10)));
        assert!(reached(3.0, Some(10)));
        assert!(!reached(1_000.0, None));
    }

    #[test]
    fn the_owner_hears_it_once_a_day() {
        let dir = tempfile::tempdir().unwrap();
        let budget = DailyBudget::new(ToldMarks::new(dir.path().join("told.json")));
        let day = NaiveDate::from_ymd_opt(2026, 11, 27).unwrap();
        let over = OverBudget {
            day,
            spent: 0.42,
            limit_cents: 10,
        };
        assert!(budget.first_today(&over));
        assert!(!budget.first_today(&over));
        let next = OverBudget {
            day: day.succ_opt().unwrap(),
            ..over
        };
        assert!(budget.first_today(&next));
        assert!(over.notice().contains("$0.42 today"));
        assert!(over.notice().contains("budget of $0.10"));
    }
}
