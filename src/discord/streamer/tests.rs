//! Scenario tests on the virtual clock: each scripts a turn's events, runs the real loop and
//! checks what the recording sink saw.

use std::time::Duration;

use super::{
    StreamOptions, StreamOutcome,
    fake::{Op, RecordingSink, Script, VirtualClock, assert_lossless},
    machine,
};
use crate::front_end::TurnEvent;

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

fn tool(id: &str, label: &str) -> TurnEvent {
    TurnEvent::ToolUse {
        id: id.to_owned(),
        label: label.to_owned(),
    }
}

async fn play(sink: &RecordingSink, script: Script) -> StreamOutcome {
    machine::run(sink, script, StreamOptions::default()).await
}

/// Words and line breaks, exactly `len` characters.
fn prose(len: usize) -> String {
    let words = [
        "focus", "on", "the", "next", "small", "step", "then", "breathe",
    ];
    let mut text = String::new();
    let mut index = 0;
    while text.len() < len {
        let word = words[index % words.len()];
        text.push_str(word);
        text.push(if index % 11 == 10 { '\n' } else { ' ' });
        index += 1;
    }
    text.truncate(len);
    text
}

#[tokio::test]
async fn status_line_becomes_the_reply_in_place() {
    let clock = VirtualClock::new();
    let sink = RecordingSink::new(&clock);
    let script = Script::new(&clock).text(2000, "Hello there").end(3000);
    let outcome = play(&sink, script).await;

    let ops = sink.ops();
    assert_eq!(ops[0], (ms(0), Op::Typing));
    let Some((_, Op::Send(status, first))) = ops.get(1).cloned() else {
        panic!("no status line: {ops:?}");
    };
    assert_eq!(first, "-# *Thinking...*");
    assert!(ops.contains(&(ms(1000), Op::Edit(status, "-# *Thinking... (1s)*".into()))));
    assert!(ops.contains(&(ms(2200), Op::Edit(status, "Hello there".into()))));
    assert!(!ops.iter().any(|(_, op)| matches!(op, Op::Delete(_))));
    assert_eq!(sink.messages(), vec![(status, "Hello there".to_owned())]);
    assert_eq!(outcome.message_ids, vec![status]);
    assert_eq!(outcome.text_chars, 11);
    assert!(!outcome.compacted);
}

#[tokio::test]
async fn edits_are_throttled_under_continuous_streaming() {
    let clock = VirtualClock::new();
    let sink = RecordingSink::new(&clock);
    let mut script = Script::new(&clock);
    let mut full = String::new();
    for step in 0..200 {
        script = script.text(step * 50, "word ");
        full.push_str("word ");
    }
    let outcome = play(&sink, script.end(10_000)).await;

    let edits = sink.edits();
    // Timer edits only; the final flush when the turn ends is immediate.
    let text_edits: Vec<Duration> = edits
        .iter()
        .filter(|(at, _, content)| !content.starts_with("-# *") && *at < ms(10_000))
        .map(|(at, _, _)| *at)
        .collect();
    assert_eq!(text_edits.first(), Some(&ms(200)));
    for pair in text_edits.windows(2) {
        assert!(pair[1] >= pair[0] + ms(500), "edits too close: {pair:?}");
    }
    let in_ten_seconds = edits.iter().filter(|(at, ..)| *at <= ms(10_000)).count();
    assert!(in_ten_seconds <= 21, "{in_ten_seconds} edits in 10 s");
    eprintln!(
        "continuous streaming: {} timer edits + the closing flush = {in_ten_seconds} edits in 10 s",
        text_edits.len()
    );
    assert_eq!(sink.contents(), vec![full.clone()]);
    assert_eq!(outcome.message_ids, sink.ids());
}

#[tokio::test]
async fn long_answer_splits_at_line_and_space_boundaries() {
    let clock = VirtualClock::new();
    let sink = RecordingSink::new(&clock);
    let full = prose(5000);
    let mut script = Script::new(&clock);
    for (step, chunk) in full.as_bytes().chunks(25).enumerate() {
        let chunk = std::str::from_utf8(chunk).unwrap_or_default();
        script = script.text(step as u64 * 20, chunk);
    }
    let outcome = play(&sink, script.end(5000)).await;

    let contents = sink.contents();
    assert_eq!(contents.len(), 3, "{contents:#?}");
    for part in &contents[..2] {
        assert!(part.ends_with('\n') || part.ends_with(' '), "{part:?}");
        assert!(part.chars().count() > 1800);
    }
    assert_eq!(contents.concat(), full);
    assert_lossless(&full, &contents);
    assert_eq!(outcome.message_ids, sink.ids());
}

#[tokio::test]
async fn tool_labels_render_inline_with_denied_and_error() {
    let clock = VirtualClock::new();
    let sink = RecordingSink::new(&clock);
    let script = Script::new(&clock)
        .text(100, "Let me look.")
        .at(150, tool("1", "Read(a/b.md)"))
        .at(300, tool("2", "Bash(rm x)"))
        .at(400, TurnEvent::ToolDenied { id: "2".into() })
        .at(450, TurnEvent::ToolFailed { id: "2".into() })
        .at(1500, tool("3", "Grep(x)"))
        .at(2500, TurnEvent::ToolFailed { id: "3".into() })
        .at(2600, tool("3", "Grep(x)"))
        .text(3000, "Done.")
        .end(3500);
    let outcome = play(&sink, script).await;

    let expected = "Let me look.\n-# *Read(a/b.md)*\n\
                    \n-# *~~Bash(rm x)~~ — denied (use /permissions default to approve)*\n\
                    \n-# *~~Grep(x)~~ — error*\nDone.";
    assert_eq!(sink.contents(), vec![expected.to_owned()]);
    assert_eq!(outcome.message_ids, sink.ids());

    // The tool phase after text had its own status line, gone once text resumed.
    let ops = sink.ops();
    let fresh = ops.iter().find_map(|(_, op)| match op {
        Op::Send(id, text) if text.starts_with("-# *Bash") => Some(*id),
        _ => None,
    });
    let Some(fresh) = fresh else {
        panic!("no status line for the tools: {ops:?}");
    };
    assert!(ops.contains(&(ms(1500), Op::Edit(fresh, "-# *Grep(x)...*".into()))));
    assert!(ops.contains(&(ms(2500), Op::Edit(fresh, "-# *Grep(x)... (1s)*".into()))));
    assert!(ops.contains(&(ms(3000), Op::Delete(fresh))));
}

#[tokio::test]
async fn labels_render_at_the_end_and_early_denials_count() {
    let clock = VirtualClock::new();
    let sink = RecordingSink::new(&clock);
    let script = Script::new(&clock)
        .text(0, "saving it")
        .at(100, TurnEvent::ToolDenied { id: "w".into() })
        .at(120, tool("w", "Write(x.md)"))
        .at(200, tool("r", "Read(y.md)"))
        .end(400);
    play(&sink, script).await;
    assert_eq!(
        sink.contents(),
        vec![
            "saving it\n-# *~~Write(x.md)~~ — denied (use /permissions default to approve)*\n\
             \n-# *Read(y.md)*\n"
                .to_owned()
        ]
    );
}

#[tokio::test]
async fn status_timer_ticks_once_a_second_and_restarts_on_a_new_label() {
    let clock = VirtualClock::new();
    let sink = RecordingSink::new(&clock);
    let script = Script::new(&clock)
        .at(5600, tool("1", "Bash(ollim-bot tasks list)"))
        .at(9000, tool("2", "Bash(ollim-bot tasks list)"))
        .text(13_000, "done")
        .end(13_500);
    play(&sink, script).await;

    let edits = sink.edits();
    let shown_at = |text: &str| {
        edits
            .iter()
            .find(|(_, _, content)| content == text)
            .map(|(at, ..)| *at)
    };
    assert_eq!(shown_at("-# *Thinking... (3s)*"), Some(ms(3000)));
    assert_eq!(
        shown_at("-# *Bash(ollim-bot tasks list)...*"),
        Some(ms(5600))
    );
    // The same label again does not restart the timer.
    assert_eq!(
        shown_at("-# *Bash(ollim-bot tasks list)... (7s)*"),
        Some(ms(12_600))
    );
    let status: Vec<Duration> = edits
        .iter()
        .filter(|(_, _, content)| content.starts_with("-# *") && content.contains("...*"))
        .map(|(at, ..)| *at)
        .collect();
    for pair in status.windows(2) {
        assert!(
            pair[1] >= pair[0] + ms(500),
            "status edits too close: {pair:?}"
        );
    }
    assert!(status.len() <= 13, "{} status edits in 13 s", status.len());
    let label = "\n-# *Bash(ollim-bot tasks list)*\n";
    // A message never starts with the label's leading blank line.
    let expected = format!("{label}{label}done")
        .trim_start_matches('\n')
        .to_owned();
    assert_eq!(sink.contents(), vec![expected]);
}

#[tokio::test]
async fn compaction_leaves_before_note_after() {
    let clock = VirtualClock::new();
    let sink = RecordingSink::new(&clock);
    let script = Script::new(&clock)
        .text(100, "before")
        .at(
            1000,
            TurnEvent::Compacting {
                pre_tokens: Some(150_000),
            },
        )
        .at(
            6000,
            TurnEvent::Compacted {
                pre_tokens: Some(150_000),
                seconds: 5,
            },
        )
        .text(7000, "after")
        .end(8000);
    let outcome = play(&sink, script).await;

    assert_eq!(
        sink.contents(),
        vec![
            "before".to_owned(),
            "-# *auto-compacted · 150k tokens · 5s*".to_owned(),
            "after".to_owned(),
        ]
    );
    assert!(
        sink.edits()
            .iter()
            .any(|(_, _, text)| text == "-# *Auto-compacting 150k tokens... (3s)*")
    );
    assert_eq!(outcome.message_ids, sink.ids());
    assert!(outcome.compacted);
}

#[tokio::test]
async fn compaction_cut_short_by_the_end_still_leaves_its_note() {
    let clock = VirtualClock::new();
    let sink = RecordingSink::new(&clock);
    let script = Script::new(&clock)
        .at(500, TurnEvent::Compacting { pre_tokens: None })
        .end(4000);
    let outcome = play(&sink, script).await;
    assert_eq!(sink.contents(), vec!["-# *auto-compacted · 3s*".to_owned()]);
    assert_eq!(outcome.message_ids, sink.ids());
    assert!(outcome.compacted);
}

#[tokio::test]
async fn failed_edits_lose_nothing_and_do_not_burst() {
    let clock = VirtualClock::new();
    let sink = RecordingSink::new(&clock);
    sink.fail_edits_from(ms(1000), 3);
    let mut script = Script::new(&clock);
    let mut full = String::new();
    for step in 0..100 {
        let piece = format!("chunk{step} ");
        full.push_str(&piece);
        script = script.text(step * 50, &piece);
    }
    play(&sink, script.end(6000)).await;

    let attempts: Vec<Duration> = sink
        .ops()
        .into_iter()
        .filter(|(_, op)| matches!(op, Op::Edit(..) | Op::FailedEdit(_)))
        .map(|(at, _)| at)
        .collect();
    let failures = sink
        .ops()
        .iter()
        .filter(|(_, op)| matches!(op, Op::FailedEdit(_)))
        .count();
    assert_eq!(failures, 3);
    for pair in attempts.windows(2) {
        assert!(pair[1] >= pair[0] + ms(500), "retry burst: {pair:?}");
    }
    assert_eq!(sink.contents(), vec![full]);
}

#[tokio::test]
async fn a_refused_final_edit_is_tried_again_a_little_later() {
    let clock = VirtualClock::new();
    let sink = RecordingSink::new(&clock);
    sink.fail_edits_from(ms(1000), 2);
    let script = Script::new(&clock)
        .text(0, "first part")
        .text(1000, ", and the end")
        .end(1000);
    play(&sink, script).await;
    assert_eq!(sink.contents(), vec!["first part, and the end".to_owned()]);
    let last = sink.edits().last().map(|(at, ..)| *at);
    assert_eq!(last, Some(ms(2500)));
}

#[tokio::test]
async fn an_empty_turn_says_so() {
    let clock = VirtualClock::new();
    let sink = RecordingSink::new(&clock);
    let outcome = play(&sink, Script::new(&clock).end(2000)).await;
    assert_eq!(sink.contents(), vec!["no response — try again.".to_owned()]);
    assert_eq!(outcome.message_ids, sink.ids());
    assert!(sink.ops().iter().any(|(_, op)| matches!(op, Op::Delete(_))));

    let quiet = RecordingSink::new(&clock);
    let options = StreamOptions {
        no_response_text: false,
    };
    let outcome = machine::run(&quiet, Script::new(&clock).text(10, " \n"), options).await;
    assert!(quiet.messages().is_empty());
    assert!(outcome.message_ids.is_empty());
}

#[tokio::test]
async fn blank_text_still_gets_the_no_response_line() {
    let clock = VirtualClock::new();
    let sink = RecordingSink::new(&clock);
    let outcome = play(&sink, Script::new(&clock).text(100, "\n\n").end(500)).await;
    assert_eq!(sink.contents(), vec!["no response — try again.".to_owned()]);
    assert_eq!(outcome.message_ids, sink.ids());
}

/// CTX-6: the catching-up note comes before the reply and is gone once the turn is over.
#[tokio::test]
async fn the_catching_up_note_comes_before_the_reply_and_goes_after_it() {
    let clock = VirtualClock::new();
    let sink = RecordingSink::new(&clock);
    let script = Script::new(&clock)
        .at(0, TurnEvent::CatchingUp)
        .text(1500, "hi")
        .end(2000);
    let outcome = play(&sink, script).await;
    let shown = sink.ops().into_iter().find_map(|(_, op)| match op {
        Op::Send(id, text) | Op::Edit(id, text) if text.contains("catching up") => Some(id),
        _ => None,
    });
    let shown = shown.expect("the note shown");
    assert!(
        sink.ops()
            .iter()
            .any(|(_, op)| matches!(op, Op::Delete(id) if *id == shown))
    );
    assert_eq!(sink.contents(), vec!["hi".to_owned()]);
    assert_eq!(outcome.message_ids, sink.ids());
}

#[tokio::test]
async fn a_notice_mid_reply_closes_the_message() {
    let clock = VirtualClock::new();
    let sink = RecordingSink::new(&clock);
    let script = Script::new(&clock)
        .text(0, "one")
        .at(1000, TurnEvent::Notice("heads up".into()))
        .text(1100, "two")
        .end(2000);
    let outcome = play(&sink, script).await;
    assert_eq!(
        sink.contents(),
        vec!["one".to_owned(), "-# heads up".to_owned(), "two".to_owned()]
    );
    assert_eq!(outcome.message_ids, sink.ids());
}
