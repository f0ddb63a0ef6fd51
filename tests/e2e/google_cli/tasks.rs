//! Every `ollim-bot tasks` subcommand's exact output on one fake account.

use serde_json::{Value, json};

use crate::support::{
    fake_google::FakeGoogle,
    google_cli::{connected, fails, ok, run},
};

fn task(id: &str, title: &str, due: Option<&str>, notes: Option<&str>, done: bool) -> Value {
    let mut task = json!({"id": id, "title": title,
        "status": if done { "completed" } else { "needsAction" }});
    if let Some(due) = due {
        task["due"] = json!(format!("{due}T00:00:00.000Z"));
    }
    if let Some(notes) = notes {
        task["notes"] = json!(notes);
    }
    task
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[allow(clippy::too_many_lines)] // every subcommand in turn, on one fake account
async fn tasks_subcommands_print_their_exact_lines() {
    let fake = FakeGoogle::start().await;
    let (_home, dir) = connected();
    fake.connect(&dir, false);
    fake.with(|d| {
        let tasks = d.tasks("@default");
        tasks.push(task(
            "t1",
            "Buy groceries",
            Some("2026-03-01"),
            Some("Milk"),
            false,
        ));
        tasks.push(task("t2", "Call dentist", None, None, false));
        tasks.push(task("t3", "Old thing", Some("2026-01-02"), None, true));
        tasks.push(task("t4", "Pay rent", None, Some("  "), false));
    });

    // Three incomplete tasks over two pages (page size 2).
    assert_eq!(
        ok(&dir, &fake, &["tasks", "list"]).await,
        "  t1  2026-03-01    [ ]  Buy groceries [+]\n  t2  (no due)      [ ]  Call dentist\n  \
         t4  (no due)      [ ]  Pay rent\n"
    );
    let pages = fake.requests_to("/tasks/v1/lists/@default/tasks");
    assert_eq!(pages.len(), 2);
    assert_eq!(pages[1].param("pageToken"), Some("2"));
    assert_eq!(pages[0].param("showCompleted"), Some("false"));
    let all = ok(&dir, &fake, &["tasks", "list", "--all"]).await;
    assert!(
        all.contains("  t3  2026-01-02    [x]  Old thing\n"),
        "{all}"
    );
    let listed: Value =
        serde_json::from_str(&ok(&dir, &fake, &["tasks", "list", "--json"]).await).unwrap();
    assert_eq!(listed.as_array().unwrap().len(), 3);
    assert_eq!(listed[0]["title"], "Buy groceries");

    assert_eq!(
        ok(&dir, &fake, &["tasks", "show", "t1"]).await,
        "title:     Buy groceries\nstatus:    needs action\ndue:       2026-03-01\nnotes:     \
         Milk\nid:        t1\n"
    );
    let added = ok(
        &dir,
        &fake,
        &[
            "tasks",
            "add",
            "Fix bike",
            "--due",
            "2026-04-05",
            "--notes",
            "tyre",
        ],
    )
    .await;
    let id = added
        .strip_prefix("added ")
        .and_then(|rest| rest.split(':').next())
        .unwrap()
        .to_owned();
    assert_eq!(added, format!("added {id}: 2026-04-05 -- Fix bike\n"));
    let stored = fake.with(|d| d.tasks("@default").last().cloned().unwrap());
    assert_eq!(stored["due"], "2026-04-05T00:00:00.000Z");
    assert_eq!(stored["notes"], "tyre");
    assert_eq!(
        ok(&dir, &fake, &["tasks", "add", "No date"])
            .await
            .split(':')
            .nth(1),
        Some(" (no due) -- No date\n")
    );

    assert_eq!(
        ok(&dir, &fake, &["tasks", "done", "t2"]).await,
        "completed t2\n"
    );
    assert_eq!(
        fake.with(|d| d.tasks("@default")[1]["status"].clone()),
        "completed"
    );
    assert_eq!(
        ok(
            &dir,
            &fake,
            &[
                "tasks",
                "update",
                "t1",
                "--title",
                "Buy food",
                "--due",
                "2026-03-02"
            ]
        )
        .await,
        "updated t1\n"
    );
    let shown = ok(&dir, &fake, &["tasks", "show", "t1"]).await;
    assert!(shown.starts_with("title:     Buy food\n"), "{shown}");
    assert!(shown.contains("due:       2026-03-02\n"), "{shown}");
    assert_eq!(
        fails(&dir, &fake, &["tasks", "update", "t1"]).await,
        "error: provide at least one of --title, --due, --notes"
    );
    assert_eq!(
        ok(&dir, &fake, &["tasks", "delete", "t4"]).await,
        "deleted t4\n"
    );
    assert_eq!(
        fails(&dir, &fake, &["tasks", "show", "t4"]).await,
        "error: task t4 not found"
    );
    assert_eq!(
        fails(&dir, &fake, &["tasks", "list", "--list", "nope"]).await,
        "error: task list 'nope' not found"
    );

    // The configured list is the default; `--list` overrides it.
    fake.with(|d| {
        d.tasks("work")
            .push(task("w1", "Ship it", None, None, false));
    });
    std::fs::write(
        dir.join("state/config.json"),
        r#"{"google_task_list": "work"}"#,
    )
    .unwrap();
    assert_eq!(
        ok(&dir, &fake, &["tasks", "list"]).await,
        "  w1  (no due)      [ ]  Ship it\n"
    );
    std::fs::write(dir.join("state/config.json"), "{}").unwrap();
    fake.with(|d| d.tasks("@default").clear());
    assert_eq!(ok(&dir, &fake, &["tasks", "list"]).await, "no tasks\n");

    // No subcommand: the help, exit 1.
    let bare = run(&dir, &fake, &["tasks"]).await;
    assert_eq!(bare.status.code(), Some(1));
}
