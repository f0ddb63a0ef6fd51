use super::*;

fn store() -> (tempfile::TempDir, ToolApprovals) {
    let dir = tempfile::tempdir().unwrap();
    let store = ToolApprovals::new(dir.path().join("tool_approvals.json"));
    (dir, store)
}

fn strings(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn a_request_is_asked_once_and_answered_only_from_its_message() {
    let (_dir, store) = store();
    let patterns = strings(&["Bash(curl *)"]);
    let id = store
        .open_request("routine:a", "routines/a.md", &patterns, None)
        .unwrap()
        .unwrap();
    assert_eq!(
        store
            .open_request("routine:a", "routines/a.md", &patterns, None)
            .unwrap(),
        None,
        "already asked"
    );
    assert_eq!(
        store.decide(&id, true, 42).unwrap(),
        DecideOutcome::NotPostedYet,
        "a click quicker than the post waits for it"
    );
    store.set_message(&id, 42).unwrap();
    assert_eq!(
        store.decide(&id, true, 7).unwrap(),
        DecideOutcome::WrongMessage
    );
    assert!(matches!(
        store.decide(&id, true, 42).unwrap(),
        DecideOutcome::Decided(_)
    ));
    assert_eq!(
        store.decide(&id, true, 42).unwrap(),
        DecideOutcome::NotPending
    );
    assert_eq!(
        store.decisions("routine:a").approval("Bash(curl *)"),
        Approval::Approved
    );
    assert_eq!(
        store.decisions("routine:b").approval("Bash(curl *)"),
        Approval::Undecided,
        "approvals are per source"
    );
}

#[test]
fn a_new_pattern_asks_again_and_denials_stick() {
    let (_dir, store) = store();
    let first = store
        .open_request(
            "reminder:r",
            "reminders/r.md",
            &strings(&["Bash(a *)"]),
            None,
        )
        .unwrap()
        .unwrap();
    store.set_message(&first, 1).unwrap();
    store.decide(&first, false, 1).unwrap();
    assert_eq!(
        store.decisions("reminder:r").approval("Bash(a *)"),
        Approval::Denied
    );
    let second = store
        .open_request(
            "reminder:r",
            "reminders/r.md",
            &strings(&["Bash(b *)"]),
            None,
        )
        .unwrap();
    assert!(second.is_some(), "an added pattern asks again");
}

#[test]
fn the_owner_approving_in_the_shell_closes_the_request() {
    let (_dir, store) = store();
    let patterns = strings(&["Bash(curl *)"]);
    let id = store
        .open_request("routine:a", "routines/a.md", &patterns, None)
        .unwrap()
        .unwrap();
    store.approve("routine:a", &patterns, None).unwrap();
    store.set_message(&id, 5).unwrap();
    assert_eq!(
        store.decide(&id, false, 5).unwrap(),
        DecideOutcome::NotPending
    );
    assert_eq!(
        store.decisions("routine:a").approval("Bash(curl *)"),
        Approval::Approved
    );
}

#[test]
fn a_corrupt_file_counts_as_nothing_approved() {
    let (dir, store) = store();
    std::fs::write(dir.path().join("tool_approvals.json"), "{not json").unwrap();
    assert_eq!(store.decisions("routine:a"), Decisions::default());
}

#[test]
fn approvals_hold_for_the_version_they_were_made_for() {
    let (_dir, store) = store();
    let patterns = strings(&["Bash(curl *)"]);
    store.approve("routine:a", &patterns, Some("v1")).unwrap();
    let decisions = store.decisions("routine:a");
    assert_eq!(
        decisions.at(Some("v1")).approval("Bash(curl *)"),
        Approval::Approved
    );
    assert_eq!(
        decisions.at(Some("v2")).approval("Bash(curl *)"),
        Approval::Undecided,
        "an edit asks again"
    );
    // Approving the new version drops the old one's approvals.
    store
        .approve("routine:a", &strings(&["Bash(ls)"]), Some("v2"))
        .unwrap();
    let decisions = store.decisions("routine:a");
    assert_eq!(
        decisions.at(Some("v2")).approval("Bash(curl *)"),
        Approval::Undecided
    );
    assert_eq!(
        decisions.at(Some("v2")).approval("Bash(ls)"),
        Approval::Approved
    );
}
