//! The embed a `discord_embed` call describes, normalised for rendering (MCP-1, MCP-2).

/// Embed accent colours.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum EmbedColor {
    /// Information (the default).
    #[default]
    Blue,
    /// Success.
    Green,
    /// Urgent.
    Red,
    /// Warning.
    Yellow,
    /// Accent / forks.
    Purple,
    /// Neutral (discarded forks).
    Grey,
}

impl EmbedColor {
    /// Parses a colour name; unknown names fall back to blue (MCP-1).
    pub fn parse(raw: &str) -> Self {
        match raw.trim().to_ascii_lowercase().as_str() {
            "green" => Self::Green,
            "red" => Self::Red,
            "yellow" => Self::Yellow,
            "purple" => Self::Purple,
            "grey" | "gray" => Self::Grey,
            _ => Self::Blue,
        }
    }

    /// The RGB value Discord renders.
    pub fn rgb(self) -> u32 {
        match self {
            Self::Blue => 0x0034_98DB,
            Self::Green => 0x002E_CC71,
            Self::Red => 0x00E7_4C3C,
            Self::Yellow => 0x00F1_C40F,
            Self::Purple => 0x009B_59B6,
            Self::Grey => 0x0095_A5A6,
        }
    }
}

/// Button styles (MCP-1); unknown names fall back to secondary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum ButtonStyle {
    /// Blurple.
    Primary,
    /// Grey (the default).
    #[default]
    Secondary,
    /// Green.
    Success,
    /// Red.
    Danger,
}

impl ButtonStyle {
    /// Parses a style name.
    pub fn parse(raw: &str) -> Self {
        match raw.trim().to_ascii_lowercase().as_str() {
            "primary" => Self::Primary,
            "success" => Self::Success,
            "danger" => Self::Danger,
            _ => Self::Secondary,
        }
    }
}

/// One embed field.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct EmbedField {
    /// Field name.
    pub name: String,
    /// Field value.
    pub value: String,
    /// Shown side by side with neighbours.
    pub inline: bool,
}

/// One action button; `action` is `<type>:<payload>` (`task_done:abc`, `agent:<prompt>`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct EmbedButton {
    /// Button text.
    pub label: String,
    /// What a click does.
    pub action: String,
    /// Visual style.
    pub style: ButtonStyle,
}

impl EmbedButton {
    /// A button labelled `label` whose click does `action`.
    pub fn new(label: &str, action: impl Into<String>, style: ButtonStyle) -> Self {
        Self {
            label: label.to_owned(),
            action: action.into(),
            style,
        }
    }

    /// The Approve / Deny pair of an approval embed for request `id` (`<action>:<id>`).
    pub fn approve_deny(approve_action: &str, deny_action: &str, id: &str) -> Vec<Self> {
        vec![
            Self::new(
                "Approve",
                format!("{approve_action}:{id}"),
                ButtonStyle::Success,
            ),
            Self::new("Deny", format!("{deny_action}:{id}"), ButtonStyle::Danger),
        ]
    }
}

/// A rich message with optional buttons.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Embed {
    /// Title (emoji stripped).
    pub title: String,
    /// Body text.
    pub description: Option<String>,
    /// Accent colour.
    pub color: EmbedColor,
    /// Fields.
    pub fields: Vec<EmbedField>,
    /// Buttons (at most five).
    pub buttons: Vec<EmbedButton>,
    /// Footer: `bg` in background forks, `fork` in interactive forks, none in main.
    pub footer: Option<String>,
}

/// The most buttons one embed may carry (F-44).
pub const MAX_BUTTONS: usize = 5;

/// The most characters Discord takes in an embed's description.
pub const MAX_DESCRIPTION_CHARS: usize = 4096;

/// `text` cut to at most `max_chars` characters, `note` included when it had to be cut (at a
/// line break where one is near), and whether it was cut.
pub fn clip(text: &str, max_chars: usize, note: &str) -> (String, bool) {
    if text.chars().count() <= max_chars {
        return (text.to_owned(), false);
    }
    let keep = max_chars.saturating_sub(note.chars().count());
    let end = text
        .char_indices()
        .nth(keep)
        .map_or(text.len(), |(at, _)| at);
    let mut cut = &text[..end];
    // Back to the last line break, unless that loses more than a quarter of what fits.
    if let Some(line_end) = cut.rfind('\n')
        && cut[..line_end].chars().count() >= keep - keep / 4
    {
        cut = &cut[..line_end];
    }
    (format!("{cut}{note}"), true)
}

/// Removes emoji (pictographs, dingbats, flags, variation selectors, ZWJ) from a title and
/// trims what is left (MCP-2).
pub fn strip_emoji(title: &str) -> String {
    let kept: String = title.chars().filter(|c| !is_emoji(*c)).collect();
    kept.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn is_emoji(c: char) -> bool {
    matches!(u32::from(c),
        0x1F000..=0x1FAFF // pictographs, emoticons, transport, flags, symbols
        | 0x2600..=0x27BF // misc symbols and dingbats
        | 0x2B00..=0x2BFF // arrows and stars used as emoji
        | 0x2300..=0x23FF // technical symbols (⌚, ⏰)
        | 0xFE00..=0xFE0F // variation selectors
        | 0x200D          // zero-width joiner
        | 0x20E3          // keycap
        | 0xE0020..=0xE007F) // tag characters
}

/// Turns literal `\n` sequences (as models often write them) into newlines (MCP-2).
pub fn unescape_newlines(text: &str) -> String {
    text.replace("\\n", "\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_emoji_from_titles() {
        assert_eq!(strip_emoji("✅ Done"), "Done");
        assert_eq!(strip_emoji("📅 Today's plan 🗓️"), "Today's plan");
        assert_eq!(strip_emoji("👨‍👩‍👧 Family"), "Family");
        assert_eq!(strip_emoji("Plain"), "Plain");
    }

    #[test]
    fn parses_colours_and_styles_with_fallbacks() {
        assert_eq!(EmbedColor::parse("RED"), EmbedColor::Red);
        assert_eq!(EmbedColor::parse("chartreuse"), EmbedColor::Blue);
        assert_eq!(ButtonStyle::parse("danger"), ButtonStyle::Danger);
        assert_eq!(ButtonStyle::parse("fancy"), ButtonStyle::Secondary);
    }

    #[test]
    fn clipped_text_fits_with_its_note() {
        assert_eq!(clip("short", 10, "…"), ("short".to_owned(), false));
        let (cut, clipped) = clip("0123456789abcdef\nghijklmnop", 20, "…");
        assert!(clipped);
        assert_eq!(cut, "0123456789abcdef…", "cut at the line break");
        let (cut, _) = clip(&"é".repeat(50), 10, "…");
        assert_eq!(cut.chars().count(), 10);
        assert!(cut.ends_with('…'));
    }

    #[test]
    fn unescapes_literal_newlines() {
        assert_eq!(unescape_newlines("a\\nb"), "a\nb");
    }
}
