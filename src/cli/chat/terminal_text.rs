//! What `chat` prints of the model's, its tools' and the read files' text, made harmless
//! before it reaches the owner's terminal (CMD-8): a control character in that text is shown,
//! never obeyed, so the model can't write the clipboard (OSC 52), retitle the window, hide or
//! overprint text, move the cursor or clear the screen.
//!
//! Kept as they are: `\n`, `\t`, and a CR directly before an LF (a CR LF line end reads as an
//! LF). Shown instead of obeyed:
//! - the other C0 controls as their Unicode control pictures: ESC `␛`, BEL `␇`, BS `␈`, a CR on
//!   its own `␍`, NUL `␀`, … (U+2400 + the code), and DEL as `␡`;
//! - the C1 controls U+0080–U+009F (the 8-bit CSI U+009B and OSC U+009D among them), which
//!   have no pictures, and the bidi embeddings, overrides and isolates (U+202A–U+202E,
//!   U+2066–U+2069), which reorder what follows them, as `\u{9b}`-style escapes.

use std::{borrow::Cow, fmt::Write};

/// `text` as the terminal may show it: every control character replaced by its stand-in (see
/// the module's notes); borrowed when there was none.
pub(crate) fn harmless(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| stand_in(c, None).is_some()) {
        return Cow::Borrowed(text);
    }
    let mut shown = String::with_capacity(text.len() + 16);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match stand_in(c, chars.peek().copied()) {
            None => shown.push(c),
            Some(StandIn::Dropped) => {}
            Some(StandIn::Picture(picture)) => shown.push(picture),
            Some(StandIn::Escape) => {
                let _ = write!(shown, "\\u{{{:x}}}", u32::from(c));
            }
        }
    }
    Cow::Owned(shown)
}

/// What a character the terminal would act on is shown as.
enum StandIn {
    /// Nothing: the CR of a CR LF.
    Dropped,
    /// A control picture of the U+2400 block.
    Picture(char),
    /// `\u{…}`, for characters without a picture.
    Escape,
}

/// The stand-in for `c` (followed by `next`), or `None` when `c` is shown as it is.
fn stand_in(c: char, next: Option<char>) -> Option<StandIn> {
    match c {
        '\n' | '\t' => None,
        '\r' if next == Some('\n') => Some(StandIn::Dropped),
        '\0'..='\x1f' => char::from_u32(0x2400 + u32::from(c)).map(StandIn::Picture),
        '\x7f' => Some(StandIn::Picture('\u{2421}')),
        '\u{80}'..='\u{9f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => {
            Some(StandIn::Escape)
        }
        _ => None,
    }
}

/// A reply streamed in pieces, each made harmless as it comes: a CR that ends one piece waits
/// for the next, so a CR LF split between two still reads as one line end.
#[derive(Debug, Default)]
pub(super) struct StreamedText {
    held_cr: bool,
}

impl StreamedText {
    /// The next piece, as the terminal may show it.
    pub(super) fn next(&mut self, piece: &str) -> String {
        let mut joined = String::with_capacity(piece.len() + 1);
        if std::mem::take(&mut self.held_cr) {
            joined.push('\r');
        }
        joined.push_str(piece);
        if joined.ends_with('\r') {
            joined.pop();
            self.held_cr = true;
        }
        harmless(&joined).into_owned()
    }

    /// What is still held back (a CR on its own, as `␍`) once the stream stops or something
    /// else is printed between its pieces.
    pub(super) fn flush(&mut self) -> &'static str {
        if std::mem::take(&mut self.held_cr) {
            "\u{240d}"
        } else {
            ""
        }
    }
}

#[cfg(test)]
#[path = "terminal_text_tests.rs"]
mod tests;
