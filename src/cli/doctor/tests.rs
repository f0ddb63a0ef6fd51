//! `doctor`'s checks as plain functions (CMD-7): each on a temporary data dir or injected
//! findings, no terminal.

use std::{
    fs,
    path::{Path, PathBuf},
};

use chrono::{TimeZone, Utc};
use chrono_tz::Tz;

use super::{
    Check, CheckStatus, Group, Summary, claude_cli, discord_app, environment, google_files,
    render_group,
};
use crate::{
    claude::{CliVersion, TESTED_CLI_VERSION},
    config::{ClaudeCli, CliOrigin, EnvFileSource, WebhookSecret, WebhookSetting},
    state::paths::DataDir,
};

pub(super) const TZ: Tz = chrono_tz::Europe::Berlin;

pub(super) fn data_dir() -> (tempfile::TempDir, DataDir) {
    let dir = tempfile::tempdir().unwrap();
    let data = DataDir::new(dir.path());
    (dir, data)
}

pub(super) fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

pub(super) fn statuses(checks: &[Check]) -> Vec<CheckStatus> {
    checks.iter().map(|c| c.status).collect()
}

pub(super) fn only_failure(checks: &[Check]) -> &Check {
    let failures: Vec<&Check> = checks
        .iter()
        .filter(|c| c.status == CheckStatus::Fail)
        .collect();
    assert_eq!(failures.len(), 1, "{checks:#?}");
    failures[0]
}

#[test]
fn the_summary_counts_and_fails_on_any_failure() {
    let checks = [
        Check::pass(Group::Environment, "a"),
        Check::warn(Group::Routines, "b: why"),
        Check::pass(Group::Routines, "c"),
    ];
    let summary = Summary::of(&checks);
    assert_eq!(
        summary.to_string(),
        "SUMMARY: 2 passed, 1 warning, 0 failures"
    );
    assert_eq!(summary.exit_code(), 0);
    let failing = Summary::of(&[Check::fail(Group::StateFiles, "x")]);
    assert_eq!(failing.exit_code(), 1);
    assert_eq!(
        render_group(Group::Timezone, &checks[..2]),
        "TIMEZONE & SCHEDULING\nPASS a\nWARN b: why\n"
    );
}

#[test]
fn required_variables_are_named_never_shown() {
    let checks = environment::required_var_checks(|name| {
        (name == "DISCORD_TOKEN").then(|| "MTIz.secret-token".to_owned())
    });
    assert_eq!(checks[0].to_string(), "PASS DISCORD_TOKEN is set");
    assert_eq!(
        statuses(&checks),
        [CheckStatus::Pass, CheckStatus::Fail, CheckStatus::Fail]
    );
    assert!(checks[1].text.starts_with("OLLIM_USER_NAME is not set"));
    assert!(checks.iter().all(|c| !c.text.contains("secret-token")));
}

#[test]
fn the_env_file_and_the_webhook_secret() {
    let read = environment::env_file_check(&EnvFileSource::DataDir("/d/.env".into()));
    assert_eq!(read.to_string(), "PASS .env: /d/.env (data dir)");
    let absent = environment::env_file_check(&EnvFileSource::Absent(vec!["/x/.env".into()]));
    assert_eq!(absent.status, CheckStatus::Warn);
    let missing = environment::webhook_secret_check(&WebhookSetting::MissingSecret { port: 8420 });
    let missing = missing.unwrap();
    assert_eq!(missing.status, CheckStatus::Fail);
    assert!(missing.text.contains("WEBHOOK_SECRET"), "{}", missing.text);
    let on = WebhookSetting::On {
        port: 8420,
        secret: WebhookSecret::new("hush-hush-value"),
    };
    let on = environment::webhook_secret_check(&on).unwrap();
    assert_eq!(on.status, CheckStatus::Pass);
    assert!(!on.text.contains("hush-hush-value"));
    assert_eq!(
        environment::webhook_secret_check(&WebhookSetting::Off),
        None
    );
}

#[test]
fn the_data_dir_is_there_writable_and_a_repository() {
    let (dir, _) = data_dir();
    let checks = environment::data_dir_checks(dir.path());
    assert_eq!(
        statuses(&checks),
        [CheckStatus::Pass, CheckStatus::Pass, CheckStatus::Warn]
    );
    assert!(
        checks[2]
            .text
            .contains("initialised at the bot's first start")
    );
    fs::create_dir(dir.path().join(".git")).unwrap();
    let checks = environment::data_dir_checks(dir.path());
    assert!(checks.iter().all(|c| c.status == CheckStatus::Pass));
    assert_eq!(
        fs::read_dir(dir.path()).unwrap().count(),
        1,
        "the probe is removed"
    );

    let missing = environment::data_dir_checks(&dir.path().join("later"));
    assert_eq!(statuses(&missing), [CheckStatus::Warn, CheckStatus::Pass]);
    assert!(missing[0].text.contains("created at the bot's first start"));

    write(dir.path(), "plain-file", "x");
    let under_file = environment::data_dir_checks(&dir.path().join("plain-file/data"));
    assert!(
        only_failure(&under_file)
            .text
            .contains("is not a directory")
    );
}

#[test]
fn the_zone_and_the_local_time() {
    let now = Utc
        .with_ymd_and_hms(2026, 1, 5, 8, 30, 0)
        .unwrap()
        .with_timezone(&TZ);
    let checks = environment::timezone_checks(now, true);
    assert_eq!(
        checks[0].to_string(),
        "PASS timezone Europe/Berlin (OLLIM_TIMEZONE)"
    );
    assert_eq!(
        checks[1].to_string(),
        "PASS local time Mon 2026-01-05 09:30 CET"
    );
    assert!(
        environment::timezone_checks(now, false)[0]
            .text
            .contains("system")
    );
}

#[test]
fn the_cli_is_found_and_its_version_compared() {
    let (dir, _) = data_dir();
    assert_eq!(
        claude_cli::locate_cli(Path::new("/nonexistent/claude"), None),
        None
    );
    let exe = dir.path().join("claude");
    fs::write(&exe, "#!/bin/sh\n").unwrap();
    assert_eq!(
        claude_cli::locate_cli(Path::new("claude"), Some(dir.path().as_os_str())),
        None,
        "not executable"
    );
    let mut perms = fs::metadata(&exe).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    fs::set_permissions(&exe, perms).unwrap();
    assert_eq!(
        claude_cli::locate_cli(Path::new("claude"), Some(dir.path().as_os_str())),
        Some(exe)
    );
    assert_eq!(
        claude_cli::version_check(Ok(TESTED_CLI_VERSION), CliOrigin::SearchPath).status,
        CheckStatus::Pass
    );
}

#[test]
fn a_missing_or_other_cli_points_at_setup_unless_the_owner_named_it() {
    let on_path = ClaudeCli {
        path: PathBuf::from("claude"),
        origin: CliOrigin::SearchPath,
    };
    let missing = claude_cli::missing_cli(&on_path);
    assert_eq!(missing.status, CheckStatus::Fail);
    assert!(
        missing
            .text
            .contains("run `ollim-bot setup` to install 2.1.332 for the bot"),
        "{}",
        missing.text
    );
    let named = ClaudeCli {
        path: PathBuf::from("/nonexistent"),
        origin: CliOrigin::Named,
    };
    let missing = claude_cli::missing_cli(&named).text;
    assert!(
        missing.contains("/nonexistent (named by OLLIM_CLAUDE_CLI)"),
        "{missing}"
    );
    assert!(
        missing.contains("point OLLIM_CLAUDE_CLI at 2.1.332"),
        "{missing}"
    );
    let newer = Ok(CliVersion::parse("2.2.0").unwrap());
    let other = claude_cli::version_check(newer, CliOrigin::BotCopy);
    assert_eq!(other.status, CheckStatus::Warn);
    assert!(other.text.contains("newer than 2.1.332"), "{}", other.text);
    assert!(
        other
            .text
            .ends_with("run `ollim-bot setup` to install 2.1.332 for the bot")
    );
}

#[test]
fn auth_names_the_variable_or_asks_for_a_login() {
    let var = claude_cli::credential_var(|name| {
        (name == "ANTHROPIC_AUTH_TOKEN").then(|| "tok-secret".to_owned())
    });
    assert_eq!(var, Some("ANTHROPIC_AUTH_TOKEN"));
    let pass = claude_cli::auth_status(var, Ok(true));
    assert_eq!(
        pass.to_string(),
        "PASS ANTHROPIC_AUTH_TOKEN is set (used instead of a login)"
    );
    assert_eq!(claude_cli::credential_var(|_| Some("  ".into())), None);
    assert_eq!(
        claude_cli::auth_status(None, Ok(true)).status,
        CheckStatus::Pass
    );
    let out = claude_cli::auth_status(None, Ok(false));
    assert_eq!(out.status, CheckStatus::Fail);
    assert!(out.text.contains("run `ollim-bot auth login`"));
    assert_eq!(
        claude_cli::auth_status(None, Err("no cli".into())).status,
        CheckStatus::Fail
    );
}

#[test]
fn discord_answers_become_lines() {
    use discord_app::{AppFlags, DiscordProbe, probe_checks};
    assert_eq!(
        crate::config::discord_rest_base(None),
        "https://discord.com/api/v10"
    );
    assert_eq!(
        crate::config::discord_rest_base(Some("http://127.0.0.1:9/")),
        "http://127.0.0.1:9/api/v10"
    );
    let rejected = probe_checks(&DiscordProbe::Rejected);
    assert!(only_failure(&rejected).text.starts_with("token rejected"));
    let offline = probe_checks(&DiscordProbe::Offline("connection refused".into()));
    assert_eq!(
        offline[0].to_string(),
        "WARN skipped: offline (connection refused)"
    );
    let accepted = |flags| DiscordProbe::Accepted {
        bot: "ollim".into(),
        flags,
    };
    for on in [1 << 18, 1 << 19, (1 << 19) | (1 << 23)] {
        let checks = probe_checks(&accepted(AppFlags::Known(on)));
        assert_eq!(
            statuses(&checks),
            [CheckStatus::Pass, CheckStatus::Pass],
            "{on}"
        );
    }
    let off = probe_checks(&accepted(AppFlags::Known(1 << 23)));
    assert!(only_failure(&off).text.contains(
        "turn on Message Content Intent in the Developer Portal (Bot → Privileged Gateway Intents)"
    ));
    let unreachable = probe_checks(&accepted(AppFlags::Offline("timed out".into())));
    assert_eq!(
        statuses(&unreachable),
        [CheckStatus::Pass, CheckStatus::Warn]
    );
}

#[test]
fn google_is_optional() {
    use google_files::google_status;
    assert_eq!(
        google_status(None, false, false)[0].to_string(),
        "PASS not set up (optional)"
    );
    assert_eq!(
        google_status(Some(Ok(())), true, false)[0].status,
        CheckStatus::Pass
    );
    let unconnected = google_status(Some(Ok(())), false, false);
    assert!(unconnected[0].text.contains("run `ollim-bot google auth`"));
    assert_eq!(unconnected[0].status, CheckStatus::Warn);
    let revoked = google_status(Some(Ok(())), false, true);
    assert_eq!(statuses(&revoked), [CheckStatus::Warn, CheckStatus::Warn]);
    assert_eq!(
        google_status(Some(Err("bad".into())), false, false)[0].status,
        CheckStatus::Fail
    );
    let (_dir, data) = data_dir();
    assert_eq!(
        google_files::google_checks(&data)[0].text,
        "not set up (optional)"
    );
}
