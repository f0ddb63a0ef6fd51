//! What `/cost` says from the ledger (USE-3): today, 7 and 30 days, the 30 days split by kind,
//! the five most expensive jobs and the cache's share of input; and the greeting's line of
//! yesterday and the week so far (USE-8). Plain text from records and an injected `now`.

use std::fmt::Write as _;

use chrono::{DateTime, Datelike as _, Duration, Utc};
use chrono_tz::Tz;

use super::{
    UsageKind, UsageRecord,
    summary::{GroupBy, Summary, day_start},
};

/// How many jobs the report names.
const TOP_JOBS: usize = 5;

/// The ledger's part of `/cost` for `records` (the last 30 days or more) at `now` in `tz`.
pub fn cost_report(records: &[UsageRecord], now: DateTime<Utc>, tz: Tz) -> String {
    let month_ago = now - Duration::days(30);
    let week_ago = now - Duration::days(7);
    let today_start = day_start(now, tz);
    let total = |since| Summary::of(records, since, GroupBy::Kind, tz).total;
    let month = Summary::of(records, month_ago, GroupBy::Kind, tz);
    if month.total.runs == 0 {
        return "**Spend**: nothing recorded in the last 30 days yet.".to_owned();
    }
    let mut text = format!(
        "**Spend**: today {} · 7 days {} · 30 days {}",
        dollars(total(today_start).cost_usd),
        dollars(total(week_ago).cost_usd),
        dollars(month.total.cost_usd),
    );
    let subagent = UsageKind::Subagent.name();
    let kinds: Vec<String> = month
        .groups
        .iter()
        .filter(|(kind, _)| kind != subagent)
        .map(|(kind, totals)| format!("{kind} {}", dollars(totals.cost_usd)))
        .collect();
    let _ = write!(text, "\n30 days by kind: {}", kinds.join(" · "));
    if let Some((_, totals)) = month.groups.iter().find(|(kind, _)| kind == subagent) {
        let _ = write!(
            text,
            "\nsubagents (their cost is in the above): {} call{}, {} tokens",
            totals.runs,
            if totals.runs == 1 { "" } else { "s" },
            thousands(
                totals.input_tokens
                    + totals.cache_read_tokens
                    + totals.cache_write_tokens
                    + totals.output_tokens
            )
        );
    }
    let jobs = Summary::of(records, month_ago, GroupBy::Job, tz);
    let top: Vec<String> = jobs
        .groups
        .iter()
        .filter(|(name, _)| name.contains(':') && !name.starts_with("subagent:"))
        .take(TOP_JOBS)
        .map(|(job, totals)| format!("{job} {}", dollars(totals.cost_usd)))
        .collect();
    if !top.is_empty() {
        let _ = write!(text, "\npriciest jobs (30 days): {}", top.join(" · "));
    }
    if let Some(share) = month.total.cache_hit_share() {
        let _ = write!(
            text,
            "\ncache: {:.0}% of input read from the cache (30 days)",
            share * 100.0
        );
    }
    text
}

/// The greeting's line (USE-8): yesterday's total and the week so far (since Monday, in the
/// owner's zone); `None` when nothing was recorded this week or yesterday.
pub fn greeting_line(records: &[UsageRecord], now: DateTime<Utc>, tz: Tz) -> Option<String> {
    let (yesterday, week) = yesterday_and_week(records, now, tz)?;
    Some(format!(
        "-# spend: yesterday {} · this week {}",
        dollars(yesterday),
        dollars(week)
    ))
}

/// What yesterday and the week so far (from Monday, in `tz`) cost; `None` when neither saw
/// any work.
fn yesterday_and_week(records: &[UsageRecord], now: DateTime<Utc>, tz: Tz) -> Option<(f64, f64)> {
    let today = day_start(now, tz);
    let yesterday = day_start(today - Duration::hours(12), tz);
    let weekday = i64::from(now.with_timezone(&tz).weekday().num_days_from_monday());
    let monday = day_start(today - Duration::days(weekday) + Duration::hours(12), tz);
    let spent = |from: DateTime<Utc>, to: DateTime<Utc>| -> Option<f64> {
        let window: Vec<&UsageRecord> = records
            .iter()
            .filter(|r| r.at >= from && r.at < to)
            .collect();
        (!window.is_empty()).then(|| window.iter().map(|r| r.cost_usd).sum())
    };
    let yesterday_spent = spent(yesterday, today);
    let week_spent = spent(monday, now + Duration::seconds(1));
    if yesterday_spent.is_none() && week_spent.is_none() {
        return None;
    }
    Some((
        yesterday_spent.unwrap_or_default(),
        week_spent.unwrap_or_default(),
    ))
}

/// The ledger's report as of `now` in `tz`, read from the ledger in `dir`: [`cost_report`],
/// its spend line also giving yesterday and the week so far; a ledger that can't be read says
/// so.
/// What `/cost` shows under the session's line and the `spend_report` tool answers (USE-3,
/// USE-8).
pub fn ledger_report(dir: &std::path::Path, now: DateTime<Utc>, tz: Tz) -> String {
    let ledger = super::UsageLedger::new(dir);
    match ledger.read_since(now - Duration::days(31)) {
        Ok(read) => {
            let report = cost_report(&read.records, now, tz);
            // One spend line: yesterday and the week so far go beside today's figure.
            match (
                yesterday_and_week(&read.records, now, tz),
                report.split_once(" · "),
            ) {
                (Some((yesterday, week)), Some((today, rest))) => format!(
                    "{today} · yesterday {} · this week {} · {rest}",
                    dollars(yesterday),
                    dollars(week)
                ),
                _ => report,
            }
        }
        Err(error) => format!("**Spend**: the usage ledger can't be read ({error})."),
    }
}

/// A token count as the owner reads it: `950`, `12.3k`, `4.1M`.
#[allow(clippy::cast_precision_loss)] // a rounded figure for reading
fn thousands(count: u64) -> String {
    match count {
        0..1_000 => count.to_string(),
        1_000..1_000_000 => format!("{:.1}k", count as f64 / 1e3),
        _ => format!("{:.1}M", count as f64 / 1e6),
    }
}

/// Dollars as the owner reads them: cents, or four places under a cent.
fn dollars(amount: f64) -> String {
    if amount > 0.0 && amount < 0.01 {
        format!("${amount:.4}")
    } else {
        format!("${amount:.2}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(at: &str, kind: UsageKind, job: Option<&str>, cost: f64) -> UsageRecord {
        UsageRecord::example(at.parse().unwrap(), kind, job, cost)
    }

    #[test]
    fn today_the_week_and_the_month_with_the_split_and_the_priciest_jobs() {
        let now: DateTime<Utc> = "2026-11-27T20:00:00Z".parse().unwrap();
        let records = [
            record("2026-11-27T09:00:00Z", UsageKind::Main, None, 0.10),
            record(
                "2026-11-25T09:00:00Z",
                UsageKind::Routine,
                Some("routine:daily"),
                1.00,
            ),
            record(
                "2026-11-10T09:00:00Z",
                UsageKind::Webhook,
                Some("webhook:ci"),
                2.00,
            ),
            record("2026-09-01T09:00:00Z", UsageKind::Main, None, 50.0),
        ];
        let text = cost_report(&records, now, chrono_tz::UTC);
        assert_eq!(
            text,
            "**Spend**: today $0.10 · 7 days $1.10 · 30 days $3.10\n\
             30 days by kind: webhook $2.00 · routine $1.00 · main $0.10\n\
             priciest jobs (30 days): webhook:ci $2.00 · routine:daily $1.00\n\
             cache: 75% of input read from the cache (30 days)"
        );
        // The owner's day, not UTC's: at 20:00 UTC it is already the 28th in Tokyo.
        let tokyo = cost_report(&records, now, chrono_tz::Asia::Tokyo);
        assert!(tokyo.starts_with("**Spend**: today $0.00 · "), "{tokyo}");
        assert_eq!(
            cost_report(&[], now, chrono_tz::UTC),
            "**Spend**: nothing recorded in the last 30 days yet."
        );
    }

    #[test]
    fn the_greeting_says_yesterday_and_the_week_so_far() {
        // Friday 27 November 2026.
        let now: DateTime<Utc> = "2026-11-27T20:00:00Z".parse().unwrap();
        let records = [
            record("2026-11-27T09:00:00Z", UsageKind::Main, None, 0.10),
            record(
                "2026-11-26T09:00:00Z",
                UsageKind::Routine,
                Some("routine:daily"),
                1.00,
            ),
            record("2026-11-23T01:00:00Z", UsageKind::Main, None, 0.05),
            record("2026-11-22T23:00:00Z", UsageKind::Main, None, 9.00),
        ];
        assert_eq!(
            greeting_line(&records, now, chrono_tz::UTC).as_deref(),
            Some("-# spend: yesterday $1.00 · this week $1.15")
        );
        let long_ago = [record("2026-10-01T09:00:00Z", UsageKind::Main, None, 1.0)];
        assert_eq!(greeting_line(&long_ago, now, chrono_tz::UTC), None);
    }

    /// `/cost` and `spend_report` give the spend on one line, yesterday and the week beside
    /// today's figure, not a second spend line above it.
    #[test]
    fn the_ledger_report_has_one_spend_line() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = super::super::UsageLedger::new(dir.path());
        let now: DateTime<Utc> = "2026-11-27T20:00:00Z".parse().unwrap();
        for (at, cost) in [
            ("2026-11-27T09:00:00Z", 0.10),
            ("2026-11-26T09:00:00Z", 1.00),
        ] {
            ledger
                .append(&record(at, UsageKind::Main, None, cost))
                .unwrap();
        }
        let text = ledger_report(dir.path(), now, chrono_tz::UTC);
        assert!(
            text.starts_with(
                "**Spend**: today $0.10 · yesterday $1.00 · this week $1.10 · 7 days $1.10 · \
                 30 days $1.10\n"
            ),
            "{text}"
        );
        assert_eq!(text.matches("pend").count(), 1, "{text}");
    }

    /// USE-1: subagents' records show as tokens beside the kinds, never as a $0.00 kind or
    /// a job of their own among the priciest.
    #[test]
    fn subagents_show_as_tokens_inside_the_work_they_ran_in() {
        let now: DateTime<Utc> = "2026-11-27T20:00:00Z".parse().unwrap();
        let mut helper = record(
            "2026-11-27T10:00:00Z",
            UsageKind::Subagent,
            Some("subagent:gmail-reader"),
            0.0,
        );
        helper.input_tokens = 12_000;
        let records = [
            record("2026-11-27T10:00:00Z", UsageKind::Main, None, 0.5),
            helper,
        ];
        let text = cost_report(&records, now, chrono_tz::UTC);
        assert!(text.contains("30 days by kind: main $0.50\n"), "{text}");
        assert!(
            text.contains("subagents (their cost is in the above): 1 call, 12.3k tokens"),
            "{text}"
        );
        assert!(!text.contains("subagent:gmail-reader"), "{text}");
        assert_eq!(thousands(950), "950");
        assert_eq!(thousands(4_100_000), "4.1M");
    }

    #[test]
    fn amounts_under_a_cent_keep_their_digits() {
        assert_eq!(dollars(0.0042), "$0.0042");
        assert_eq!(dollars(0.0), "$0.00");
        assert_eq!(dollars(12.345), "$12.35");
    }
}
