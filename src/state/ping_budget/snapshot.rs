//! What the budget reports: the snapshot after refill and its status texts (PNG-8).

/// The budget after refill and day reset, as reported to the agent and the owner.
#[derive(Debug, Clone, PartialEq)]
pub struct BudgetSnapshot {
    /// Tokens the budget holds when full.
    pub capacity: u32,
    /// Tokens available now, fractional while refilling (`0.0..=capacity`).
    pub available: f64,
    /// Minutes per refilled token.
    pub refill_rate_minutes: u32,
    /// Non-critical pings sent today (configured zone).
    pub daily_used: u32,
    /// Critical pings that bypassed the budget today (PNG-6).
    pub critical_used: u32,
}

impl BudgetSnapshot {
    /// Whole tokens available: `floor(available)` (PNG-8 `<avail>`).
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // clamped to >= 0 and floored; `as` saturates
    pub fn whole_available(&self) -> u32 {
        self.available.max(0.0).floor() as u32
    }

    /// Minutes until the next token arrives; `None` at capacity (PNG-8).
    ///
    /// `ceil((1 - frac(available)) * rate)`, which is the full rate when `available` is whole.
    /// A tiny tolerance absorbs float noise so e.g. `2 + 1/3` tokens at 90 min reads 60, not 61.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // a ceil in 0..=rate; `as` saturates, then clamped
    pub fn minutes_to_next_refill(&self) -> Option<u32> {
        if self.available >= f64::from(self.capacity) {
            return None;
        }
        let rate = self.refill_rate_minutes.max(1);
        let frac = self.available - self.available.floor();
        let minutes = ((1.0 - frac) * f64::from(rate) - 1e-9).ceil();
        Some((minutes as u32).clamp(1, rate))
    }

    /// The preamble form (PNG-8, F-9):
    /// `3/5 available (refills 1 every 90 min, next in 45 min)`; at capacity the
    /// `, next in <m> min` part is left out.
    pub fn preamble_status(&self) -> String {
        let next = self.minutes_to_next_refill();
        let next = next.map_or_else(String::new, |m| format!(", next in {m} min"));
        let (avail, cap, rate) = (
            self.whole_available(),
            self.capacity,
            self.refill_rate_minutes,
        );
        format!("{avail}/{cap} available (refills 1 every {rate} min{next})")
    }

    /// The `/ping-budget` compact form (PNG-8): `budget: 3/5 (next refill in 42 min)`, or just
    /// `budget: 5/5` at capacity.
    pub fn compact_status(&self) -> String {
        let next = self.minutes_to_next_refill();
        let next = next.map_or_else(String::new, |m| format!(" (next refill in {m} min)"));
        format!("budget: {}/{}{next}", self.whole_available(), self.capacity)
    }

    /// The extended form (PNG-8, F-39): the compact form, then `used today: <n>` and
    /// `critical bypasses: <n> (urgent overrides, not deducted from budget)` when non-zero,
    /// joined with `. ` and ending with exactly one `.`, e.g.
    /// `budget: 3/5 (next refill in 42 min). used today: 2.` or `budget: 5/5.`.
    pub fn extended_status(&self) -> String {
        let mut parts = vec![self.compact_status()];
        if self.daily_used > 0 {
            parts.push(format!("used today: {}", self.daily_used));
        }
        if self.critical_used > 0 {
            parts.push(format!(
                "critical bypasses: {} (urgent overrides, not deducted from budget)",
                self.critical_used
            ));
        }
        // No part ends with a period, so this never produces `..` (F-39).
        format!("{}.", parts.join(". "))
    }
}
