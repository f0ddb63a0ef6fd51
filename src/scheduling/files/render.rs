//! Writing routine and reminder files in the canonical E.0 form: kebab-case keys in the order
//! of the E.1/E.2 tables, fields at their default omitted, strings double-quoted, lists as
//! block lists of quoted strings, the body after the closing `---`, a final newline.

use std::fmt::Write as _;

use chrono::SecondsFormat;

use super::{Reminder, Routine};
use crate::domain::job_options::UpdateMode;

/// Renders a routine file (E.1). Only `id`, `cron` and the body are always present.
pub fn render_routine(routine: &Routine) -> String {
    let mut out = Frontmatter::default();
    out.text("id", &routine.id);
    out.text("cron", &routine.cron);
    out.text_unless_empty("description", &routine.description);
    out.flag_unless("background", routine.background, false);
    out.options(&Options {
        model: &routine.model,
        thinking: routine.thinking,
        isolated: routine.isolated,
        update_main_session: routine.update_main_session,
        allow_ping: routine.allow_ping,
        allowed_tools: &routine.allowed_tools,
        disallowed_tools: &routine.disallowed_tools,
        skills: &routine.skills,
        subagent: &routine.subagent,
        reflect: routine.reflect,
    });
    if routine.persistent {
        out.text("session", "persistent");
    }
    out.finish(&routine.message)
}

/// Renders a reminder file (E.2). `run-at` is written as RFC 3339 with its offset.
pub fn render_reminder(reminder: &Reminder) -> String {
    let mut out = Frontmatter::default();
    out.text("id", &reminder.id);
    out.text(
        "run-at",
        &reminder
            .run_at
            .to_rfc3339_opts(SecondsFormat::AutoSi, false),
    );
    out.text_unless_empty("description", &reminder.description);
    out.flag_unless("background", reminder.background, true);
    if reminder.chain_depth != 0 {
        out.line(format_args!("chain-depth: {}", reminder.chain_depth));
    }
    if reminder.max_chain != 0 {
        out.line(format_args!("max-chain: {}", reminder.max_chain));
    }
    if let Some(parent) = &reminder.chain_parent {
        out.text("chain-parent", parent);
    }
    out.options(&Options {
        model: &reminder.model,
        thinking: reminder.thinking,
        isolated: reminder.isolated,
        update_main_session: reminder.update_main_session,
        allow_ping: reminder.allow_ping,
        allowed_tools: &reminder.allowed_tools,
        disallowed_tools: &reminder.disallowed_tools,
        skills: &reminder.skills,
        subagent: &reminder.subagent,
        reflect: reminder.reflect,
    });
    out.finish(&reminder.message)
}

/// The shared background-run options, borrowed for rendering.
struct Options<'a> {
    model: &'a Option<String>,
    thinking: bool,
    isolated: bool,
    update_main_session: UpdateMode,
    allow_ping: bool,
    allowed_tools: &'a Option<Vec<String>>,
    disallowed_tools: &'a Option<Vec<String>>,
    skills: &'a Option<Vec<String>>,
    subagent: &'a Option<String>,
    reflect: bool,
}

/// Frontmatter being built, starting with the opening `---`.
struct Frontmatter(String);

impl Default for Frontmatter {
    fn default() -> Self {
        Self("---\n".to_owned())
    }
}

impl Frontmatter {
    fn line(&mut self, args: std::fmt::Arguments<'_>) {
        // Writing into a String cannot fail.
        let _ = self.0.write_fmt(args);
        self.0.push('\n');
    }

    fn text(&mut self, key: &str, value: &str) {
        self.line(format_args!("{key}: {}", quote(value)));
    }

    fn text_unless_empty(&mut self, key: &str, value: &str) {
        if !value.is_empty() {
            self.text(key, value);
        }
    }

    fn flag_unless(&mut self, key: &str, value: bool, default: bool) {
        if value != default {
            self.line(format_args!("{key}: {value}"));
        }
    }

    fn list(&mut self, key: &str, items: &Option<Vec<String>>) {
        match items {
            None => {}
            Some(items) if items.is_empty() => self.line(format_args!("{key}: []")),
            Some(items) => {
                self.line(format_args!("{key}:"));
                for item in items {
                    self.line(format_args!("  - {}", quote(item)));
                }
            }
        }
    }

    fn options(&mut self, options: &Options<'_>) {
        if let Some(model) = options.model {
            self.text("model", model);
        }
        self.flag_unless("thinking", options.thinking, true);
        self.flag_unless("isolated", options.isolated, false);
        if options.update_main_session != UpdateMode::default() {
            self.text("update-main-session", options.update_main_session.as_str());
        }
        self.flag_unless("allow-ping", options.allow_ping, true);
        self.list("allowed-tools", options.allowed_tools);
        self.list("disallowed-tools", options.disallowed_tools);
        self.list("skills", options.skills);
        if let Some(subagent) = options.subagent {
            self.text("subagent", subagent);
        }
        self.flag_unless("reflect", options.reflect, true);
    }

    fn finish(mut self, message: &str) -> String {
        self.0.push_str("---\n");
        self.0.push_str(message.trim());
        self.0.push('\n');
        self.0
    }
}

/// A YAML double-quoted scalar. `"` and `\` are escaped as E.0 requires; so are characters
/// YAML would fold, drop or reject (line breaks, tabs, control and non-printable characters),
/// so every string reads back unchanged.
pub(super) fn quote(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if needs_escape(c) => {
                let _ = write!(out, "\\u{:04X}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn needs_escape(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
        )
}
