//! What a message carries besides its text, drawn: embeds (colour bar, title, description,
//! fields, footer) and rows of buttons or menus.

use std::fmt::Write as _;

use serde_json::Value;

use super::text::{Line, Style, width, wrap};
use super::{BLURPLE, BRIGHT, Canvas, EMBED_MAX, LEFT, MUTED, TEXT, esc, line_width};

impl Canvas {
    /// An embed: its colour bar, title, description, fields and footer in a dark box as wide
    /// as its text needs, at most `EMBED_MAX`.
    pub(super) fn embed(&mut self, embed: &Value) {
        let inner = EMBED_MAX - 36.0;
        let get = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_owned);
        let mut blocks: Vec<(Vec<Line>, f32, f32, &str, f32)> = Vec::new();
        if let Some(title) = get(embed, "title") {
            blocks.push((
                wrap(&format!("**{title}**"), inner, 16.0),
                16.0,
                22.0,
                BRIGHT,
                4.0,
            ));
        }
        if let Some(text) = get(embed, "description") {
            blocks.push((wrap(&text, inner, 14.0), 14.0, 20.0, TEXT, 4.0));
        }
        for field in embed
            .get("fields")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let name = get(field, "name").unwrap_or_default();
            let value = get(field, "value").unwrap_or_default();
            blocks.push((
                wrap(&format!("**{name}**"), inner, 14.0),
                14.0,
                20.0,
                BRIGHT,
                8.0,
            ));
            blocks.push((wrap(&value, inner, 14.0), 14.0, 20.0, TEXT, 0.0));
        }
        if let Some(footer) = embed.get("footer").and_then(|f| get(f, "text")) {
            blocks.push((wrap(&footer, inner, 12.0), 12.0, 18.0, MUTED, 8.0));
        }
        let widest = blocks
            .iter()
            .flat_map(|(lines, size, ..)| lines.iter().map(move |l| line_width(l, *size)))
            .fold(0.0_f32, f32::max);
        let box_width = (widest + 36.0).clamp(200.0, EMBED_MAX).round();
        let text_height: f32 = blocks
            .iter()
            .map(|(lines, _, step, _, gap)| gap + lines.iter().map(|_| step).sum::<f32>())
            .sum();
        let top = self.y + 6.0;
        let height = text_height + 24.0 - blocks.first().map_or(0.0, |b| b.4);
        let colour = embed
            .get("color")
            .and_then(Value::as_u64)
            .map_or_else(|| "#1e1f22".to_owned(), |c| format!("#{c:06x}"));
        let _ = write!(
            self.body,
            r##"<rect x="{LEFT}" y="{top}" width="{box_width}" height="{height}" rx="4" fill="#2b2d31"/><rect x="{LEFT}" y="{top}" width="4" height="{height}" rx="2" fill="{colour}"/>"##
        );
        self.y = top + 12.0 - blocks.first().map_or(0.0, |b| b.4);
        for (lines, size, step, fill, gap) in &blocks {
            self.y += gap;
            self.lines(lines, LEFT + 16.0, *size, *step, fill);
        }
        self.y = top + height;
    }

    /// One row of buttons (or a menu).
    pub(super) fn row(&mut self, parts: &[Value]) {
        let top = self.y + 8.0;
        let mut x = LEFT;
        for part in parts {
            let label = part
                .get("label")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let emoji = part
                .get("emoji")
                .and_then(|e| e.get("name"))
                .and_then(Value::as_str);
            let shown = match emoji {
                Some(emoji) if label.is_empty() => emoji.to_owned(),
                Some(emoji) => format!("{emoji} {label}"),
                None => label.to_owned(),
            };
            if part.get("type").and_then(Value::as_u64) != Some(2) {
                self.menu(part, x, top);
                x += 408.0;
                continue;
            }
            let bold = Style {
                bold: true,
                ..Style::default()
            };
            let w = (width(&shown, bold, 14.0) + 32.0).round();
            let fill = match part.get("style").and_then(Value::as_u64) {
                Some(1) => BLURPLE,
                Some(3) => "#248046",
                Some(4) => "#da373c",
                _ => "#4e5058",
            };
            let dim = if part.get("disabled").and_then(Value::as_bool) == Some(true) {
                r#" opacity="0.5""#
            } else {
                ""
            };
            let _ = write!(
                self.body,
                r##"<g{dim}><rect x="{x}" y="{top}" width="{w}" height="32" rx="4" fill="{fill}"/><text x="{tx}" y="{ty}" font-size="14" font-weight="600" fill="#ffffff" text-anchor="middle">{s}</text></g>"##,
                tx = x + w / 2.0,
                ty = top + 21.0,
                s = esc(&shown),
            );
            x += w + 8.0;
        }
        self.y = top
            + if parts.iter().any(is_button) {
                32.0
            } else {
                40.0
            };
    }

    /// A select menu: a dark box with its placeholder.
    fn menu(&mut self, part: &Value, x: f32, top: f32) {
        let placeholder = part
            .get("placeholder")
            .and_then(Value::as_str)
            .unwrap_or("Make a selection");
        let _ = write!(
            self.body,
            r##"<rect x="{x}" y="{top}" width="400" height="40" rx="4" fill="#1e1f22" stroke="#3f4147"/><text x="{tx}" y="{ty}" font-size="15" fill="{MUTED}">{p}</text><text x="{cx}" y="{ty}" font-size="15" fill="{TEXT}">⌄</text>"##,
            tx = x + 12.0,
            ty = top + 25.0,
            cx = x + 376.0,
            p = esc(placeholder),
        );
    }
}

fn is_button(part: &Value) -> bool {
    part.get("type").and_then(Value::as_u64) == Some(2)
}
