//! Quoted replies (CTX-10): when the owner replies to a message that is not a live fork, the
//! referenced message is quoted above their text so the agent sees what they answered.
//!
//! Transport-free: the Discord handler fetches the referenced message (ignoring "not found")
//! and fills a [`QuotedSource`]; [`quote_reply`] renders the quote block and
//! [`prepend_quote`] puts it in front of the owner's text.

/// Longest quoted excerpt, in characters, before `...` is appended (CTX-10).
pub const QUOTE_MAX_CHARS: usize = 500;

/// The first embed of a referenced message, as far as quoting needs it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QuotedEmbed {
    /// Embed title (empty when the embed has none).
    pub title: String,
    /// Embed description (empty when the embed has none).
    pub description: String,
    /// Embed fields as `(name, value)` pairs, in display order.
    pub fields: Vec<(String, String)>,
}

/// The referenced message of a reply: its text and its first embed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QuotedSource {
    /// The message text (may be empty, e.g. for embed-only bot messages).
    pub content: String,
    /// The message's first embed, if it has one.
    pub embed: Option<QuotedEmbed>,
}

/// Renders an embed as quotable text: `**title**`, the description, then one
/// `**name**: value` line per field; empty parts are left out.
fn embed_text(embed: &QuotedEmbed) -> String {
    let mut lines: Vec<String> = Vec::new();
    if !embed.title.trim().is_empty() {
        lines.push(format!("**{}**", embed.title));
    }
    if !embed.description.trim().is_empty() {
        lines.push(embed.description.clone());
    }
    for (name, value) in &embed.fields {
        lines.push(format!("**{name}**: {value}"));
    }
    lines.join("\n")
}

/// Cuts `text` to [`QUOTE_MAX_CHARS`] characters (not bytes), appending `...` when cut.
fn truncate_chars(text: &str) -> String {
    match text.char_indices().nth(QUOTE_MAX_CHARS) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text.to_owned(),
    }
}

/// The quote block for a reply (CTX-10), or `None` when there is nothing to quote.
///
/// Uses the message text, or when that is blank its first embed (see [`QuotedEmbed`]); cuts it
/// to 500 characters (+`...` when cut), prefixes every line with `> ` and ends with a blank
/// line, ready to be put in front of the owner's text.
pub fn quote_reply(source: &QuotedSource) -> Option<String> {
    let body = if source.content.trim().is_empty() {
        embed_text(source.embed.as_ref()?)
    } else {
        source.content.clone()
    };
    if body.trim().is_empty() {
        return None;
    }
    let quoted: Vec<String> = truncate_chars(&body)
        .split('\n')
        .map(|line| format!("> {line}"))
        .collect();
    Some(format!("{}\n\n", quoted.join("\n")))
}

/// Puts an optional quote block from [`quote_reply`] in front of the owner's text.
pub fn prepend_quote(quote: Option<String>, text: &str) -> String {
    match quote {
        Some(mut quote) => {
            quote.push_str(text);
            quote
        }
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(content: &str) -> QuotedSource {
        QuotedSource {
            content: content.to_owned(),
            embed: None,
        }
    }

    #[test]
    fn quotes_plain_text_line_by_line() {
        let quote = quote_reply(&text("first line\nsecond line")).unwrap();
        assert_eq!(quote, "> first line\n> second line\n\n");
        assert_eq!(
            prepend_quote(Some(quote), "what about it?"),
            "> first line\n> second line\n\nwhat about it?"
        );
    }

    #[test]
    fn blank_lines_inside_the_quote_stay_quoted() {
        assert_eq!(quote_reply(&text("a\n\nb")).unwrap(), "> a\n> \n> b\n\n");
    }

    #[test]
    fn falls_back_to_the_first_embed() {
        let source = QuotedSource {
            content: String::new(),
            embed: Some(QuotedEmbed {
                title: "Morning check-in".into(),
                description: "3 tasks today".into(),
                fields: vec![("Due".into(), "5pm".into()), ("List".into(), "Work".into())],
            }),
        };
        assert_eq!(
            quote_reply(&source).unwrap(),
            "> **Morning check-in**\n> 3 tasks today\n> **Due**: 5pm\n> **List**: Work\n\n"
        );
    }

    #[test]
    fn embed_parts_that_are_missing_are_skipped() {
        let source = QuotedSource {
            content: "  ".into(),
            embed: Some(QuotedEmbed {
                title: String::new(),
                description: "only a description".into(),
                fields: vec![],
            }),
        };
        assert_eq!(quote_reply(&source).unwrap(), "> only a description\n\n");
    }

    #[test]
    fn text_wins_over_embed() {
        let source = QuotedSource {
            content: "hello".into(),
            embed: Some(QuotedEmbed {
                title: "ignored".into(),
                ..QuotedEmbed::default()
            }),
        };
        assert_eq!(quote_reply(&source).unwrap(), "> hello\n\n");
    }

    #[test]
    fn nothing_to_quote_gives_none() {
        assert_eq!(quote_reply(&text("")), None);
        assert_eq!(quote_reply(&text(" \n ")), None);
        let empty_embed = QuotedSource {
            content: String::new(),
            embed: Some(QuotedEmbed::default()),
        };
        assert_eq!(quote_reply(&empty_embed), None);
        assert_eq!(prepend_quote(None, "plain"), "plain");
    }

    #[test]
    fn truncates_at_500_chars_counting_chars_not_bytes() {
        let exact = "é".repeat(QUOTE_MAX_CHARS);
        assert_eq!(
            quote_reply(&text(&exact)).unwrap(),
            format!("> {exact}\n\n")
        );

        let long = "é".repeat(QUOTE_MAX_CHARS + 1);
        let quote = quote_reply(&text(&long)).unwrap();
        assert_eq!(quote, format!("> {}...\n\n", "é".repeat(QUOTE_MAX_CHARS)));
    }

    #[test]
    fn truncation_happens_before_line_prefixing() {
        let long = format!("{}\n{}", "a".repeat(498), "b".repeat(10));
        let quote = quote_reply(&text(&long)).unwrap();
        assert_eq!(quote, format!("> {}\n> b...\n\n", "a".repeat(498)));
    }
}
