//! Routine files: an edited routine is registered again, a broken one reported once.

use std::time::Duration;

use super::{cli, greeted, scheduled_id};
use crate::support::{cli::CliSandbox, mock_api::Reply};

#[tokio::test]
async fn an_edited_routine_reregisters_and_a_broken_file_is_reported_once() {
    let sandbox = CliSandbox::new();
    let routines = sandbox.data_dir.join("routines");
    std::fs::create_dir_all(&routines).unwrap();
    std::fs::write(
        routines.join("broken.md"),
        "---\nid: [unclosed\n---\nbody\n",
    )
    .unwrap();
    let mut h = greeted(sandbox).await;
    let (code, stdout, stderr) = cli(
        &h,
        &[
            "routine",
            "add",
            "-m",
            "Say PLUM to Julia",
            "--cron",
            "0 3 1 1 *",
            "-d",
            "Plum check",
        ],
    )
    .await;
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains(": cron '0 3 1 1 *' -- Plum check"),
        "{stdout}"
    );
    let id = scheduled_id(&stdout);
    let (_, listed, _) = cli(&h, &["routine", "list"]).await;
    assert!(
        listed.contains(&format!("  {id}  cron '0 3 1 1 *'")),
        "{listed}"
    );
    // Edit the cron to every minute: the next minute boundary fires it.
    let path = std::fs::read_dir(&routines)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| std::fs::read_to_string(p).unwrap().contains(&id))
        .unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let before = h.log().matches("schedule read").count();
    h.sandbox
        .replace_file(&path, &text.replace("0 3 1 1 *", "* * * * *"));
    h.mock.add_rule(|request| {
        request
            .last_user_text()
            .is_some_and(|t| t.contains("[routine:"))
            .then(|| Reply::text("PLUM!"))
    });
    // Once the edit is read, the next minute passes on the bot's clock (issue 40 §2).
    h.wait_for_log_count("schedule read", before + 1, Duration::from_secs(30))
        .await;
    h.sandbox.advance_clock(Duration::from_secs(60));
    h.wait_for_bot_message_within("the edited routine's fire", Duration::from_secs(75), |m| {
        m.content == "PLUM!"
    })
    .await;
    let fired = h
        .mock
        .main_requests()
        .into_iter()
        .filter_map(|r| r.last_user_text().map(str::to_owned))
        .find(|t| t.contains("[routine:"))
        .unwrap();
    assert!(
        fired.contains(&format!("[routine:{id}] Say PLUM to Julia")),
        "{fired}"
    );
    assert!(
        fired.contains("Couldn't load routines/broken.md"),
        "the broken file reached the main session: {fired}"
    );
    let (code, stdout, _) = cli(&h, &["routine", "cancel", &id]).await;
    assert_eq!(
        (code, stdout.trim()),
        (0, format!("cancelled {id}").as_str())
    );
    let (code, _, stderr) = cli(&h, &["routine", "cancel", &id]).await;
    assert_eq!(
        (code, stderr.trim()),
        (1, format!("routine {id} not found").as_str())
    );
    let (code, _, stderr) = cli(&h, &["routine", "add", "-m", "x", "--cron", "0 9 * *"]).await;
    assert_eq!(code, 1);
    assert_eq!(
        stderr.trim(),
        "error: cron must be 5 fields (minute hour day month weekday)"
    );
    h.terminate().await;
}

/// BGF-24: `model` and `isolated: true` on a routine that runs in the main conversation are
/// ignored — it fires there, on main's model — and the log and the agent are told so, once.
#[tokio::test]
async fn background_only_keys_on_a_foreground_routine_are_ignored_and_noted() {
    let sandbox = CliSandbox::new();
    let routines = sandbox.data_dir.join("routines");
    std::fs::create_dir_all(&routines).unwrap();
    std::fs::write(
        routines.join("tidy.md"),
        "---\nid: tidy\ncron: \"* * * * *\"\ndescription: Tidy up\nbackground: false\n\
         isolated: true\nmodel: haiku\n---\nSay TIDY to Julia\n",
    )
    .unwrap();
    let mut h = greeted(sandbox).await;
    h.mock.add_rule(|request| {
        request
            .last_user_text()
            .is_some_and(|t| t.contains("[routine:tidy]"))
            .then(|| Reply::text("TIDY!"))
    });
    h.wait_for_log_count(
        "only applies to background runs",
        2,
        Duration::from_secs(30),
    )
    .await;
    h.sandbox.advance_clock(Duration::from_secs(60));
    h.wait_for_bot_message_within("the routine's fire", Duration::from_secs(75), |m| {
        m.content == "TIDY!"
    })
    .await;
    let fired = h
        .mock
        .main_requests()
        .into_iter()
        .find(|r| {
            r.last_user_text()
                .is_some_and(|t| t.contains("[routine:tidy]"))
        })
        .unwrap();
    assert!(
        fired.model().is_some_and(|m| !m.contains("haiku")),
        "{:?}",
        fired.model()
    );
    let prompt = fired.last_user_text().unwrap();
    for note in ["\"model\" only applies", "\"isolated: true\" only applies"] {
        assert!(prompt.contains(note), "{note:?} in {prompt}");
    }
    h.terminate().await;
}
