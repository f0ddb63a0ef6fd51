//! Running `ollim-bot tasks | cal | gmail | google` against a [`FakeGoogle`]: a clean
//! environment (the data dir, UTC, `OLLIM_GOOGLE_API_URL`), stdout on success, the one
//! stderr line on failure.

use std::path::Path;
use std::process::{Output, Stdio};

use super::fake_google::FakeGoogle;

/// `ollim-bot <args>` with a clean environment pointed at `fake`.
pub fn command(data_dir: &Path, fake: &FakeGoogle, args: &[&str]) -> tokio::process::Command {
    let mut command = tokio::process::Command::new(super::paths::ollim_bot_exe());
    command
        .args(args)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", data_dir)
        .env("OLLIM_DATA_DIR", data_dir)
        .env("OLLIM_TIMEZONE", "UTC")
        .env("OLLIM_GOOGLE_API_URL", fake.base_url())
        .env("NO_PROXY", "127.0.0.1,localhost")
        .current_dir(data_dir)
        .stdin(Stdio::null())
        .kill_on_drop(true);
    command
}

/// Runs it to the end.
pub async fn run(data_dir: &Path, fake: &FakeGoogle, args: &[&str]) -> Output {
    command(data_dir, fake, args)
        .output()
        .await
        .expect("run ollim-bot")
}

/// Stdout of a successful run.
pub async fn ok(data_dir: &Path, fake: &FakeGoogle, args: &[&str]) -> String {
    let output = run(data_dir, fake, args).await;
    assert!(
        output.status.success(),
        "{args:?} exit {:?}: {}",
        output.status.code(),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The single stderr line of a failed run (exit 1).
pub async fn fails(data_dir: &Path, fake: &FakeGoogle, args: &[&str]) -> String {
    let output = run(data_dir, fake, args).await;
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(1), "{args:?}: {stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{args:?}: {stderr}");
    stderr.trim_end().to_owned()
}

/// A temp HOME and `<home>/data/state/` (the data dir is `<home>/data`).
pub fn connected() -> (tempfile::TempDir, std::path::PathBuf) {
    let home = tempfile::tempdir().unwrap();
    let data_dir = home.path().join("data");
    std::fs::create_dir_all(data_dir.join("state")).unwrap();
    (home, data_dir)
}
