use super::*;

#[test]
fn the_notice_names_the_kind_and_cuts_the_reason() {
    let end = FatalEnd::Gateway("Invalid Discord token.".into());
    assert_eq!(
        end.notice(),
        "shutting down: gateway error: Invalid Discord token."
    );
    let long = FatalEnd::Panic("x".repeat(500));
    let notice = long.notice();
    assert!(notice.starts_with("shutting down: panic: xxx"), "{notice}");
    assert_eq!(
        notice.chars().count(),
        "shutting down: ".len() + crate::discord::notices::greeting::SHUTDOWN_REASON_MAX_CHARS
    );
    assert_eq!(FatalEnd::Error("e".into()).kind(), "error");
}

#[tokio::test]
async fn a_panicking_task_is_reported_by_name() {
    let mut tasks = OwnedTasks::default();
    tasks.spawn("quiet", async {});
    tasks.spawn("scheduler", async {
        tokio::task::yield_now().await;
        panic!("the registry broke");
    });
    let end = tasks.first_panic().await;
    assert_eq!(
        end,
        FatalEnd::Panic("the registry broke (in scheduler)".into())
    );
}

#[tokio::test]
async fn tasks_ending_normally_are_not_fatal() {
    let mut tasks = OwnedTasks::default();
    tasks.spawn("quiet", async {});
    let waited = tokio::time::timeout(Duration::from_millis(50), tasks.first_panic()).await;
    assert!(waited.is_err(), "no fatal end: {waited:?}");
    let formatted = format!("{}", 42);
    let payload: Box<dyn Any + Send> = Box::new(formatted);
    assert_eq!(panic_message(&*payload), "42");
}
