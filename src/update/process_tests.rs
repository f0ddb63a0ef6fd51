use std::time::Duration;

use super::*;

#[test]
fn error_texts_follow_the_spec() {
    let failed = CommandError::Failed {
        command: "git pull --ff-only".into(),
        code: 128,
        last_line: None,
    };
    assert_eq!(failed.to_string(), "`git pull --ff-only` returned 128");
    let with_reason = CommandError::Failed {
        command: "git pull --ff-only".into(),
        code: 128,
        last_line: Some("fatal: Not possible to fast-forward, aborting.".into()),
    };
    assert_eq!(
        with_reason.to_string(),
        "`git pull --ff-only` returned 128: fatal: Not possible to fast-forward, aborting."
    );
    let timed_out = CommandError::TimedOut {
        command: "git fetch --tags origin".into(),
        secs: 60,
    };
    assert_eq!(
        timed_out.to_string(),
        "`git fetch --tags origin` timed out after 60s"
    );
}

#[test]
fn the_last_stderr_line_skips_blank_ones() {
    assert_eq!(
        last_stderr_line(b"warning: x\nfatal: y  \n\n"),
        Some("fatal: y".to_owned())
    );
    assert_eq!(last_stderr_line(b"\n \n"), None);
}

#[tokio::test]
async fn a_failing_command_reports_its_code_and_last_line() {
    let dir = tempfile::tempdir().unwrap();
    let error = run(
        "sh",
        &["-c", "echo first >&2; echo last words >&2; exit 3"],
        dir.path(),
        Duration::from_secs(10),
    )
    .await
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        "`sh -c echo first >&2; echo last words >&2; exit 3` returned 3: last words"
    );
    assert_eq!(error.exit_code(), Some(3));
}

#[tokio::test]
async fn a_slow_command_times_out() {
    let dir = tempfile::tempdir().unwrap();
    let error = run("sleep", &["30"], dir.path(), Duration::from_secs(1))
        .await
        .unwrap_err();
    assert_eq!(error.to_string(), "`sleep 30` timed out after 1s");
}

#[tokio::test]
async fn output_and_missing_programs() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(
        "sh",
        &["-c", "echo hi"],
        dir.path(),
        Duration::from_secs(10),
    )
    .await
    .unwrap();
    assert_eq!(out, "hi\n");
    let error = run(
        "no-such-program-ollim",
        &[],
        dir.path(),
        Duration::from_secs(1),
    )
    .await
    .unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("`no-such-program-ollim` could not start: "),
        "{error}"
    );
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_timeout_kills_the_children_too() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("grandchild");
    let script = format!("sleep 30 & echo $! > '{}'; wait", pid_file.display());
    let error = run("sh", &["-c", &script], dir.path(), Duration::from_secs(1))
        .await
        .unwrap_err();
    assert!(matches!(error, CommandError::TimedOut { .. }), "{error}");
    let pid = std::fs::read_to_string(&pid_file).unwrap();
    let proc_dir = std::path::PathBuf::from(format!("/proc/{}", pid.trim()));
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    // Killed, it may linger as a zombie until init reaps it.
    while proc_dir.exists()
        && !std::fs::read_to_string(proc_dir.join("stat")).is_ok_and(|s| s.contains(") Z"))
    {
        assert!(std::time::Instant::now() < deadline, "sleep {pid} survived");
        std::thread::sleep(Duration::from_millis(20));
    }
}
