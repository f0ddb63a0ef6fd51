use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::{UnfinishedWork, Work, excerpt};

fn reply(text: &str) -> Work {
    Work::Reply {
        excerpt: text.to_owned(),
    }
}

async fn written(ledger: &UnfinishedWork, stop: &CancellationToken) {
    let writer = tokio::spawn(ledger.clone().keep_written(stop.clone()));
    tokio::time::sleep(Duration::from_millis(100)).await;
    stop.cancel();
    writer.await.unwrap();
}

#[tokio::test]
async fn work_left_running_is_interrupted_at_the_next_open() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("unfinished.json");
    let ledger = UnfinishedWork::open(path.clone());
    let done = ledger.begin(reply("finished one"));
    let _cut = ledger.begin(Work::Run {
        name: "morning checkin".to_owned(),
        excerpt: "look at the calendar".to_owned(),
    });
    done.finish();
    assert_eq!(ledger.running().len(), 1);
    written(&ledger, &CancellationToken::new()).await;

    let reopened = UnfinishedWork::open(path.clone());
    let interrupted = reopened.interrupted();
    assert_eq!(interrupted.len(), 1);
    assert!(matches!(&interrupted[0].work, Work::Run { name, .. } if name == "morning checkin"));
    assert!(reopened.running().is_empty());
    // Not told yet: a second crash keeps it.
    written(&reopened, &CancellationToken::new()).await;
    let again = UnfinishedWork::open(path.clone());
    assert_eq!(again.interrupted().len(), 1);
    again.forget_interrupted(1);
    written(&again, &CancellationToken::new()).await;
    assert!(UnfinishedWork::open(path).interrupted().is_empty());
}

#[tokio::test]
async fn a_damaged_ledger_is_set_aside() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("unfinished.json");
    std::fs::write(&path, b"{\"running\": {\"1\": ").unwrap();
    let ledger = UnfinishedWork::open(path.clone());
    assert!(ledger.interrupted().is_empty());
    let aside = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(Result::ok)
        .any(|e| e.file_name().to_string_lossy().contains(".corrupt-"));
    assert!(aside, "the damaged file is kept aside");
}

#[test]
fn excerpts_are_one_short_line() {
    assert_eq!(excerpt("  hello\nworld"), "hello");
    let long = "x".repeat(200);
    let cut = excerpt(&long);
    assert_eq!(cut.chars().count(), 80);
    assert!(cut.ends_with('…'));
}
