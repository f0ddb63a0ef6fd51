//! A chart of daily spend by kind (USE-5): one stacked bar per day of a window, oldest left,
//! each split by [`UsageKind`], drawn in-process into a PNG small enough for a Discord
//! attachment. Text uses an embedded `DejaVu Sans` face, so no system font is needed.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use chrono::NaiveDate;
use chrono_tz::Tz;
use plotters::backend::RGBPixel;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{FontStyle, register_font};

use super::record::{UsageKind, UsageRecord};
use super::summary::day_of;

/// The chart's size in pixels: small enough for a Discord attachment, wide enough for 30 bars.
pub const SIZE: (u32, u32) = (800, 400);

/// The family name the embedded face is registered under; plotters' defaults use it too.
const FONT: &str = "sans-serif";
/// Width of the legend column right of the plot.
const LEGEND_WIDTH: u32 = 110;
/// At least this many pixels between the starts of two day labels.
const LABEL_SPACING: f64 = 42.0;
/// The part of a day's slot its bar fills.
const BAR_SHARE: f64 = 0.7;

/// One day's spend split by kind.
#[derive(Debug, Clone, PartialEq)]
pub struct DaySpend {
    /// The owner's calendar day.
    pub day: NaiveDate,
    /// Dollars per kind; kinds without records that day are absent.
    pub by_kind: BTreeMap<UsageKind, f64>,
}

impl DaySpend {
    /// Dollars of every kind that day.
    pub fn total(&self) -> f64 {
        // A fold from +0, as `sum` of nothing is -0 and would print as "$-0.00".
        self.by_kind.values().fold(0.0, |sum, v| sum + v)
    }
}

/// Why a chart couldn't be drawn.
#[derive(Debug, thiserror::Error)]
pub enum ChartError {
    /// There were no days to draw.
    #[error("no days to chart")]
    NoDays,
    /// The embedded font couldn't be read.
    #[error("the chart's embedded font is unusable")]
    Font,
    /// Drawing failed.
    #[error("drawing the chart failed: {0}")]
    Draw(String),
    /// Encoding the pixels as PNG failed.
    #[error("encoding the chart as PNG failed: {0}")]
    Encode(#[from] png::EncodingError),
    /// The ledger couldn't be read.
    #[error(transparent)]
    Ledger(#[from] super::LedgerError),
}

/// The days from `first` to `last` (inclusive, every day present, days without spend too)
/// from `records`, each record on its day in `tz`; empty when `first` is after `last`.
pub fn daily_spend(
    records: &[UsageRecord],
    first: NaiveDate,
    last: NaiveDate,
    tz: Tz,
) -> Vec<DaySpend> {
    let mut days: BTreeMap<NaiveDate, BTreeMap<UsageKind, f64>> = first
        .iter_days()
        .take_while(|day| *day <= last)
        .map(|day| (day, BTreeMap::new()))
        .collect();
    for record in records {
        if let Some(by_kind) = days.get_mut(&day_of(record.at, tz)) {
            *by_kind.entry(record.kind).or_default() += record.cost_usd;
        }
    }
    days.into_iter()
        .map(|(day, by_kind)| DaySpend { day, by_kind })
        .collect()
}

/// The chart of the last `days` days up to `now`'s day in `tz`, from the ledger in `dir`;
/// `None` when nothing was spent in them (an empty chart says nothing).
pub fn ledger_chart(
    dir: &std::path::Path,
    now: chrono::DateTime<chrono::Utc>,
    tz: Tz,
    days: u32,
) -> Result<Option<Vec<u8>>, ChartError> {
    let read = super::UsageLedger::new(dir).read_since(chart_start(now, tz, days))?;
    recent_chart(&read.records, now, tz, days)
}

/// The first instant the chart of the last `days` days up to `now`'s day needs records from.
pub fn chart_start(
    now: chrono::DateTime<chrono::Utc>,
    tz: Tz,
    days: u32,
) -> chrono::DateTime<chrono::Utc> {
    super::summary::day_start(now, tz) - chrono::Duration::days(i64::from(days.max(1) - 1))
}

/// [`ledger_chart`] from records already read (from [`chart_start`] on, or earlier).
pub fn recent_chart(
    records: &[UsageRecord],
    now: chrono::DateTime<chrono::Utc>,
    tz: Tz,
    days: u32,
) -> Result<Option<Vec<u8>>, ChartError> {
    let last = day_of(now, tz);
    let first = last - chrono::Days::new(u64::from(days.max(1) - 1));
    let spend = daily_spend(records, first, last, tz);
    if spend.iter().all(|day| day.total() <= 0.0) {
        return Ok(None);
    }
    render_png(&spend).map(Some)
}

/// The PNG bytes of the chart of `days` (oldest first), [`SIZE`] pixels, titled with the
/// window's length and total. CPU-bound for some milliseconds: async callers run it on a
/// blocking thread.
pub fn render_png(days: &[DaySpend]) -> Result<Vec<u8>, ChartError> {
    let (width, height) = SIZE;
    let mut pixels = vec![0u8; width as usize * height as usize * 3];
    draw(days, &mut pixels)?;
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(&pixels)?;
    writer.finish()?;
    Ok(bytes)
}

/// The fixed colour of a kind's bars and legend swatch, as RGB: distinct, saturated, and
/// never a grey, so no axis, grid line or antialiased text pixel takes it.
pub fn kind_rgb(kind: UsageKind) -> [u8; 3] {
    match kind {
        UsageKind::Main => [31, 119, 180],
        UsageKind::Fork => [255, 127, 14],
        UsageKind::Routine => [44, 160, 44],
        UsageKind::Reminder => [214, 39, 40],
        UsageKind::Webhook => [148, 103, 189],
        UsageKind::Screening => [23, 190, 207],
        UsageKind::Reflection => [227, 119, 194],
        UsageKind::Subagent => [188, 189, 34],
    }
}

/// [`kind_rgb`] as plotters draws it.
fn colour(kind: UsageKind) -> RGBColor {
    let [r, g, b] = kind_rgb(kind);
    RGBColor(r, g, b)
}

/// Registers the embedded face once per process; later calls return the first outcome.
fn ensure_font() -> Result<(), ChartError> {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    let ok = *REGISTERED
        .get_or_init(|| register_font(FONT, FontStyle::Normal, dejavu::sans::regular()).is_ok());
    if ok { Ok(()) } else { Err(ChartError::Font) }
}

fn drawing(error: impl std::fmt::Display) -> ChartError {
    ChartError::Draw(error.to_string())
}

/// Draws the chart into `pixels` (RGB, [`SIZE`]); returns each day's bar as its pixel
/// columns (left, right), for tests to look at.
fn draw(days: &[DaySpend], pixels: &mut [u8]) -> Result<Vec<(i32, i32)>, ChartError> {
    if days.is_empty() {
        return Err(ChartError::NoDays);
    }
    ensure_font()?;
    let backend =
        BitMapBackend::<RGBPixel>::with_buffer_and_format(pixels, SIZE).map_err(drawing)?;
    let root = backend.into_drawing_area();
    root.fill(&WHITE).map_err(drawing)?;
    let (plot, legend) = root.split_horizontally(SIZE.0 - LEGEND_WIDTH);

    let slots = count(days.len());
    let top = nice_top(days.iter().map(DaySpend::total).fold(0.0, f64::max));
    let total = days.iter().map(DaySpend::total).fold(0.0, |sum, v| sum + v);
    let title = match days.len() {
        1 => format!("Spend by kind, one day: ${total:.2}"),
        n => format!("Daily spend by kind, last {n} days: ${total:.2}"),
    };
    let mut chart = ChartBuilder::on(&plot)
        .caption(title, (FONT, 20))
        .margin(12)
        .x_label_area_size(28)
        .y_label_area_size(64)
        .build_cartesian_2d(0.0..slots, 0.0..top)
        .map_err(drawing)?;
    let dollars = |v: &f64| {
        if top > 10.0 {
            format!("${v:.0}")
        } else {
            format!("${v:.2}")
        }
    };
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_labels(6)
        .y_label_formatter(&dollars)
        .label_style((FONT, 13))
        .light_line_style(WHITE)
        .bold_line_style(RGBColor(225, 225, 225))
        .draw()
        .map_err(drawing)?;

    let mut bars = Vec::with_capacity(days.len());
    let mut slot = 0.0;
    for day in days {
        let (left, right) = (
            slot + (1.0 - BAR_SHARE) / 2.0,
            slot + 1.0 - (1.0 - BAR_SHARE) / 2.0,
        );
        let mut base = 0.0;
        let stack = UsageKind::ALL.iter().filter_map(|kind| {
            let spent = day.by_kind.get(kind).copied().filter(|v| *v > 0.0)?;
            let rect = Rectangle::new(
                [(left, base), (right, base + spent)],
                colour(*kind).filled(),
            );
            base += spent;
            Some(rect)
        });
        chart.draw_series(stack).map_err(drawing)?;
        bars.push((
            chart.backend_coord(&(left, 0.0)).0,
            chart.backend_coord(&(right, 0.0)).0,
        ));
        slot += 1.0;
    }

    let axis = chart.backend_coord(&(0.0, 0.0)).1;
    draw_day_labels(&root, days, &bars, axis + 6)?;
    draw_legend(&legend, days)?;
    root.present().map_err(drawing)?;
    Ok(bars)
}

/// The day labels (`11-27`) from pixel row `top` down, under the bars: the newest always,
/// older ones as often as they fit.
fn draw_day_labels(
    root: &DrawingArea<BitMapBackend<'_, RGBPixel>, Shift>,
    days: &[DaySpend],
    bars: &[(i32, i32)],
    top: i32,
) -> Result<(), ChartError> {
    let width = bars
        .last()
        .zip(bars.first())
        .map_or(0, |(last, first)| last.1 - first.0);
    let per_day = f64::from(width) / count(days.len()).max(1.0);
    let mut every = 1;
    while every < days.len() && per_day * count(every) < LABEL_SPACING {
        every += 1;
    }
    let style = TextStyle::from((FONT, 13).into_font()).pos(Pos::new(HPos::Center, VPos::Top));
    for (day, (left, right)) in days.iter().zip(bars).rev().step_by(every) {
        let label = day.day.format("%m-%d").to_string();
        root.draw_text(&label, &style, (i32::midpoint(*left, *right), top))
            .map_err(drawing)?;
    }
    Ok(())
}

/// The legend: a swatch and name for each kind that spent something in the window, in the
/// stacks' order read from the top.
fn draw_legend(
    area: &DrawingArea<BitMapBackend<'_, RGBPixel>, Shift>,
    days: &[DaySpend],
) -> Result<(), ChartError> {
    let style = TextStyle::from((FONT, 14).into_font()).pos(Pos::new(HPos::Left, VPos::Center));
    let spent = |kind: &&UsageKind| days.iter().any(|d| d.by_kind.get(kind) > Some(&0.0));
    let mut y = 60;
    for kind in UsageKind::ALL.iter().rev().filter(spent) {
        area.draw(&Rectangle::new(
            [(8, y - 6), (20, y + 6)],
            colour(*kind).filled(),
        ))
        .map_err(drawing)?;
        area.draw_text(kind.name(), &style, (28, y))
            .map_err(drawing)?;
        y += 24;
    }
    Ok(())
}

/// The y axis's top: a little above `max`, rounded up to a round multiple of a power of ten;
/// $1 for a window without spend.
fn nice_top(max: f64) -> f64 {
    if max.is_nan() || max <= 0.0 {
        return 1.0;
    }
    let wanted = max * 1.05;
    let mut power = 1.0;
    while power * 10.0 < wanted {
        power *= 10.0;
    }
    while power > wanted {
        power /= 10.0;
    }
    [1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0]
        .into_iter()
        .map(|m| m * power)
        .find(|top| *top >= wanted)
        .unwrap_or(power * 10.0)
}

#[allow(clippy::cast_precision_loss)] // a window's days stay far below 2^52
fn count(n: usize) -> f64 {
    n as f64
}

#[cfg(test)]
#[path = "chart_tests.rs"]
mod tests;
