//! Shell subcommands run beside a running bot, with its environment (same data dir, fakes and
//! CLI home): `reminder add`, and any other.

use super::{BotHarness, ollim_command};

impl BotHarness {
    /// Adds a background reminder due now with `ollim-bot reminder add` (as the agent or the
    /// owner would); panics if the command fails.
    pub async fn add_reminder_now(&self, message: &str) {
        self.add_reminder_now_with(message, &[]).await;
    }

    /// [`Self::add_reminder_now`] with more `reminder add` flags (`--until-done`, …).
    pub async fn add_reminder_now_with(&self, message: &str, flags: &[&str]) {
        let out = ollim_command(&self.sandbox, &self.mock)
            .args(["reminder", "add", "-m", message, "--delay", "0"])
            .args(flags)
            .output()
            .await
            .expect("run ollim-bot reminder add");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// Runs `ollim-bot <args>` with this harness's environment; its stdout (panics if it
    /// fails).
    pub async fn ollim(&self, args: &[&str]) -> String {
        let out = ollim_command(&self.sandbox, &self.mock)
            .args(args)
            .output()
            .await
            .expect("run ollim-bot");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
}
