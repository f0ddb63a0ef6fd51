use std::time::Instant;

use chrono::{DateTime, TimeZone, Utc};

use super::*;

fn at(day: u32, hour: u32, minute: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, day, hour, minute, 0)
        .unwrap()
}

fn date(day: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 11, day).unwrap()
}

fn record(at: DateTime<Utc>, kind: UsageKind, cost: f64) -> UsageRecord {
    UsageRecord::example(at, kind, None, cost)
}

/// The decoded RGB pixels of a PNG, and its size.
fn decode(bytes: &[u8]) -> (Vec<u8>, u32, u32) {
    let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    let mut reader = decoder.read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut pixels).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgb);
    pixels.truncate(info.buffer_size());
    (pixels, info.width, info.height)
}

fn pixels_of(pixels: &[u8], colour: RGBColor) -> usize {
    pixels
        .chunks_exact(3)
        .filter(|p| *p == [colour.0, colour.1, colour.2])
        .count()
}

/// The kinds whose colour is somewhere in pixel column `x` of an RGB image `width` wide.
fn kinds_in_column(pixels: &[u8], width: u32, x: i32) -> Vec<UsageKind> {
    let row = width as usize * 3;
    let x = usize::try_from(x).unwrap() * 3;
    UsageKind::ALL
        .into_iter()
        .filter(|kind| {
            let c = colour(*kind);
            pixels
                .chunks_exact(row)
                .any(|line| line[x..x + 3] == [c.0, c.1, c.2])
        })
        .collect()
}

#[test]
fn every_day_is_there_and_a_record_lands_on_its_owner_zone_day() {
    let records = vec![
        // 23:30 UTC on the 26th is 08:30 on the 27th in Tokyo.
        record(at(26, 23, 30), UsageKind::Main, 1.5),
        record(at(27, 1, 0), UsageKind::Main, 0.5),
        record(at(27, 2, 0), UsageKind::Webhook, 0.25),
        // Outside the window, either side.
        record(at(20, 12, 0), UsageKind::Routine, 9.0),
        record(at(29, 12, 0), UsageKind::Routine, 9.0),
    ];
    let days = daily_spend(&records, date(25), date(28), chrono_tz::Asia::Tokyo);
    let dates: Vec<NaiveDate> = days.iter().map(|d| d.day).collect();
    assert_eq!(dates, [date(25), date(26), date(27), date(28)]);
    assert!(days[0].by_kind.is_empty());
    assert!(
        days[1].by_kind.is_empty(),
        "23:30 UTC is the next day in Tokyo"
    );
    assert_eq!(
        days[2].by_kind,
        BTreeMap::from([(UsageKind::Main, 2.0), (UsageKind::Webhook, 0.25)])
    );
    assert!(days[3].by_kind.is_empty());

    let in_utc = daily_spend(&records, date(25), date(28), chrono_tz::UTC);
    assert_eq!(in_utc[1].by_kind, BTreeMap::from([(UsageKind::Main, 1.5)]));
}

#[test]
fn a_window_ending_before_it_starts_is_empty_and_does_not_draw() {
    assert!(daily_spend(&[], date(28), date(27), chrono_tz::UTC).is_empty());
    assert!(matches!(render_png(&[]), Err(ChartError::NoDays)));
}

#[test]
fn the_png_has_the_chart_size_and_bars_in_each_kind_s_colour_on_their_day() {
    let records = vec![
        record(at(25, 12, 0), UsageKind::Main, 2.0),
        record(at(25, 13, 0), UsageKind::Routine, 1.0),
        // The 26th spends nothing.
        record(at(27, 12, 0), UsageKind::Webhook, 1.5),
        record(at(27, 13, 0), UsageKind::Screening, 0.5),
    ];
    let days = daily_spend(&records, date(14), date(27), chrono_tz::UTC);
    assert_eq!(days.len(), 14);

    let bytes = render_png(&days).unwrap();
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"));
    let (pixels, width, height) = decode(&bytes);
    assert_eq!((width, height), SIZE);

    for kind in UsageKind::ALL {
        let count = pixels_of(&pixels, colour(kind));
        let spent = matches!(
            kind,
            UsageKind::Main | UsageKind::Routine | UsageKind::Webhook | UsageKind::Screening
        );
        assert_eq!(count > 0, spent, "{} has {count} pixels", kind.name());
    }

    let mut again = vec![0; pixels.len()];
    let bars = draw(&days, &mut again).unwrap();
    assert_eq!(again, pixels, "drawing is deterministic");
    let middle = |day: usize| i32::midpoint(bars[day].0, bars[day].1);
    assert_eq!(
        kinds_in_column(&pixels, width, middle(11)),
        [UsageKind::Main, UsageKind::Routine]
    );
    assert_eq!(kinds_in_column(&pixels, width, middle(12)), []);
    assert_eq!(
        kinds_in_column(&pixels, width, middle(13)),
        [UsageKind::Webhook, UsageKind::Screening]
    );
    assert!(bars.windows(2).all(|w| w[0].1 < w[1].0), "oldest left");
}

#[test]
fn a_window_without_spend_still_draws() {
    let days = daily_spend(&[], date(1), date(30), chrono_tz::UTC);
    let (pixels, width, height) = decode(&render_png(&days).unwrap());
    assert_eq!((width, height), SIZE);
    assert!(
        UsageKind::ALL
            .into_iter()
            .all(|kind| pixels_of(&pixels, colour(kind)) == 0)
    );
    assert!(
        pixels.chunks_exact(3).any(|p| p == [0, 0, 0]),
        "axes and text"
    );
    assert!(
        days[0].total().is_sign_positive(),
        "no \"$-0.00\" in the title"
    );
}

#[test]
fn a_single_day_draws() {
    let records = vec![record(at(27, 12, 0), UsageKind::Fork, 0.3)];
    let days = daily_spend(&records, date(27), date(27), chrono_tz::UTC);
    let (pixels, _, _) = decode(&render_png(&days).unwrap());
    assert!(pixels_of(&pixels, colour(UsageKind::Fork)) > 0);
}

#[test]
fn the_y_axis_tops_at_a_round_sum_above_the_most_expensive_day() {
    assert!((nice_top(0.0) - 1.0).abs() < f64::EPSILON);
    assert!((nice_top(0.9) - 1.0).abs() < f64::EPSILON);
    assert!((nice_top(1.0) - 1.2).abs() < 1e-12);
    assert!((nice_top(2.3) - 2.5).abs() < 1e-12);
    assert!((nice_top(3.1) - 4.0).abs() < 1e-12);
    assert!((nice_top(0.012) - 0.015).abs() < 1e-12);
    assert!((nice_top(48.0) - 60.0).abs() < 1e-12);
    assert!((nice_top(f64::NAN) - 1.0).abs() < f64::EPSILON);
}

#[test]
fn thirty_days_render_quickly() {
    let records: Vec<UsageRecord> = (1..=30)
        .flat_map(|day| {
            (1..=6u32).zip(UsageKind::ALL).map(move |(i, kind)| {
                record(at(day, 12, 0), kind, f64::from(day % 7 + 1 + i) * 0.1)
            })
        })
        .collect();
    let days = daily_spend(&records, date(1), date(30), chrono_tz::UTC);
    render_png(&days).unwrap(); // the font's registration is not what this measures
    let started = Instant::now();
    let bytes = render_png(&days).unwrap();
    println!(
        "render_png of 30 days: {:?}, {} bytes",
        started.elapsed(),
        bytes.len()
    );
}
