use super::*;

#[test]
fn a_delete_needs_a_second_click_within_the_window() {
    let mut confirmations = DeleteConfirmations::default();
    let start = Instant::now();
    assert_eq!(
        confirmations.click(1, "act:task_del:t1", start),
        SecondClick::Armed
    );
    // Another button or another message is its own confirmation.
    assert_eq!(
        confirmations.click(1, "act:task_del:t2", start),
        SecondClick::Armed
    );
    assert_eq!(
        confirmations.click(2, "act:task_del:t1", start),
        SecondClick::Armed
    );
    let soon = start + Duration::from_secs(9);
    assert_eq!(
        confirmations.click(1, "act:task_del:t1", soon),
        SecondClick::Confirmed
    );
    // Confirmed once: the next click starts over.
    assert_eq!(
        confirmations.click(1, "act:task_del:t1", soon),
        SecondClick::Armed
    );
    // Too late: the window passed, so the click arms again instead of deleting.
    let late = start + CONFIRM_WINDOW + Duration::from_secs(1);
    assert_eq!(
        confirmations.click(1, "act:task_del:t2", late),
        SecondClick::Armed
    );
    assert_eq!(
        confirmations.click(1, "act:task_del:t2", late),
        SecondClick::Confirmed
    );
}
