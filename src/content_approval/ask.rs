//! Asking the owner about content that waits: one embed per item and version, with what it
//! can run, the draft itself, and Approve / Deny buttons.

use std::fmt::Write as _;

use super::{ContentItem, NOTHING_RUNS, Reach};
use crate::{
    domain::embed::{Embed, EmbedButton, EmbedColor, MAX_DESCRIPTION_CHARS, clip},
    front_end::FrontEnd,
    state::content_approvals::ContentApprovals,
};

/// Button action of the Approve button (`act:content_approve:<request id>`).
pub const APPROVE_ACTION: &str = "content_approve";
/// Button action of the Deny button.
pub const DENY_ACTION: &str = "content_deny";

/// Posts an approval embed for each of `pending` that has no open request for its bytes yet.
/// Failures are logged: the item stays unloaded and the next session start asks again.
pub async fn ask_owner(
    store: &ContentApprovals,
    front_end: &dyn FrontEnd,
    pending: &[ContentItem],
) {
    for item in pending {
        let file = item.path.display().to_string();
        let id = match store.open_request(&item.key(), &item.hash, &file) {
            Ok(Some(id)) => id,
            Ok(None) => continue,
            Err(error) => {
                tracing::warn!(%error, key = item.key(), "could not record a content approval request");
                continue;
            }
        };
        tracing::info!(
            key = item.key(),
            hash = item.hash,
            "asking the owner to approve content"
        );
        let recorded = match front_end.send_embed(approval_embed(&id, item)).await {
            Ok(Some(message_id)) => store.set_message(&id, message_id),
            Ok(None) => store.withdraw(&id),
            Err(error) => {
                tracing::warn!(%error, key = item.key(), "could not post a content approval request");
                store.withdraw(&id)
            }
        };
        if let Err(error) = recorded {
            tracing::warn!(%error, "could not update a content approval request");
        }
    }
}

/// Most characters the reasons may take, so the draft keeps room.
const REASONS_CHARS: usize = 1500;

/// The embed asking the owner about one item: whether it may run commands and why, then the
/// draft itself, file by file, trimmed to Discord's limit with a note when it is (issue 39 §4,
/// BOX-8).
pub fn approval_embed(id: &str, item: &ContentItem) -> Embed {
    let reach = Reach::of(item);
    let path = item.path.display();
    let head = format!(
        "`{path}` (version `{}`) isn't loaded until you approve these exact bytes.\n",
        item.short_hash()
    );
    let mut reasons = if reach.may_run_commands() {
        "**May run commands:**\n".to_owned()
    } else {
        format!("**Runs no commands by itself**: {NOTHING_RUNS}.\n")
    };
    // One line each, whatever line breaks the draft put into a name.
    let flat = |line: &String| line.replace(['\n', '\r'], " ");
    for line in &reach.runs {
        let _ = writeln!(reasons, "- {}", flat(line));
    }
    if !reach.also.is_empty() {
        let also: Vec<String> = reach.also.iter().map(flat).collect();
        let _ = writeln!(reasons, "Also: {}.", also.join("; "));
    }
    let (reasons, _) = clip(&reasons, REASONS_CHARS, "\n- … and more: read the files\n");
    let foot = format!("An edit asks again. From your shell: `ollim-bot approve {path}`.");
    let room = MAX_DESCRIPTION_CHARS.saturating_sub(
        [&head, &reasons, &foot]
            .iter()
            .map(|t| t.chars().count())
            .sum(),
    );
    let draft = draft(item, room);
    Embed {
        title: format!("New {} waits for your approval", item.kind),
        description: Some(format!("{head}{reasons}{draft}{foot}")),
        color: EmbedColor::Yellow,
        fields: Vec::new(),
        buttons: EmbedButton::approve_deny(APPROVE_ACTION, DENY_ACTION, id),
        footer: None,
    }
}

/// The item's files in code blocks, the main one first, in at most `room` characters: what
/// doesn't fit is cut and a note says how much was left out.
fn draft(item: &ContentItem, room: usize) -> String {
    let mut files: Vec<_> = item.files.iter().collect();
    files.sort_by_key(|f| f.relative.as_os_str() != crate::skills::SKILL_FILE);
    let blocks: Vec<String> = files
        .iter()
        .map(|file| {
            let name = file.relative.display();
            match std::str::from_utf8(&file.bytes) {
                Ok(text) => format!("`{name}`:\n```\n{}\n```\n", fenced(text.trim_end())),
                Err(_) => format!("`{name}`: binary, {} bytes\n", file.bytes.len()),
            }
        })
        .collect();
    let whole: String = blocks.concat();
    let total = whole.chars().count();
    if total <= room {
        return whole;
    }
    // Cut inside the text, then close the block it was cut in.
    let note_room = 120;
    let (cut, _) = clip(&whole, room.saturating_sub(note_room), "");
    let mut shown = cut.trim_end_matches('\n').to_owned();
    if shown.matches("```").count() % 2 == 1 {
        shown.push_str("\n```");
    }
    format!(
        "{shown}\n✂ Trimmed: {} of {total} characters shown. Read the files before you \
         approve.\n",
        cut.chars().count()
    )
}

/// `text` with every run of backticks broken by zero-width spaces, so it can't close the code
/// block it is shown in and pass its own words off as the bot's.
fn fenced(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut previous = None;
    for c in text.chars() {
        if c == '`' && previous == Some('`') {
            out.push('\u{200b}');
        }
        out.push(c);
        previous = Some(c);
    }
    out
}

#[cfg(test)]
#[path = "ask_tests.rs"]
mod tests;
