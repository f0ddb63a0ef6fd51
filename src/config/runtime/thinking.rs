//! `/thinking` presets (SLC-6) and how thinking modes are named for the owner.

use crate::claude::Thinking;

use super::keys::parse_thinking;

/// The `/thinking` choices as `(choice name, mode)`, in dropdown order. The mode's
/// `Display` text (`off`, `adaptive`, `8000`) serves as the option value where one is needed.
pub const THINKING_PRESETS: &[(&str, Thinking)] = &[
    ("off", Thinking::Off),
    ("adaptive", Thinking::Adaptive),
    ("8k budget", Thinking::Budget(8000)),
    ("32k budget", Thinking::Budget(32000)),
    ("64k budget", Thinking::Budget(64000)),
];

/// The `/thinking` name of a mode: a preset's name (`8k budget`), else `<N> tokens`.
pub fn thinking_choice_name(thinking: Thinking) -> String {
    match THINKING_PRESETS
        .iter()
        .find(|(_, preset)| *preset == thinking)
    {
        Some((name, _)) => (*name).to_owned(),
        None => match thinking {
            Thinking::Budget(n) => format!("{n} tokens"),
            other => other.to_string(),
        },
    }
}

/// Reads a `/thinking` option: a preset name (`8k budget`, case-insensitive) or anything
/// `thinking.main` accepts (`off`, `adaptive`, `8000`).
pub fn thinking_from_choice(raw: &str) -> Option<Thinking> {
    let raw = raw.trim();
    THINKING_PRESETS
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(raw))
        .map(|(_, thinking)| *thinking)
        .or_else(|| parse_thinking(raw).ok())
}

/// The `/config` label of a mode (CFG-3): `off`, `adaptive`, or `<N/1000>k budget`
/// (`32000` → `32k budget`; budgets that are not whole thousands keep their decimals,
/// `1500` → `1.5k budget`).
pub fn thinking_label(thinking: Thinking) -> String {
    match thinking {
        Thinking::Budget(n) => {
            let (whole, rest) = (n / 1000, n % 1000);
            if rest == 0 {
                format!("{whole}k budget")
            } else {
                let decimals = format!("{rest:03}");
                format!("{whole}.{}k budget", decimals.trim_end_matches('0'))
            }
        }
        other => other.to_string(),
    }
}
