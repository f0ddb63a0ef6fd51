//! Message text as a picture draws it: Discord's simple markdown (`**bold**`, `*italic*`,
//! `` `code` ``, `[link](url)`, `- ` bullets, `> ` quotes) read into styled runs, and the runs
//! wrapped into lines of a width, measured by an estimate of each character's width (SVG has
//! no text layout of its own).

/// How a run of text is drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Style {
    pub bold: bool,
    pub italic: bool,
    pub kind: Kind,
}

/// What a run of text is, besides its weight and slant.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum Kind {
    #[default]
    Prose,
    /// `` `code` ``, in a fixed-width face.
    Code,
    /// A `[link](url)`'s label.
    Link,
}

/// A piece of text in one style.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Run {
    pub text: String,
    pub style: Style,
}

/// One drawn line: its runs, whether it sits in a `> ` quote, and whether it is `-# `
/// subtext (small and muted).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Line {
    pub runs: Vec<Run>,
    pub quoted: bool,
    pub small: bool,
}

/// The estimated width of `c` at font size `size`, in pixels: narrow, wide and average
/// letters of a sans-serif face, a fixed width for code.
fn char_width(c: char, style: Style, size: f32) -> f32 {
    if style.kind == Kind::Code {
        return size * 0.6;
    }
    // Generous for the wide sans-serif faces (DejaVu Sans), so no line runs out of the box.
    let em = match c {
        'i' | 'l' | 'j' | '.' | ',' | ':' | ';' | '\'' | '|' | '!' | 'I' => 0.3,
        't' | 'f' | 'r' | ' ' => 0.38,
        'm' | 'w' | 'M' | 'W' | '@' | '—' | '%' => 0.9,
        'A'..='Z' | '0'..='9' | '?' | '&' => 0.7,
        c if c.is_ascii() => 0.6,
        // Emoji and other wide symbols.
        _ => 1.1,
    };
    let bold = if style.bold { 1.1 } else { 1.0 };
    em * size * bold
}

/// The estimated width of `text` in `style` at `size`.
pub(super) fn width(text: &str, style: Style, size: f32) -> f32 {
    text.chars().map(|c| char_width(c, style, size)).sum()
}

/// The styled runs of one line of markdown.
fn runs_of(line: &str) -> Vec<Run> {
    let mut runs: Vec<Run> = Vec::new();
    let mut style = Style::default();
    let mut text = String::new();
    let flush = |text: &mut String, style: Style, runs: &mut Vec<Run>| {
        if !text.is_empty() {
            runs.push(Run {
                text: std::mem::take(text),
                style,
            });
        }
    };
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '`' {
            flush(&mut text, style, &mut runs);
            style.kind = if style.kind == Kind::Code {
                Kind::Prose
            } else {
                Kind::Code
            };
        } else if style.kind == Kind::Code {
            text.push(c);
        } else if c == '*' && chars.get(i + 1) == Some(&'*') {
            flush(&mut text, style, &mut runs);
            style.bold = !style.bold;
            i += 1;
        } else if c == '*' || c == '_' {
            // Inside a word (`add_reminder`) it is a character, as in Discord.
            let before = i.checked_sub(1).map(|j| chars[j]);
            let after = chars.get(i + 1);
            let toggles = if style.italic {
                after.is_none_or(|a| !a.is_alphanumeric())
            } else {
                after.is_some_and(|a| !a.is_whitespace())
                    && before.is_none_or(|b| !b.is_alphanumeric())
                    && chars[i + 1..].contains(&c)
            };
            if toggles {
                flush(&mut text, style, &mut runs);
                style.italic = !style.italic;
            } else {
                text.push(c);
            }
        } else if c == '['
            && let Some((label, skip)) = link_at(&chars[i..].iter().collect::<String>())
        {
            flush(&mut text, style, &mut runs);
            runs.push(Run {
                text: label,
                style: Style {
                    kind: Kind::Link,
                    ..style
                },
            });
            i += skip - 1;
        } else {
            text.push(c);
        }
        i += 1;
    }
    flush(&mut text, style, &mut runs);
    runs
}

/// A `[label](url)` at the start of `rest`: its label and length in characters.
fn link_at(rest: &str) -> Option<(String, usize)> {
    let inner = rest.strip_prefix('[')?;
    let close = inner.find("](")?;
    let after = &inner[close + 2..];
    let end = after.find(')')?;
    let label = &inner[..close];
    let length = 1 + label.chars().count() + 2 + after[..end].chars().count() + 1;
    Some((label.to_owned(), length))
}

/// The font size of `-# ` subtext.
pub(super) const SMALL: f32 = 13.0;

/// `text` (markdown, may hold newlines) as lines no wider than `max` pixels at `size`.
pub(super) fn wrap(text: &str, max: f32, size: f32) -> Vec<Line> {
    let mut lines = Vec::new();
    for source in text.lines() {
        let (source, quoted) = match source.strip_prefix("> ") {
            Some(rest) => (rest, true),
            None => (source, false),
        };
        let source = match source
            .strip_prefix("- ")
            .or_else(|| source.strip_prefix("* "))
        {
            Some(rest) => format!("•  {rest}"),
            None => source.to_owned(),
        };
        let (source, small) = match source.strip_prefix("-# ") {
            Some(rest) => (rest.to_owned(), true),
            None => (source, false),
        };
        let quote_room = if quoted { 16.0 } else { 0.0 };
        let size = if small { SMALL } else { size };
        let first = lines.len();
        wrap_runs(
            &runs_of(&source),
            max - quote_room,
            size,
            quoted,
            &mut lines,
        );
        for line in &mut lines[first..] {
            line.small = small;
        }
    }
    lines
}

/// Breaks `runs` at spaces into lines of at most `max` pixels (a word longer than a line is
/// cut where it must).
fn wrap_runs(runs: &[Run], max: f32, size: f32, quoted: bool, out: &mut Vec<Line>) {
    let mut line = Line {
        quoted,
        ..Line::default()
    };
    let mut used = 0.0;
    for run in runs {
        for word in words(&run.text) {
            let mut word = word.to_owned();
            let mut w = width(&word, run.style, size);
            if used + w > max && used > 0.0 {
                out.push(std::mem::replace(
                    &mut line,
                    Line {
                        quoted,
                        ..Line::default()
                    },
                ));
                used = 0.0;
                word = word.trim_start().to_owned();
                w = width(&word, run.style, size);
            }
            while w > max {
                let mut cut = String::new();
                let mut cut_w = 0.0;
                for c in word.chars() {
                    let cw = char_width(c, run.style, size);
                    if cut_w + cw > max {
                        break;
                    }
                    cut.push(c);
                    cut_w += cw;
                }
                word = word[cut.len()..].to_owned();
                push(&mut line, &cut, run.style);
                out.push(std::mem::replace(
                    &mut line,
                    Line {
                        quoted,
                        ..Line::default()
                    },
                ));
                w = width(&word, run.style, size);
            }
            push(&mut line, &word, run.style);
            used += w;
        }
    }
    out.push(line);
}

/// `text` split before each space, so every piece but the first starts with its space.
fn words(text: &str) -> Vec<&str> {
    let mut pieces = Vec::new();
    let mut start = 0;
    for (at, c) in text.char_indices() {
        if c == ' ' && at > start {
            pieces.push(&text[start..at]);
            start = at;
        }
    }
    if start < text.len() {
        pieces.push(&text[start..]);
    }
    pieces
}

/// Appends `text` to the line, joining the last run when the style is the same.
fn push(line: &mut Line, text: &str, style: Style) {
    if text.is_empty() {
        return;
    }
    match line.runs.last_mut() {
        Some(last) if last.style == style => last.text.push_str(text),
        _ => line.runs.push(Run {
            text: text.to_owned(),
            style,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(line: &Line) -> String {
        line.runs.iter().map(|r| r.text.as_str()).collect()
    }

    #[test]
    fn markdown_becomes_styled_runs() {
        let runs = runs_of("tap **Done** or *later*, see `x` and [docs](https://x.y)");
        let bold: Vec<_> = runs.iter().filter(|r| r.style.bold).collect();
        assert_eq!(bold[0].text, "Done");
        assert!(runs.iter().any(|r| r.style.italic && r.text == "later"));
        assert!(
            runs.iter()
                .any(|r| r.style.kind == Kind::Code && r.text == "x")
        );
        assert!(
            runs.iter()
                .any(|r| r.style.kind == Kind::Link && r.text == "docs")
        );
        assert!(!runs.iter().any(|r| r.text.contains('*')));
    }

    #[test]
    fn long_text_wraps_within_the_width_and_keeps_every_word() {
        let text = "one two three four five six seven eight nine ten eleven twelve";
        let lines = wrap(text, 120.0, 15.0);
        assert!(lines.len() > 1);
        for line in &lines {
            assert!(
                width(&plain(line), Style::default(), 15.0) <= 120.0,
                "{line:?}"
            );
        }
        let joined: Vec<String> = lines.iter().map(|l| plain(l).trim().to_owned()).collect();
        assert_eq!(joined.join(" "), text);
    }

    #[test]
    fn bullets_and_quotes_are_marked() {
        let lines = wrap("- milk\n> said before", 400.0, 15.0);
        assert_eq!(plain(&lines[0]), "•  milk");
        assert!(lines[1].quoted && plain(&lines[1]) == "said before");
        let small = wrap("-# *add_reminder*\nSet.", 400.0, 15.0);
        assert!(small[0].small && small[0].runs[0].style.italic);
        assert!(!small[1].small);
    }
}
