//! `ollim-bot webhook list|test` through the real binary, with only a data dir: no Discord
//! token, no names, no running bot.

use std::process::Output;

fn webhook(data_dir: &std::path::Path, args: &[&str]) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_ollim-bot"))
        .arg("webhook")
        .args(args)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("OLLIM_DATA_DIR", data_dir)
        .env("OLLIM_TIMEZONE", "UTC")
        .current_dir(data_dir)
        .output()
        .expect("run ollim-bot webhook")
}

#[test]
fn list_and_test_work_without_a_running_bot() {
    let dir = tempfile::tempdir().unwrap();
    let hooks = dir.path().join("webhooks");
    std::fs::create_dir_all(&hooks).unwrap();
    std::fs::write(
        hooks.join("ci.md"),
        "---\nid: github-ci\nfields:\n  type: object\n  required: [repo]\n  properties:\n    \
         repo: {type: string}\n---\nCI for {repo}\n",
    )
    .unwrap();
    std::fs::write(hooks.join("bad.md"), "no frontmatter").unwrap();

    let list = webhook(dir.path(), &["list"]);
    assert!(list.status.success(), "{list:?}");
    let text = String::from_utf8_lossy(&list.stdout);
    assert!(
        text.contains("  github-ci  ci.md  bearer  fields: repo*"),
        "{text}"
    );
    assert!(
        text.contains("  BROKEN  webhook spec bad.md is broken: no YAML frontmatter"),
        "{text}"
    );

    let ok = webhook(
        dir.path(),
        &["test", "github-ci", "--data", r#"{"repo": "ollim"}"#],
    );
    assert!(ok.status.success(), "{ok:?}");
    let text = String::from_utf8_lossy(&ok.stdout);
    assert!(text.contains("- repo: ollim\n\nTASK (from your webhook spec -- this is your instruction):\nCI for ollim"), "{text}");
    assert!(text.contains("screening would check: repo"), "{text}");

    let refused = webhook(dir.path(), &["test", "github-ci", "--data", "{}"]);
    assert_eq!(refused.status.code(), Some(1));
    let text = String::from_utf8_lossy(&refused.stderr);
    assert!(
        text.contains(
            "would be refused: 400 {\"error\":\"validation failed\",\"details\":[\"\\\"repo\\\" is a required property\"]}"
        ),
        "{text}"
    );
}
