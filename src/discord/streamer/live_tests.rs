//! The public entry point on the production path: a live receiver and the real tokio clock.

use std::time::Duration;

use super::{StreamOptions, fake::RecordingSink};
use crate::front_end::TurnEvent;

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// The production path: the live receiver and the real tokio clock.
#[tokio::test]
async fn stream_turn_renders_a_live_receiver() {
    let sink = RecordingSink::real_time();
    let (sender, events) = tokio::sync::mpsc::unbounded_channel();
    let producer = tokio::spawn(async move {
        let _ = sender.send(TurnEvent::TextDelta("Hello".into()));
        tokio::time::sleep(ms(400)).await;
        let _ = sender.send(TurnEvent::TextDelta(" world".into()));
    });
    let outcome = super::stream_turn(&sink, events, StreamOptions::default()).await;
    let _ = producer.await;
    assert_eq!(sink.contents(), vec!["Hello world".to_owned()]);
    assert_eq!(outcome.message_ids, sink.ids());
    let first_text = sink
        .edits()
        .into_iter()
        .find(|(_, _, text)| text == "Hello");
    assert!(first_text.is_some_and(|(at, ..)| at >= ms(200) && at < ms(400)));
}

#[test]
fn stream_turn_is_send() {
    fn assert_send<T: Send>(_: &T) {}
    let sink = RecordingSink::real_time();
    let (_sender, events) = tokio::sync::mpsc::unbounded_channel();
    let streaming = super::stream_turn(&sink, events, StreamOptions::default());
    assert_send(&streaming);
}
