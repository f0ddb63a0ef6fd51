use super::*;

fn at(start: Instant, ms: u64) -> Instant {
    start + Duration::from_millis(ms)
}

#[test]
fn a_few_reconnects_are_taken_as_they_come() {
    let start = Instant::now();
    let mut policy = ReconnectPolicy::default();
    for i in 0..FREE_RECONNECTS as u64 {
        assert_eq!(policy.on_reconnect(at(start, i * 10)), Verdict::Carry);
    }
    // Spread over more than a window, any number is fine.
    for i in 0..10 {
        assert_eq!(
            policy.on_reconnect(at(start, 61_000 + i * 30_000)),
            Verdict::Carry
        );
    }
}

#[test]
fn a_storm_pauses_and_storms_in_a_row_double_the_pause_up_to_the_cap() {
    let start = Instant::now();
    let mut policy = ReconnectPolicy::default();
    let mut clock = 0;
    let mut pauses = Vec::new();
    for _ in 0..9 {
        let verdict = loop {
            clock += 10;
            match policy.on_reconnect(at(start, clock)) {
                Verdict::Carry => {}
                pause @ Verdict::Pause(_) => break pause,
            }
        };
        let Verdict::Pause(pause) = verdict else {
            unreachable!()
        };
        pauses.push(pause.as_secs());
        clock += u64::try_from(pause.as_millis()).unwrap();
    }
    assert_eq!(pauses, [2, 4, 8, 16, 32, 64, 120, 120, 120]);
}

#[test]
fn a_link_that_held_for_a_window_starts_again_from_the_first_pause() {
    let start = Instant::now();
    let mut policy = ReconnectPolicy::default();
    let storm = |policy: &mut ReconnectPolicy, from: u64| {
        (0..=FREE_RECONNECTS as u64)
            .map(|i| policy.on_reconnect(at(start, from + i * 10)))
            .last()
    };
    assert_eq!(storm(&mut policy, 0), Some(Verdict::Pause(FIRST_PAUSE)));
    assert_eq!(
        storm(&mut policy, 3_000),
        Some(Verdict::Pause(FIRST_PAUSE * 2))
    );
    // A quiet minute and more.
    assert_eq!(
        storm(&mut policy, 100_000),
        Some(Verdict::Pause(FIRST_PAUSE))
    );
}
