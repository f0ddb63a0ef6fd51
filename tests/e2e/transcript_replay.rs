//! Replays every recorded CLI transcript through the driver (`StreamConnection`) and checks
//! what it does with each line; see `support/replay.rs` for the generic checks:
//!
//! - every CLI `control_request` gets exactly one `control_response` with its `request_id` and
//!   the recorded success/error subtype and body (none when the CLI cancelled it first);
//! - host requests made through `ClientHandle` write the recorded subtype and fields, and the
//!   CLI's recorded `control_response` (under the driver's id) resolves them: success → `Ok`,
//!   error → `Err`; a request the CLI never answers fails as `Closed` at end of stream;
//! - every other stdout frame comes out of `recv()` as the matching typed message, in order,
//!   none lost and none extra (checked field by field in `frame_match`).
//!
//! On top of that, the transcripts with checks of their own assert typed facts particular to
//! one transcript, grouped by topic: `sessions` (results, compaction, `/clear`, a missing
//! resume), `errors`, `streaming` (interrupts, deltas, unknown frames).

use crate::support;

use std::path::Path;

use ollim_bot::claude::{Message, ResultMessage, SystemMessage};
use support::replay::{Replay, replay, transcript_dir};

mod errors;
mod frame_match;
mod sessions;
mod streaming;

use frame_match::kind_mismatch;

pub(super) async fn run(name: &str) -> Replay {
    replay(name, kind_mismatch).await
}

/// What `pick` finds in the typed messages, in order.
pub(super) fn pick<'a, T>(replay: &'a Replay, pick: impl Fn(&'a Message) -> Option<T>) -> Vec<T> {
    replay.typed().filter_map(pick).collect()
}

pub(super) fn results(replay: &Replay) -> Vec<&ResultMessage> {
    pick(replay, |m| {
        if let Message::Result(r) = m {
            Some(r)
        } else {
            None
        }
    })
}

pub(super) fn init_sessions(replay: &Replay) -> Vec<&str> {
    pick(replay, |m| match m {
        Message::System(SystemMessage::Init(init)) => Some(init.session_id.as_str()),
        _ => None,
    })
}

/// Transcripts with only the generic checks: one `#[tokio::test]` each.
macro_rules! replayed {
    ($($name:ident),* $(,)?) => {
        const GENERIC: &[&str] = &[$(stringify!($name)),*];
        $(#[tokio::test] async fn $name() { run(stringify!($name)).await; })*
    };
}

#[rustfmt::skip]
replayed!(
    api_error_exit_code, can_use_tool, compact_auto, compact_reactive, fork_with_session_id,
    hook_events_pretooluse, hooks_stop_posttooluse, initialize_agents, interrupt_during_mcp_call,
    limit_max_budget, limit_max_turns, mcp_control, mcp_errors, mcp_tool_not_allowed,
    no_initialize, prompt_during_tool, prompt_while_busy, resume_a_new_session, resume_b_same_id,
    resume_c_fork, resume_d_fork_again, resume_f_other_cwd, resume_g_continue,
    resume_h_session_id, sdk_compact, sdk_interrupt_set_model, sdk_resume_1_new,
    sdk_resume_2_resume, sdk_resume_3_fork, sdk_servers_via_initialize, sdk_session_features,
    session_state_events, sigterm_mid_turn, stdin_eof_mid_turn, stdin_malformed_json,
    stdin_unknown_type, user_envelope,
);

/// Transcripts with their own test below.
#[rustfmt::skip]
const SPECIFIC: &[&str] = &[
    "plain_text", "compact_manual", "api_error", "interrupt", "partial_messages", "clear",
    "mcp_sdk_server", "hook_timeout", "error_responses", "set_model_and_mode", "resume_e_missing",
];

#[test]
fn every_recorded_transcript_is_replayed() {
    let entries = std::fs::read_dir(transcript_dir()).expect("list the transcripts");
    let mut missing: Vec<String> = entries
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter(|file| {
            Path::new(file)
                .extension()
                .is_some_and(|ext| ext == "jsonl")
                && !file.ends_with(".api.jsonl")
        })
        .map(|file| file.trim_end_matches(".jsonl").to_owned())
        .filter(|name| !GENERIC.contains(&name.as_str()) && !SPECIFIC.contains(&name.as_str()))
        .collect();
    missing.sort();
    assert!(missing.is_empty(), "not replayed: {missing:?}");
}
