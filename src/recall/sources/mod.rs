//! Where recall's passages come from: the session transcripts ([`sessions`]) and the
//! markdown of the data dir ([`files`]), each cut into passages of a readable length.

pub mod files;
pub mod sessions;

/// The longest passage, in characters: a longer text is cut at paragraph (or line, or word)
/// boundaries into passages about this long.
pub(crate) const PASSAGE_CHARS: usize = 1200;

/// `text` cut into passages of at most about [`PASSAGE_CHARS`]; blank text gives none.
pub fn passages(text: &str) -> Vec<String> {
    let text = text.trim();
    if text.is_empty() {
        return Vec::new();
    }
    if text.chars().count() <= PASSAGE_CHARS {
        return vec![text.to_owned()];
    }
    let mut out: Vec<String> = Vec::new();
    let mut current = String::new();
    for piece in pieces(text) {
        let fits = current.chars().count() + piece.chars().count() < PASSAGE_CHARS;
        if !fits && !current.trim().is_empty() {
            out.push(current.trim().to_owned());
            current.clear();
        }
        current.push_str(piece);
    }
    if !current.trim().is_empty() {
        out.push(current.trim().to_owned());
    }
    out
}

/// `text` as pieces no longer than [`PASSAGE_CHARS`], each ending where a paragraph, a line
/// or a word does (separators kept).
fn pieces(text: &str) -> Vec<&str> {
    let mut pieces = Vec::new();
    for paragraph in text.split_inclusive("\n\n") {
        if paragraph.chars().count() <= PASSAGE_CHARS {
            pieces.push(paragraph);
            continue;
        }
        for line in paragraph.split_inclusive('\n') {
            if line.chars().count() <= PASSAGE_CHARS {
                pieces.push(line);
            } else {
                pieces.extend(line.split_inclusive(' '));
            }
        }
    }
    pieces
}
