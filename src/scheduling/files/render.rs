//! Writing routine and reminder files in the canonical E.0 form: kebab-case keys in the order
//! of the E.1/E.2 tables, fields at their default omitted, strings double-quoted, lists as
//! block lists of quoted strings, the body after the closing `---`, a final newline.

use std::fmt::Write as _;

use chrono::SecondsFormat;

use super::{Reminder, Routine, SetBy, UntilDone};
use crate::domain::job_options::{BgSession, RunMode, RunOptions, ToolRestriction, UpdateMode};
use crate::domain::nag::format_gap;

/// Renders a routine file (E.1). Only `id`, `cron` and the body are always present.
pub fn render_routine(routine: &Routine) -> String {
    let mut out = Frontmatter::default();
    out.text("id", &routine.id);
    out.text("cron", &routine.cron);
    out.text_unless_empty("description", &routine.description);
    out.flag_unless("background", routine.run.is_background(), false);
    out.until_done(routine.until_done.as_ref());
    out.options(routine.run, &routine.options);
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
    out.flag_unless("background", reminder.run.is_background(), true);
    if reminder.chain_depth != 0 {
        out.line(format_args!("chain-depth: {}", reminder.chain_depth));
    }
    if reminder.max_chain != 0 {
        out.line(format_args!("max-chain: {}", reminder.max_chain));
    }
    if let Some(parent) = &reminder.chain_parent {
        out.text("chain-parent", parent);
    }
    if let SetBy::Background { job, generation } = &reminder.set_by {
        out.text("set-by", job);
        out.line(format_args!("generation: {generation}"));
    }
    out.until_done(reminder.until_done.as_ref());
    out.options(reminder.run, &reminder.options);
    out.finish(&reminder.message)
}

/// Frontmatter being built, starting with the opening `---`.
struct Frontmatter(String);

impl Default for Frontmatter {
    fn default() -> Self {
        Self("---\n".to_owned())
    }
}

impl Frontmatter {
    /// NAG-1: `until-done` and its settings, each only when given.
    fn until_done(&mut self, until_done: Option<&UntilDone>) {
        let Some(until_done) = until_done else { return };
        self.line(format_args!("until-done: true"));
        if let Some(gap) = until_done.nag_every {
            self.text("nag-every", &format_gap(gap));
        }
        if let Some(max_nags) = until_done.max_nags {
            self.line(format_args!("max-nags: {max_nags}"));
        }
    }

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

    fn list(&mut self, key: &str, items: &[String]) {
        if items.is_empty() {
            self.line(format_args!("{key}: []"));
            return;
        }
        self.line(format_args!("{key}:"));
        for item in items {
            self.line(format_args!("  - {}", quote(item)));
        }
    }

    /// The run options in E.1 table order, each only when away from its default; `isolated`
    /// and `session` come from the run mode (the caller writes `background`, whose default
    /// differs by file kind).
    fn options(&mut self, run: RunMode, options: &RunOptions) {
        if let Some(model) = &options.model {
            self.text("model", model);
        }
        self.flag_unless("thinking", options.thinking, true);
        if run == RunMode::Background(BgSession::Isolated) {
            self.line(format_args!("isolated: true"));
        }
        if options.update_mode != UpdateMode::default() {
            self.text("update-main-session", options.update_mode.as_str());
        }
        self.flag_unless("allow-ping", options.allow_ping, true);
        match &options.tools {
            ToolRestriction::None => {}
            ToolRestriction::Allowed(tools) => self.list("allowed-tools", tools),
            ToolRestriction::Disallowed(tools) => self.list("disallowed-tools", tools),
        }
        if !options.skills.is_empty() {
            self.list("skills", &options.skills);
        }
        if let Some(subagent) = &options.subagent {
            self.text("subagent", subagent);
        }
        self.flag_unless("reflect", options.reflect, true);
        if run == RunMode::Background(BgSession::Persistent) {
            self.text("session", "persistent");
        }
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
