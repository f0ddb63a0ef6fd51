//! A picture of a conversation the fake holds: messages of one DM, channel or thread drawn as
//! a self-contained SVG in the colours of Discord's dark theme (the README's pictures are made
//! this way, `tests/e2e/readme_pictures.rs`). It draws the heading (`@bot`, `# channel`, or
//! `# channel › thread`), each message's author (avatar, name, the APP tag on the bot's),
//! its text with simple markdown, its embeds (colour bar, title, description, fields, footer)
//! and its buttons and menus. Nothing drawn comes from an id or a clock, so the same
//! conversation draws the same picture; no font or image is fetched, and text is wrapped
//! here by estimated character widths (`picture/text.rs`). Embeds, buttons and menus:
//! `picture/cards.rs`.

mod cards;
mod text;

use std::fmt::Write as _;

use serde_json::Value;

use super::{FakeDiscord, FakeMessage, model::Place, state::Inner};
use text::{Kind, Line, SMALL, Style, width, wrap};

const WIDTH: f32 = 760.0;
/// Where a message's text starts, right of the avatar.
const LEFT: f32 = 72.0;
const EMBED_MAX: f32 = 520.0;
const FONT: &str = "'gg sans','Noto Sans','Helvetica Neue',Helvetica,Arial,sans-serif";
const MONO: &str = "'DejaVu Sans Mono',Consolas,Menlo,monospace";
const BACKGROUND: &str = "#313338";
const TEXT: &str = "#dbdee1";
const BRIGHT: &str = "#f2f3f5";
const MUTED: &str = "#949ba4";
const BLURPLE: &str = "#5865f2";

/// Where the messages are, as the heading names it.
enum Heading {
    Dm { with: String },
    Channel { name: String },
    Thread { channel: String, name: String },
}

/// Who wrote a message, as drawn.
struct Author {
    name: String,
    bot: bool,
}

impl FakeDiscord {
    /// `messages` (of `channel`, oldest first) as the owner sees them in Discord's dark theme:
    /// an SVG document. Pick the messages to show from [`Self::channel_messages`].
    pub fn picture(&self, channel: u64, messages: &[FakeMessage]) -> String {
        let (heading, authors) = {
            let inner = self.shared.lock();
            let authors: Vec<Author> = messages
                .iter()
                .map(|m| Author {
                    name: inner.user_name(m.author_id),
                    bot: m.by_bot,
                })
                .collect();
            (heading_of(&inner, channel), authors)
        };
        let mut canvas = Canvas::default();
        let mut last_author = None;
        for (message, author) in messages.iter().zip(&authors) {
            let grouped = last_author == Some(message.author_id);
            canvas.message(message, author, grouped);
            last_author = Some(message.author_id);
        }
        canvas.finish(&heading)
    }
}

fn heading_of(inner: &Inner, channel: u64) -> Heading {
    match inner.channels.get(&channel).map(|c| &c.place) {
        Some(Place::Text(text)) => Heading::Channel {
            name: text.name.clone(),
        },
        Some(Place::Thread(thread)) => Heading::Thread {
            channel: inner
                .text(thread.parent)
                .map_or_else(String::new, |t| t.name.clone()),
            name: thread.name.clone(),
        },
        Some(Place::Dm { .. }) | None => Heading::Dm {
            with: inner.cfg.bot_name.clone(),
        },
    }
}

/// The SVG being drawn: its elements so far and how far down they reach.
#[derive(Default)]
struct Canvas {
    body: String,
    y: f32,
}

impl Canvas {
    fn message(&mut self, m: &FakeMessage, author: &Author, grouped: bool) {
        if grouped {
            self.y += 6.0;
        } else {
            self.y += 18.0;
            self.author(author);
        }
        if !m.content.is_empty() {
            let lines = wrap(&m.content, WIDTH - LEFT - 24.0, 15.0);
            self.lines(&lines, LEFT, 15.0, 22.0, TEXT);
        }
        for file in &m.attachments {
            let name = file
                .get("filename")
                .and_then(Value::as_str)
                .unwrap_or("file");
            self.lines(
                &wrap(&format!("📎 {name}"), 600.0, 15.0),
                LEFT,
                15.0,
                22.0,
                TEXT,
            );
        }
        for embed in &m.embeds {
            self.embed(embed);
        }
        for row in &m.components {
            let parts = row.get("components").and_then(Value::as_array);
            self.row(parts.map_or(&[][..], Vec::as_slice));
        }
    }

    /// The avatar (a disc with the name's first letter), the name and the bot's APP tag.
    fn author(&mut self, author: &Author) {
        let y = self.y;
        let colour = avatar_colour(author);
        let initial: String = author
            .name
            .chars()
            .take(1)
            .flat_map(char::to_uppercase)
            .collect();
        let _ = write!(
            self.body,
            r##"<circle cx="36" cy="{cy}" r="20" fill="{colour}"/><text x="36" y="{ty}" font-size="18" font-weight="700" fill="#ffffff" text-anchor="middle">{i}</text>"##,
            cy = y + 20.0,
            ty = y + 26.0,
            i = esc(&initial),
        );
        let _ = write!(
            self.body,
            r#"<text x="{LEFT}" y="{ty}" font-size="16" font-weight="600" fill="{BRIGHT}">{n}</text>"#,
            ty = y + 16.0,
            n = esc(&author.name),
        );
        if author.bot {
            let bold = Style {
                bold: true,
                ..Style::default()
            };
            let x = (LEFT + width(&author.name, bold, 16.0) + 8.0).round();
            let _ = write!(
                self.body,
                r##"<rect x="{x}" y="{ry}" width="30" height="16" rx="3" fill="{BLURPLE}"/><text x="{tx}" y="{ty}" font-size="10" font-weight="700" fill="#ffffff" text-anchor="middle">APP</text>"##,
                ry = y + 3.0,
                tx = x + 15.0,
                ty = y + 15.0,
            );
        }
        self.y += 24.0;
    }

    /// Draws wrapped lines from `x`, one every `step` pixels.
    fn lines(&mut self, lines: &[Line], x: f32, size: f32, step: f32, fill: &str) {
        for line in lines {
            let (size, step, fill) = if line.small {
                (SMALL, 18.0, MUTED)
            } else {
                (size, step, fill)
            };
            let baseline = (self.y + step * 0.72).round();
            let x = if line.quoted {
                let _ = write!(
                    self.body,
                    r##"<rect x="{x}" y="{top}" width="4" height="{step}" rx="2" fill="#4e5058"/>"##,
                    top = self.y,
                );
                x + 16.0
            } else {
                x
            };
            let _ = write!(
                self.body,
                r#"<text x="{x}" y="{baseline}" font-size="{size}" fill="{fill}" xml:space="preserve">"#
            );
            for run in &line.runs {
                self.body.push_str(&tspan(&run.text, run.style));
            }
            self.body.push_str("</text>");
            self.y += step;
        }
    }

    /// The whole document: the background, the heading bar, the messages and the message box.
    fn finish(self, heading: &Heading) -> String {
        let top = 48.0;
        let height = (top + self.y + 24.0 + 44.0 + 24.0).round();
        let (title, placeholder) = match heading {
            Heading::Dm { with } => (
                format!(
                    r#"<tspan fill="{MUTED}" font-size="22">@</tspan><tspan fill="{BRIGHT}" font-weight="600"> {}</tspan>"#,
                    esc(with)
                ),
                format!("Message @{with}"),
            ),
            Heading::Channel { name } => (
                format!(
                    r#"<tspan fill="{MUTED}" font-size="22">#</tspan><tspan fill="{BRIGHT}" font-weight="600"> {}</tspan>"#,
                    esc(name)
                ),
                format!("Message #{name}"),
            ),
            Heading::Thread { channel, name } => (
                format!(
                    r#"<tspan fill="{MUTED}" font-size="22">#</tspan><tspan fill="{MUTED}" font-weight="600"> {}  ›  </tspan><tspan fill="{BRIGHT}" font-weight="600">{}</tspan>"#,
                    esc(channel),
                    esc(name)
                ),
                format!("Message {name}"),
            ),
        };
        let boxed = top + self.y + 24.0;
        format!(
            r##"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" font-family="{FONT}">
<rect width="{WIDTH}" height="{height}" rx="8" fill="{BACKGROUND}"/>
<text x="16" y="31" font-size="16" xml:space="preserve">{title}</text>
<rect y="47" width="{WIDTH}" height="1" fill="#1f2023"/>
<g transform="translate(0 {top})">{body}</g>
<rect x="16" y="{boxed}" width="{bw}" height="44" rx="8" fill="#383a40"/>
<text x="60" y="{by}" font-size="15" fill="#6d6f78">{p}</text>
<text x="28" y="{by}" font-size="20" fill="#b5bac1">⊕</text>
</svg>
"##,
            body = self.body,
            bw = WIDTH - 32.0,
            by = boxed + 28.0,
            p = esc(&placeholder),
        )
    }
}

fn line_width(line: &Line, size: f32) -> f32 {
    line.runs
        .iter()
        .map(|r| width(&r.text, r.style, size))
        .sum()
}

/// A run of text as a `<tspan>` in its style.
fn tspan(text: &str, style: Style) -> String {
    let mut attributes = String::new();
    if style.bold {
        attributes.push_str(r#" font-weight="700""#);
    }
    if style.italic {
        attributes.push_str(r#" font-style="italic""#);
    }
    if style.kind == Kind::Code {
        let _ = write!(attributes, r#" font-family="{MONO}" fill="{BRIGHT}""#);
    }
    if style.kind == Kind::Link {
        attributes.push_str(r##" fill="#00a8fc""##);
    }
    format!("<tspan{attributes}>{}</tspan>", esc(text))
}

/// The bot's avatar is blurple; a person's takes a colour from their name.
fn avatar_colour(author: &Author) -> &'static str {
    const PEOPLE: [&str; 4] = ["#3ba55c", "#eb459e", "#faa61a", "#ed4245"];
    if author.bot {
        return BLURPLE;
    }
    let sum: usize = author.name.bytes().map(usize::from).sum();
    PEOPLE[sum % PEOPLE.len()]
}

/// `text` with the characters XML gives a meaning escaped.
fn esc(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
