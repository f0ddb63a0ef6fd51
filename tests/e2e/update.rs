//! Self-update end to end (SLC-11, SLC-15, UPD-2…8, GRT-1/2): the real binary against the fake
//! Discord, the pinned Claude CLI and the mock model, updating a checkout cloned from a local
//! bare repository (`origin`). A fake `cargo` first on `PATH` records its arguments and exits
//! 0: `cargo` is an external tool, and the real `cargo install` takes minutes.

use crate::support;

use std::{
    os::unix::fs::PermissionsExt,
    path::{Path, PathBuf},
    process::Command,
    time::Duration,
};

use serde_json::json;
use support::{
    bot::BotHarness,
    fake_discord::{FakeConfig, FakeMessage},
    mock_api::Reply,
};
use tempfile::TempDir;

/// `origin` (bare), the `seed` repository that publishes to it, the bot's `checkout` cloned
/// from it at `v0.1.0`, and a `bin/` holding the fake `cargo`.
struct Repos {
    root: TempDir,
    seed: PathBuf,
    checkout: PathBuf,
}

/// Runs git with a throwaway identity and no user or system configuration; returns stdout.
fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@t"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("run git");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

impl Repos {
    fn new() -> Self {
        let root = tempfile::tempdir().unwrap();
        let top = root.path();
        git(top, &["init", "-q", "--bare", "-b", "main", "origin.git"]);
        git(top, &["init", "-q", "-b", "main", "seed"]);
        let seed = top.join("seed");
        std::fs::write(seed.join("NOTES"), "first\n").unwrap();
        git(&seed, &["add", "."]);
        git(&seed, &["commit", "-q", "-m", "first release"]);
        git(&seed, &["tag", "v0.1.0"]);
        let origin = top.join("origin.git");
        git(
            &seed,
            &["remote", "add", "origin", origin.to_str().unwrap()],
        );
        git(&seed, &["push", "-q", "origin", "main", "--tags"]);
        git(top, &["clone", "-q", origin.to_str().unwrap(), "checkout"]);
        let bin = top.join("bin");
        std::fs::create_dir(&bin).unwrap();
        let cargo = bin.join("cargo");
        let log = top.join("cargo-calls");
        std::fs::write(
            &cargo,
            format!(
                "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '{}'\nexit 0\n",
                log.display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&cargo, std::fs::Permissions::from_mode(0o755)).unwrap();
        Self {
            seed,
            checkout: top.join("checkout"),
            root,
        }
    }

    /// Commits `subject` upstream, tags it when asked, and pushes.
    fn publish(&self, subject: &str, tag: Option<&str>) {
        std::fs::write(self.seed.join("NOTES"), format!("{subject}\n")).unwrap();
        git(&self.seed, &["commit", "-q", "-am", subject]);
        if let Some(tag) = tag {
            git(&self.seed, &["tag", tag]);
        }
        git(&self.seed, &["push", "-q", "origin", "main", "--tags"]);
    }

    /// The commit `rev` names in `dir`.
    fn commit(dir: &Path, rev: &str) -> String {
        git(dir, &["rev-parse", &format!("{rev}^{{commit}}")])
    }

    fn checkout_head(&self) -> String {
        Self::commit(&self.checkout, "HEAD")
    }

    /// What the fake `cargo` was called with, one call a line.
    fn cargo_calls(&self) -> Option<String> {
        std::fs::read_to_string(self.root.path().join("cargo-calls")).ok()
    }

    /// The bot's extra environment: the checkout and the fake `cargo` first on `PATH`.
    fn env(&self, extra: &[(&str, &str)]) -> Vec<(String, String)> {
        let path = format!(
            "{}:{}",
            self.root.path().join("bin").display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let mut env = vec![
            (
                "OLLIM_SOURCE_DIR".to_owned(),
                self.checkout.display().to_string(),
            ),
            ("PATH".to_owned(), path),
        ];
        env.extend(
            extra
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned())),
        );
        env
    }
}

/// Starts the bot on `repos`' checkout and waits for the first-run greeting.
async fn start(repos: &Repos, extra: &[(&str, &str)]) -> (BotHarness, FakeMessage) {
    let env = repos.env(extra);
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let h = BotHarness::start_with(FakeConfig::default(), &env).await;
    let greeting = h.greeted().await;
    (h, greeting)
}

/// Runs `/update` and returns the deferred answer once it is filled in.
async fn update(h: &BotHarness) -> String {
    let id = h.discord.slash(h.owner(), "update", json!([])).await;
    let callback = h.discord.wait_for_callback(id).await;
    assert_eq!(callback["type"], 5, "deferred: {callback}");
    h.wait_for_bot_message_within("the /update answer", Duration::from_secs(60), |m| {
        m.interaction_id == Some(id) && !m.content.is_empty()
    })
    .await
    .content
}

/// `/version`'s ephemeral answer.
async fn version(h: &BotHarness) -> String {
    let id = h.discord.slash(h.owner(), "version", json!([])).await;
    let callback = h.discord.wait_for_callback(id).await;
    assert_ne!(
        callback["data"]["flags"].as_u64().unwrap_or_default() & 64,
        0,
        "ephemeral: {callback}"
    );
    callback["data"]["content"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// Turns `auto_update` on with the bot's hour (UTC, the harness's `OLLIM_TIMEZONE`) as
/// `auto_update_hour`, as an editor would: a new file renamed into place. Near the end of an
/// hour it first moves the bot's clock into the next one, so the check never straddles the
/// change.
fn enable_auto_update_this_hour(h: &BotHarness) {
    use chrono::Timelike;
    let bot_now = || chrono::Utc::now() + h.sandbox.clock_ahead();
    let now = bot_now();
    if now.minute() == 59 && now.second() >= 30 {
        h.sandbox
            .advance_clock(Duration::from_secs(u64::from(61 - now.second())));
    }
    let hour = bot_now().hour();
    let state = h.sandbox.data_dir.join("state");
    let config = json!({"auto_update": true, "auto_update_hour": hour});
    std::fs::write(state.join("config.json.tmp"), config.to_string()).unwrap();
    std::fs::rename(state.join("config.json.tmp"), state.join("config.json")).unwrap();
}

/// SLC-11, UPD-3, UPD-5…8, SLC-15: a newer tag upstream is pulled, installed with `cargo
/// install --locked --path <checkout>`, announced with the new commits' subjects, and the
/// bot restarts in place into it, greeting with the new version.
#[tokio::test]
async fn update_pulls_the_new_tag_installs_it_and_restarts() {
    let repos = Repos::new();
    repos.publish("add the garden planner", None);
    repos.publish("fix the watering reminder", Some("v9.9.9"));
    let (mut h, greeting) = start(&repos, &[]).await;
    assert!(
        greeting.content.contains("(v0.1.0)"),
        "{}",
        greeting.content
    );
    assert_eq!(version(&h).await, "ollim-bot v0.1.0");
    let pid = h.pid();

    let answer = update(&h).await;
    assert_eq!(
        answer,
        "updating and restarting...\n```\nfix the watering reminder\nadd the garden planner\n```"
    );
    h.wait_for_bot_message_within(
        "the greeting after the update",
        Duration::from_secs(40),
        |m| m.content.contains("plate today") && m.content.contains("(v9.9.9)"),
    )
    .await;
    assert_eq!(h.pid(), pid, "restarted in place (UPD-7)");
    assert_eq!(h.discord.identify_count(), 2);
    assert_eq!(
        repos.checkout_head(),
        Repos::commit(&repos.seed, "v9.9.9"),
        "the checkout was fast-forwarded to the tag"
    );
    assert_eq!(
        repos.cargo_calls().as_deref(),
        Some(format!("install --locked --path {}\n", repos.checkout.display()).as_str())
    );
    assert_eq!(version(&h).await, "ollim-bot v9.9.9");
    let record =
        std::fs::read_to_string(h.sandbox.data_dir.join("state/update.json")).unwrap_or_default();
    assert!(
        record.contains("v9.9.9"),
        "the loop guard's record: {record}"
    );
    assert!(h.log().contains("restarting"), "{}", h.log());
    assert!(h.terminate().await.success());
}

/// UPD-3: commits without a new tag are no update; nothing is pulled or installed.
#[tokio::test]
async fn untagged_commits_are_no_update() {
    let repos = Repos::new();
    let before = repos.checkout_head();
    repos.publish("work in progress", None);
    let (mut h, _) = start(&repos, &[]).await;
    assert_eq!(update(&h).await, "already up to date.");
    assert_eq!(repos.checkout_head(), before);
    assert_eq!(repos.cargo_calls(), None);
    assert!(h.terminate().await.success());
}

/// UPD-5, SLC-11: a checkout with a commit of its own cannot be fast-forwarded; the update
/// fails with the command's exit code and nothing is installed.
#[tokio::test]
async fn a_diverged_checkout_fails_the_update() {
    let repos = Repos::new();
    std::fs::write(repos.checkout.join("LOCAL"), "mine\n").unwrap();
    git(&repos.checkout, &["add", "."]);
    git(&repos.checkout, &["commit", "-q", "-m", "a local change"]);
    let local = repos.checkout_head();
    repos.publish("upstream change", Some("v9.9.9"));
    let (mut h, _) = start(&repos, &[]).await;
    let answer = update(&h).await;
    assert!(
        answer.starts_with("update failed: `git pull --ff-only` returned 128"),
        "{answer}"
    );
    assert_eq!(repos.checkout_head(), local);
    assert_eq!(repos.cargo_calls(), None);
    assert!(h.terminate().await.success());
}

/// UPD-1, UPD-2, UPD-4: with `auto_update` on and the current hour as `auto_update_hour`, a
/// new release found while the main session is in a turn is deferred ("agent busy"): nothing
/// is pulled or installed.
#[tokio::test]
async fn auto_update_waits_while_the_agent_is_busy() {
    let repos = Repos::new();
    let before = repos.checkout_head();
    repos.publish("upstream change", Some("v9.9.9"));
    let (mut h, _) = start(&repos, &[("OLLIM_UPDATE_POLL_SECS", "1")]).await;

    h.mock
        .push(Reply::text("done thinking").with_initial_delay(Duration::from_secs(10)));
    h.discord.dm_from(h.owner(), "take your time").await;
    h.mock
        .wait_for_main_requests(1, Duration::from_secs(20))
        .await;
    enable_auto_update_this_hour(&h);

    h.wait_for_log(
        "auto-update: deferred (agent busy)",
        Duration::from_secs(20),
    )
    .await;
    assert_eq!(repos.checkout_head(), before, "nothing was pulled");
    assert_eq!(repos.cargo_calls(), None, "nothing was installed");
    h.wait_for_bot_message("the slow reply", |m| m.content == "done thinking")
        .await;
    assert!(
        !h.bot_messages()
            .iter()
            .any(|m| m.content.starts_with("updating and restarting")),
        "updated while busy"
    );
    assert!(h.terminate().await.success());
}

/// UPD-2, UPD-4…7: with `auto_update` on, the agent idle and the current hour as
/// `auto_update_hour`, the loop installs the new release, DMs the restart message and
/// restarts into it.
#[tokio::test]
async fn auto_update_installs_when_idle_in_its_hour() {
    let repos = Repos::new();
    repos.publish("teach the planner about frost", Some("v9.9.9"));
    let (mut h, _) = start(&repos, &[("OLLIM_UPDATE_POLL_SECS", "1")]).await;
    h.converse("hello", "hi julia").await;
    let pid = h.pid();
    enable_auto_update_this_hour(&h);

    h.wait_for_bot_message_within("the restart message", Duration::from_secs(30), |m| {
        m.content == "updating and restarting...\n```\nteach the planner about frost\n```"
    })
    .await;
    h.wait_for_bot_message_within(
        "the greeting after the update",
        Duration::from_secs(40),
        |m| {
            m.content.lines().next()
                == Some("hey, i'm back (v9.9.9). picking up where we left off.")
        },
    )
    .await;
    assert_eq!(h.pid(), pid, "restarted in place (UPD-7)");
    assert_eq!(repos.checkout_head(), Repos::commit(&repos.seed, "v9.9.9"));
    assert!(repos.cargo_calls().is_some(), "installed");
    let history =
        std::fs::read_to_string(h.sandbox.data_dir.join("state/session_history.jsonl")).unwrap();
    assert!(history.contains("\"restarting\""), "{history}");
    assert!(h.terminate().await.success());
}

/// UPD-5: an automatic update that fails is reported in a DM (`auto-update failed: <err>`).
#[tokio::test]
async fn a_failed_auto_update_is_reported() {
    let repos = Repos::new();
    std::fs::write(repos.checkout.join("LOCAL"), "mine\n").unwrap();
    git(&repos.checkout, &["add", "."]);
    git(&repos.checkout, &["commit", "-q", "-m", "a local change"]);
    repos.publish("upstream change", Some("v9.9.9"));
    let (mut h, _) = start(&repos, &[("OLLIM_UPDATE_POLL_SECS", "1")]).await;
    h.converse("hello", "hi julia").await;
    enable_auto_update_this_hour(&h);

    let failed = h
        .wait_for_bot_message_within("the failure DM", Duration::from_secs(30), |m| {
            m.content.starts_with("auto-update failed: ")
        })
        .await;
    assert!(
        failed
            .content
            .starts_with("auto-update failed: `git pull --ff-only` returned 128"),
        "{}",
        failed.content
    );
    assert_eq!(repos.cargo_calls(), None);
    assert!(h.terminate().await.success());
}
