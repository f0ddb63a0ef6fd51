//! The frontmatter keys of the job formats (E.1, E.2), and the keys a file has that its format
//! doesn't (`domain::frontmatter_keys`): a misspelt `backgroud: true` is otherwise silently
//! ignored and the job runs in the main conversation (issue 24 §4). Such a file still loads;
//! the note is for the owner (`doctor`) and the agent (told once, like a broken file).

use std::sync::LazyLock;

use super::{Reminder, Routine, SetBy, UntilDone, render_reminder, render_routine};
use crate::domain::{
    frontmatter::{Fields, split},
    frontmatter_keys::{unknown_key_notes, written_keys},
    job_options::{BgSession, JobKind, RunMode, RunOptions, ToolRestriction, UpdateMode},
};

/// Every option of a job away from its default, so that rendering it writes every key.
fn every_option(tools: ToolRestriction) -> RunOptions {
    RunOptions {
        model: Some("model".to_owned()),
        thinking: false,
        update_mode: UpdateMode::Always,
        allow_ping: false,
        tools,
        skills: vec!["skill".to_owned()],
        subagent: Some("subagent".to_owned()),
        reflect: false,
    }
}

/// The keys `rendered` files write, each once.
fn keys_of(rendered: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut keys = Vec::new();
    for text in rendered {
        let written = split(&text)
            .map(|(yaml, _)| written_keys(yaml))
            .unwrap_or_default();
        for key in written {
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
    }
    keys
}

/// The keys of the routine format (E.1): those the canonical renderer writes for routines
/// with every field away from its default, so the list lives in one place. Two routines are
/// needed, since a run mode holds one session kind and a job one of the two tool lists.
pub(super) static ROUTINE_KEYS: LazyLock<Vec<String>> = LazyLock::new(|| {
    let every_field = |session, tools| Routine {
        id: "id".to_owned(),
        cron: "0 9 * * *".to_owned(),
        description: "description".to_owned(),
        run: RunMode::Background(session),
        options: every_option(tools),
        until_done: Some(UntilDone {
            nag_every: Some(std::time::Duration::from_secs(15 * 60)),
            max_nags: Some(6),
        }),
        message: "message".to_owned(),
    };
    keys_of([
        render_routine(&every_field(
            BgSession::Isolated,
            ToolRestriction::Allowed(Vec::new()),
        )),
        render_routine(&every_field(
            BgSession::Persistent,
            ToolRestriction::Disallowed(Vec::new()),
        )),
    ])
});

/// The keys of the reminder format (E.2), from the canonical renderer as for routines: an
/// isolated reminder writes `isolated`, a foreground one `background`.
pub(super) static REMINDER_KEYS: LazyLock<Vec<String>> = LazyLock::new(|| {
    let every_field = |run, tools| {
        let mut reminder = Reminder::new_at(chrono::DateTime::UNIX_EPOCH.fixed_offset(), "m");
        "description".clone_into(&mut reminder.description);
        reminder.chain_depth = 1;
        reminder.max_chain = 2;
        reminder.chain_parent = Some("parent".to_owned());
        reminder.set_by = SetBy::Background {
            job: "routine:job".to_owned(),
            generation: 1,
        };
        reminder.run = run;
        reminder.options = every_option(tools);
        reminder.until_done = Some(UntilDone {
            nag_every: Some(std::time::Duration::from_secs(15 * 60)),
            max_nags: Some(6),
        });
        render_reminder(&reminder)
    };
    keys_of([
        every_field(
            RunMode::Background(BgSession::Isolated),
            ToolRestriction::Allowed(Vec::new()),
        ),
        every_field(RunMode::Foreground, ToolRestriction::Disallowed(Vec::new())),
    ])
});

/// [`unknown_key_notes`] for a routine file, and its [`foreground_notes`].
pub fn routine_notes(text: &str) -> Vec<String> {
    let mut notes = unknown_key_notes(text, &as_strs(&ROUTINE_KEYS));
    notes.extend(foreground_notes(text, JobKind::Routine));
    notes
}

/// [`unknown_key_notes`] for a reminder file, and its [`foreground_notes`].
pub fn reminder_notes(text: &str) -> Vec<String> {
    let mut notes = unknown_key_notes(text, &as_strs(&REMINDER_KEYS));
    notes.extend(foreground_notes(text, JobKind::Reminder));
    notes
}

/// Background-only keys on a job that runs in the main conversation (BGF-24): `model` and
/// `isolated: true` are ignored there, which the file's author should know.
fn foreground_notes(text: &str, kind: JobKind) -> Vec<String> {
    let Ok((yaml, _)) = split(text) else {
        return Vec::new();
    };
    let Ok(fields) = Fields::parse(yaml, &[]) else {
        return Vec::new();
    };
    if RunMode::read(&fields, kind).ok() != Some(RunMode::Foreground) {
        return Vec::new();
    }
    let mut notes = Vec::new();
    if fields.text("model").ok().flatten().is_some() {
        notes.push(
            "\"model\" only applies to background runs; ignored while background is false"
                .to_owned(),
        );
    }
    if fields.flag("isolated", false) == Ok(true) {
        notes.push(
            "\"isolated: true\" only applies to background runs; ignored while background is \
             false"
                .to_owned(),
        );
    }
    notes
}

fn as_strs(keys: &[String]) -> Vec<&str> {
    keys.iter().map(String::as_str).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// BGF-24: background-only keys are noted on a foreground job only.
    #[test]
    fn background_only_keys_in_the_foreground_are_noted() {
        let foreground = "---\nid: a\ncron: \"0 9 * * *\"\nisolated: true\nmodel: haiku\n---\nHi\n";
        assert_eq!(
            routine_notes(foreground).len(),
            2,
            "{:?}",
            routine_notes(foreground)
        );
        let background = foreground.replace("isolated", "background: true\nisolated");
        assert!(routine_notes(&background).is_empty());
        let reminder =
            "---\nid: r\nrun-at: 2026-01-01T09:00:00Z\nbackground: false\nmodel: opus\n---\nHi\n";
        assert_eq!(
            reminder_notes(reminder),
            ["\"model\" only applies to background runs; ignored while background is false"]
        );
        assert!(reminder_notes(&reminder.replace("background: false\n", "")).is_empty());
    }

    #[test]
    fn misspelt_keys_are_noted_with_the_nearest_and_known_ones_not() {
        let routine = "---\nid: a\ncron: \"0 9 * * *\"\nbackgroud: true\nallow_ping: false\n\
                       colour: red\n---\nHi\n";
        assert_eq!(
            routine_notes(routine),
            [
                "unknown key \"backgroud\" is ignored (did you mean \"background\"?)",
                "unknown key \"colour\" is ignored",
            ]
        );
        let reminder = "---\nid: a\nrun-at: \"2026-01-01T09:00:00Z\"\nbackground: false\n\
                        max-chain: 2\nisolated: true\nmodle: opus\n---\nHi\n";
        assert_eq!(
            reminder_notes(reminder),
            [
                "unknown key \"modle\" is ignored (did you mean \"model\"?)",
                "\"isolated: true\" only applies to background runs; ignored while background \
                 is false",
            ]
        );
        for key in [
            "run-at",
            "chain-depth",
            "chain-parent",
            "set-by",
            "generation",
            "skills",
            "subagent",
            "reflect",
        ] {
            assert!(REMINDER_KEYS.contains(&key.to_owned()), "{key}");
        }
        for key in ["cron", "session", "background", "disallowed-tools"] {
            assert!(ROUTINE_KEYS.contains(&key.to_owned()), "{key}");
        }
        // The shared options' list (webhook specs know their keys from it) is the one the
        // renderer writes.
        for key in crate::domain::job_options::OPTION_KEYS {
            assert!(ROUTINE_KEYS.contains(&(*key).to_owned()), "{key}");
            assert!(REMINDER_KEYS.contains(&(*key).to_owned()), "{key}");
        }
    }
}
