use std::borrow::Cow;

use super::*;

/// Whether a terminal would act on `c` rather than print it.
fn obeyed(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

#[test]
fn plain_text_is_shown_as_it_is_and_not_copied() {
    for text in [
        "",
        "Hello Julia,\n\tthe report is due at 5pm.",
        "naïve café — 日本語 🎉 Û (its UTF-8 holds the byte 0x9b)",
        "\u{200e}marks that only nudge direction\u{200f} stay",
        "␛ and ␇ typed as themselves",
    ] {
        assert!(
            matches!(harmless(text), Cow::Borrowed(t) if t == text),
            "{text:?}"
        );
    }
}

#[test]
fn escape_sequences_show_as_pictures_and_stay_readable() {
    assert_eq!(harmless("\x1b]52;c;ZXZpbA==\x07"), "␛]52;c;ZXZpbA==␇");
    assert_eq!(harmless("\x1b]0;owned\x1b\\"), "␛]0;owned␛\\");
    assert_eq!(harmless("\x1b[8m hidden\x1b[0m"), "␛[8m hidden␛[0m");
    assert_eq!(harmless("\x1b[2J\x1b[H"), "␛[2J␛[H");
}

#[test]
fn eight_bit_controls_and_bidi_overrides_show_as_escapes() {
    assert_eq!(harmless("\u{9b}2J"), "\\u{9b}2J");
    assert_eq!(harmless("\u{9d}0;title\u{9c}"), "\\u{9d}0;title\\u{9c}");
    assert_eq!(harmless("\u{85}\u{80}\u{9f}"), "\\u{85}\\u{80}\\u{9f}");
    assert_eq!(
        harmless("invoice\u{202e}fdp.exe"),
        "invoice\\u{202e}fdp.exe"
    );
    assert_eq!(
        harmless("\u{202a}\u{202b}\u{202c}\u{202d}\u{2066}\u{2067}\u{2068}\u{2069}"),
        "\\u{202a}\\u{202b}\\u{202c}\\u{202d}\\u{2066}\\u{2067}\\u{2068}\\u{2069}"
    );
}

#[test]
fn a_line_end_stays_and_an_overprint_shows() {
    assert_eq!(harmless("one\r\ntwo\r\n"), "one\ntwo\n");
    assert_eq!(harmless("secret\rshown"), "secret␍shown");
    assert_eq!(harmless("\r\r\n"), "␍\n");
    assert_eq!(harmless("end\r"), "end␍");
    assert_eq!(harmless("abc\x08\x08\x08xyz"), "abc␈␈␈xyz");
}

#[test]
fn every_other_c0_control_and_del_has_its_picture() {
    assert_eq!(harmless("\0"), "␀");
    assert_eq!(harmless("\x0e\x0f"), "␎␏");
    assert_eq!(harmless("\x0b\x0c"), "␋␌");
    assert_eq!(harmless("\x1f"), "␟");
    assert_eq!(harmless("\x7f"), "␡");
}

#[test]
fn nothing_a_terminal_obeys_gets_through() {
    let every: String = ('\0'..='\u{3000}').collect();
    let shown = harmless(&every);
    let left: Vec<char> = shown.chars().filter(|&c| obeyed(c)).collect();
    assert!(left.is_empty(), "{left:?}");
    assert!(shown.contains('\n') && shown.contains('\t'));
}

#[test]
fn streamed_pieces_are_made_harmless_one_by_one() {
    let mut stream = StreamedText::default();
    let pieces = ["Copied: \x1b]52;c;ZXZp", "bA==\x07 then \x1b", "[8m hidden"];
    let shown: String = pieces.iter().map(|piece| stream.next(piece)).collect();
    assert_eq!(shown, "Copied: ␛]52;c;ZXZpbA==␇ then ␛[8m hidden");
    assert_eq!(stream.flush(), "");
}

#[test]
fn a_cr_lf_split_between_pieces_is_one_line_end() {
    let mut stream = StreamedText::default();
    assert_eq!(stream.next("line one\r"), "line one");
    assert_eq!(stream.next("\nline two\r"), "\nline two");
    assert_eq!(stream.next("overprinted"), "␍overprinted");
    assert_eq!(stream.next("\r"), "");
    assert_eq!(stream.flush(), "␍");
    assert_eq!(stream.flush(), "");
}
