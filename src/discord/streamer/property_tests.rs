//! Randomised no-loss property (STR-5): whatever the text and however it is chunked and
//! timed, the final contents of the reply messages are the text, in order, each ≤ 2000
//! characters — also while Discord refuses some edits. Plus the sustained edit rate.
// Counts here are far below 2^52, so they are exact as `f64`.
#![allow(clippy::cast_precision_loss)]

use std::time::Duration;

use super::{
    EDIT_INTERVAL, StreamOptions,
    fake::{Op, RecordingSink, Rng, Script, VirtualClock, assert_lossless},
    machine,
};

/// Random text: words (some non-ASCII), spaces, line breaks and now and then a long run
/// without any break.
fn random_text(rng: &mut Rng) -> String {
    let target = match rng.range(0, 9) {
        0 => rng.range(0, 50),
        1..=6 => rng.range(50, 4500),
        _ => rng.range(4500, 12_000),
    };
    let alphabet = ['a', 'e', 'k', 'r', 'z', 'é', 'ß', '🙂', '*', '_', '`'];
    let mut text = String::new();
    let mut chars = 0;
    while chars < target {
        if rng.range(0, 60) == 0 {
            let run = rng.range(300, 2600);
            text.extend(std::iter::repeat_n('x', run));
            chars += run;
        } else {
            for _ in 0..rng.range(1, 12) {
                text.push(alphabet[rng.range(0, alphabet.len() - 1)]);
                chars += 1;
            }
        }
        let separator = match rng.range(0, 19) {
            0..=13 => " ",
            14..=16 => "\n",
            17 => "\n\n",
            _ => ", ",
        };
        text.push_str(separator);
        chars += separator.chars().count();
    }
    text
}

/// Cuts `text` into chunks of 1–400 characters.
fn random_chunks(rng: &mut Rng, text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut chunks = Vec::new();
    let mut start = 0;
    while start < chars.len() {
        let size = if rng.range(0, 3) == 0 {
            rng.range(1, 400)
        } else {
            rng.range(1, 30)
        };
        let end = (start + size).min(chars.len());
        chunks.push(chars[start..end].iter().collect());
        start = end;
    }
    chunks
}

/// Plays `text` in random chunks at random gaps; returns the sink and the end time.
async fn play_random(rng: &mut Rng, text: &str, sink_setup: impl Fn(&RecordingSink)) -> Played {
    let clock = VirtualClock::new();
    let sink = RecordingSink::new(&clock);
    sink_setup(&sink);
    let mut script = Script::new(&clock);
    let mut at = 0;
    for chunk in random_chunks(rng, text) {
        at += match rng.range(0, 9) {
            0 => rng.range(600, 3000),
            1..=3 => 0,
            _ => rng.range(1, 120),
        } as u64;
        script = script.text(at, &chunk);
    }
    let end = at + rng.range(0, 700) as u64;
    let options = StreamOptions {
        no_response_text: false,
    };
    let outcome = machine::run(&sink, script.end(end), options).await;
    assert_eq!(outcome.message_ids, sink.ids(), "returned ids");
    assert_eq!(outcome.text_chars, text.chars().count());
    Played {
        sink,
        end: Duration::from_millis(end),
    }
}

struct Played {
    sink: RecordingSink,
    end: Duration,
}

#[tokio::test]
async fn random_texts_and_chunkings_lose_nothing() {
    let mut rng = Rng::new(0x5EED_0001);
    let mut messages = 0;
    for case in 0..400 {
        let text = random_text(&mut rng);
        let played = play_random(&mut rng, &text, |_| {}).await;
        let contents = played.sink.contents();
        assert!(
            std::panic::catch_unwind(|| assert_lossless(&text, &contents)).is_ok(),
            "case {case}: {} chars into {} messages",
            text.chars().count(),
            contents.len()
        );
        if !text.trim().is_empty() {
            assert!(!contents.is_empty(), "case {case}: nothing posted");
        }
        messages += contents.len();

        // Text writes of one message stay at least 0.5 s apart, the final flush aside.
        let mut last_edit = std::collections::HashMap::new();
        for (at, op) in played.sink.ops() {
            if let Op::Edit(id, content) = op
                && at < played.end
                && !content.starts_with("-# *")
                && let Some(previous) = last_edit.insert(id, at)
            {
                assert!(at >= previous + EDIT_INTERVAL, "case {case}: edit burst");
            }
        }
    }
    eprintln!("400 random turns, {messages} messages, no text lost or repeated");
}

#[tokio::test]
async fn random_texts_survive_refused_edits() {
    let mut rng = Rng::new(0x5EED_0002);
    for case in 0..200 {
        let text = random_text(&mut rng);
        let every = rng.range(2, 5);
        let played = play_random(&mut rng, &text, |sink| sink.fail_every_nth_edit(every)).await;
        let contents = played.sink.contents();
        assert!(
            std::panic::catch_unwind(|| assert_lossless(&text, &contents)).is_ok(),
            "case {case}: every {every}th edit refused"
        );
        let attempts: Vec<Duration> = played
            .sink
            .ops()
            .into_iter()
            .filter(|(at, op)| *at < played.end && matches!(op, Op::Edit(..) | Op::FailedEdit(_)))
            .map(|(at, _)| at)
            .collect();
        let seconds = played.end.as_secs_f64().max(1.0);
        let splits = text.chars().count() / 1800 + 1;
        assert!(
            attempts.len() as f64 <= 2.0 * seconds + splits as f64 + 2.0,
            "case {case}: {} edit attempts in {seconds:.1} s",
            attempts.len()
        );
    }
}

/// A minute of fast streaming (800 chars/s, so a new message every ~2.5 s): edits stay at two
/// a second, and only the overflow adds sends.
#[tokio::test]
async fn sustained_fast_streaming_stays_at_two_edits_a_second() {
    let clock = VirtualClock::new();
    let sink = RecordingSink::new(&clock);
    let mut script = Script::new(&clock);
    let mut full = String::new();
    for step in 0..1200 {
        let piece = format!(
            "{:<39}{}",
            format!("piece {step}"),
            if step % 7 == 6 { '\n' } else { ' ' }
        );
        full.push_str(&piece);
        script = script.text(step * 50, &piece);
    }
    let options = StreamOptions::default();
    let outcome = machine::run(&sink, script.end(60_000), options).await;
    let ops = sink.ops();
    let edits = ops
        .iter()
        .filter(|(_, op)| matches!(op, Op::Edit(..)))
        .count();
    let sends = ops
        .iter()
        .filter(|(_, op)| matches!(op, Op::Send(..)))
        .count();
    let contents = sink.contents();
    assert_lossless(&full, &contents);
    assert_eq!(contents.concat(), full);
    assert_eq!(outcome.message_ids, sink.ids());
    assert!(edits <= 121, "{edits} edits in 60 s");
    eprintln!(
        "60 s at 800 chars/s: {edits} edits ({:.2}/s), {sends} sends, {} messages",
        edits as f64 / 60.0,
        contents.len()
    );
}
