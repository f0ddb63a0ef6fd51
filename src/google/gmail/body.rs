//! A message's readable text (GOO-7): the first `text/plain` part, else the first `text/html`
//! part with its style blocks and tags removed and whitespace collapsed.

use base64::Engine;

use super::Part;

/// The longest body printed, in characters.
pub const BODY_LIMIT: usize = 3000;

/// The decoded data of the first part of `mime` (depth first).
fn first_of(part: &Part, mime: &str) -> Option<String> {
    if part.mime_type.eq_ignore_ascii_case(mime)
        && let Some(data) = part.body.data.as_deref().filter(|d| !d.is_empty())
    {
        let trimmed = data.trim_end_matches('=');
        if let Ok(bytes) = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(trimmed) {
            let text = String::from_utf8_lossy(&bytes).into_owned();
            if !text.is_empty() {
                return Some(text);
            }
        }
    }
    part.parts.iter().find_map(|child| first_of(child, mime))
}

/// The text to show, or `None` when the message has no text at all.
pub fn text_body(payload: &Part) -> Option<String> {
    if let Some(text) = first_of(payload, "text/plain") {
        return Some(text);
    }
    let html = first_of(payload, "text/html")?;
    let text = strip_html(&html);
    (!text.is_empty()).then_some(text)
}

/// Cuts `body` to [`BODY_LIMIT`] characters, saying so.
pub fn truncate_body(body: &str) -> String {
    match body.char_indices().nth(BODY_LIMIT) {
        Some((cut, _)) => format!("{}\n... (truncated)", &body[..cut]),
        None => body.to_owned(),
    }
}

/// Drops `<style>…</style>` blocks, turns every tag into a space, collapses whitespace.
fn strip_html(html: &str) -> String {
    let lower = html.to_ascii_lowercase();
    let mut out = String::with_capacity(html.len());
    let mut i = 0;
    while i < html.len() {
        let rest = &lower[i..];
        if rest.starts_with("<style") {
            match rest.find("</style>") {
                Some(end) => i += end + "</style>".len(),
                None => break,
            }
            out.push(' ');
        } else if rest.starts_with('<') {
            match rest.find('>') {
                Some(end) => i += end + 1,
                None => break,
            }
            out.push(' ');
        } else {
            let next = rest.find('<').map_or(html.len(), |n| i + n);
            out.push_str(&html[i..next]);
            i = next;
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(mime: &str, text: &str) -> Part {
        Part {
            mime_type: mime.to_owned(),
            body: super::super::PartBody {
                data: Some(base64::engine::general_purpose::URL_SAFE.encode(text)),
            },
            ..Part::default()
        }
    }

    #[test]
    fn plain_text_wins_over_html_in_nested_parts() {
        let root = Part {
            mime_type: "multipart/alternative".to_owned(),
            parts: vec![
                part("text/html", "<p>html</p>"),
                part("text/plain", "plain ✓"),
            ],
            ..Part::default()
        };
        assert_eq!(text_body(&root).as_deref(), Some("plain ✓"));
    }

    #[test]
    fn html_is_stripped_of_styles_and_tags() {
        let html =
            "<html><STYLE type=x>p{color:red}</STYLE><p>Hello</p>\n\n<b>you</b>  there</html>";
        assert_eq!(
            text_body(&part("text/html", html)).as_deref(),
            Some("Hello you there")
        );
        assert_eq!(text_body(&part("image/png", "x")), None);
    }

    #[test]
    fn long_bodies_are_cut_at_the_limit_in_characters() {
        let long = "é".repeat(BODY_LIMIT + 5);
        let cut = truncate_body(&long);
        assert!(cut.ends_with("\n... (truncated)"));
        assert_eq!(cut.chars().filter(|c| *c == 'é').count(), BODY_LIMIT);
        assert_eq!(truncate_body("short"), "short");
    }
}
