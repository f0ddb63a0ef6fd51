//! `ollim-bot setup` installs the tested Claude Code CLI for the bot (issue 44 §4), through the
//! real binary on a fresh HOME with no `claude` on PATH. npm's registry is a remote service,
//! so a stand-in `npm` first on PATH records its arguments and does what the real one leaves
//! behind: `<prefix>/node_modules/.bin/claude`, here a link to the pinned test CLI. The bot
//! then runs that copy without `OLLIM_CLAUDE_CLI`: `doctor` names it, and a started bot
//! answers through it from inside its container.

use std::{
    io::Write as _,
    os::unix::fs::PermissionsExt,
    path::{Path, PathBuf},
    process::{Command, Output, Stdio},
};

use ollim_bot::claude::TESTED_CLI_VERSION;
use support::cli::claude_cli_path;

use crate::support;

mod bot_copy;

/// The answers before the CLI's question: token, name, the bot's name kept, timezone.
const NAMES: &str = "MTA0.tok-secret.123\nJulia\n\nEurope/Berlin\n";

/// A fresh HOME, and a folder of programs to put first on PATH.
struct Fresh {
    home: tempfile::TempDir,
    bin: PathBuf,
}

impl Fresh {
    fn new() -> Self {
        let home = tempfile::tempdir().unwrap();
        let bin = home.path().join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        Self { home, bin }
    }

    fn home(&self) -> &Path {
        self.home.path()
    }

    /// Where set-up installs the bot's CLI by default.
    fn install_dir(&self) -> PathBuf {
        self.home().join(".local/share/ollim-bot/claude-cli")
    }

    /// What the stand-in npm was called with, one argument a line; `None` if it never ran.
    fn npm_args(&self) -> Option<Vec<String>> {
        let text = std::fs::read_to_string(self.home().join("npm-args")).ok()?;
        Some(text.lines().map(str::to_owned).collect())
    }

    /// Puts a stand-in `npm` into [`Self::bin`]: it writes its arguments to `npm-args` and
    /// links `<--prefix>/node_modules/.bin/claude` to the pinned CLI's executable.
    fn with_fake_npm(self) -> Self {
        let real = std::fs::canonicalize(claude_cli_path()).unwrap();
        let record = self.home().join("npm-args");
        let script = format!(
            "#!/bin/sh\nprintf '%s\\n' \"$@\" > '{record}'\nprefix=\n\
             while [ $# -gt 0 ]; do\n  [ \"$1\" = --prefix ] && prefix=\"$2\"\n  shift\ndone\n\
             mkdir -p \"$prefix/node_modules/.bin\"\n\
             ln -sf '{real}' \"$prefix/node_modules/.bin/claude\"\necho 'added 2 packages'\n",
            record = record.display(),
            real = real.display(),
        );
        let npm = self.bin.join("npm");
        std::fs::write(&npm, script).unwrap();
        std::fs::set_permissions(&npm, std::fs::Permissions::from_mode(0o755)).unwrap();
        self
    }

    /// `ollim-bot <args>` with a clean environment: HOME, `path` as PATH, and Discord and the
    /// model API on closed local ports (nothing leaves the machine); fed `answers`.
    fn run(&self, path: &str, args: &[&str], answers: &str) -> Output {
        let closed = closed_url();
        let mut child = Command::new(env!("CARGO_BIN_EXE_ollim-bot"))
            .env_clear()
            .env("PATH", path)
            .env("HOME", self.home())
            .env("OLLIM_DISCORD_API_URL", &closed)
            .env("ANTHROPIC_BASE_URL", &closed)
            .env("OLLIM_DOCS_MCP_URL", "")
            .current_dir(self.home())
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(answers.as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    }

    /// [`Self::bin`] first, then the system's programs (which hold no `claude`).
    fn path_with_system(&self) -> String {
        for dir in ["/usr/bin", "/bin", "/usr/local/bin"] {
            assert!(
                !Path::new(dir).join("claude").exists(),
                "{dir}/claude exists: these tests need a machine without a `claude` there"
            );
        }
        format!("{}:/usr/bin:/bin", self.bin.display())
    }
}

/// A local address nothing listens on.
fn closed_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port())
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A "y" runs npm into the XDG data home with the exact tested package; set-up then reports
/// the installed version, and `doctor` (no `OLLIM_CLAUDE_CLI`) checks the bot's copy.
#[test]
fn yes_installs_the_tested_cli_for_the_bot_and_doctor_finds_it() {
    let fresh = Fresh::new().with_fake_npm();
    let path = fresh.path_with_system();
    let out = fresh.run(&path, &["setup"], &format!("{NAMES}y\n\n"));
    let shown = text(&out.stdout);
    assert!(out.status.success(), "{shown}\n{}", text(&out.stderr));
    let dir = fresh.install_dir();
    assert!(
        shown.contains("5. no Claude Code CLI found (no `claude` on PATH); the bot is tested with"),
        "{shown}"
    );
    assert!(
        shown.contains(&format!(
            "Install Claude Code CLI {TESTED_CLI_VERSION} for the bot into {} with npm? [y/N]",
            dir.display()
        )),
        "{shown}"
    );
    let dir_arg = dir.display().to_string();
    let package = format!("@anthropic-ai/claude-code@{TESTED_CLI_VERSION}");
    assert_eq!(
        fresh.npm_args().expect("npm ran"),
        [
            "install",
            "--prefix",
            &dir_arg,
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
            &package
        ]
    );
    let exe = dir.join("node_modules/.bin/claude");
    assert!(
        shown.contains(&format!(
            "Installed: Claude Code CLI {TESTED_CLI_VERSION} ({}, the bot's own copy",
            exe.display()
        )),
        "{shown}"
    );
    // The installed CLI answered the login question: not logged in, so the key is asked for.
    assert!(shown.contains("6. Claude is not logged in"), "{shown}");
    let next = shown.split("Next:").nth(1).unwrap_or_default();
    assert!(!next.contains("Claude Code CLI"), "{shown}");

    let doctor = fresh.run(&path, &["doctor"], "");
    let report = text(&doctor.stdout);
    let group = report
        .split("CLAUDE CLI\n")
        .nth(1)
        .and_then(|rest| rest.split("\n\n").next())
        .unwrap_or_default();
    assert_eq!(
        group,
        format!(
            "PASS found {} (the bot's own copy, installed by `ollim-bot setup`)\n\
             PASS version {TESTED_CLI_VERSION} (the tested version)",
            exe.display()
        ),
        "{report}"
    );

    // Set-up again: the tested version is there, nothing is asked or installed.
    std::fs::remove_file(fresh.home().join("npm-args")).unwrap();
    let again = fresh.run(&path, &["setup"], "\n\n\n\n\n");
    let shown = text(&again.stdout);
    assert!(again.status.success(), "{shown}");
    assert!(
        shown.contains(&format!(
            "5. Claude Code CLI {TESTED_CLI_VERSION} ({}, the bot's own copy, installed by \
             `ollim-bot setup`): the tested version.",
            exe.display()
        )),
        "{shown}"
    );
    assert_eq!(fresh.npm_args(), None);
}

/// `doctor --fix` offers the same install before its checks; the report then passes the
/// bot's copy.
#[test]
fn doctor_fix_installs_it_too() {
    let fresh = Fresh::new().with_fake_npm();
    let out = fresh.run(&fresh.path_with_system(), &["doctor", "--fix"], "y\n");
    let report = text(&out.stdout);
    assert!(
        report.starts_with(&format!(
            "no Claude Code CLI found (no `claude` on PATH); the bot is tested with \
             {TESTED_CLI_VERSION}.\n"
        )),
        "{report}"
    );
    let args = fresh.npm_args().expect("npm ran");
    assert_eq!(
        args[..3],
        [
            "install",
            "--prefix",
            &fresh.install_dir().display().to_string()
        ]
    );
    let exe = fresh.install_dir().join("node_modules/.bin/claude");
    assert!(
        report.contains(&format!(
            "CLAUDE CLI\nPASS found {} (the bot's own copy, installed by `ollim-bot setup`)\n\
             PASS version {TESTED_CLI_VERSION} (the tested version)\n",
            exe.display()
        )),
        "{report}"
    );
}

/// A "n" (or Enter) installs nothing and says how to install it by hand.
#[test]
fn no_installs_nothing_and_says_how_by_hand() {
    let fresh = Fresh::new().with_fake_npm();
    let out = fresh.run(
        &fresh.path_with_system(),
        &["setup"],
        &format!("{NAMES}n\n\n"),
    );
    let shown = text(&out.stdout);
    assert!(out.status.success(), "{shown}\n{}", text(&out.stderr));
    assert_eq!(fresh.npm_args(), None);
    assert!(!fresh.install_dir().exists());
    assert!(
        shown.contains(&format!(
            "Not installed. By hand: `npm install --prefix {} @anthropic-ai/claude-code@{}` \
             (the bot then uses it), or set OLLIM_CLAUDE_CLI.",
            fresh.install_dir().display(),
            TESTED_CLI_VERSION
        )),
        "{shown}"
    );
    let next = shown.split("Next:").nth(1).unwrap_or_default();
    assert!(next.contains("the Claude Code CLI"), "{shown}");
    // The answers were saved all the same.
    assert!(fresh.home().join(".ollim-bot/.env").is_file());
}

/// A CLI the owner named is theirs: set-up asks nothing and says what to change.
#[test]
fn a_named_cli_is_left_alone() {
    let fresh = Fresh::new().with_fake_npm();
    let path = fresh.path_with_system();
    std::fs::create_dir_all(fresh.home().join(".ollim-bot")).unwrap();
    std::fs::write(
        fresh.home().join(".ollim-bot/.env"),
        "OLLIM_CLAUDE_CLI=/opt/no-such/claude\n",
    )
    .unwrap();
    let out = fresh.run(&path, &["setup"], &format!("{NAMES}\n"));
    let shown = text(&out.stdout);
    assert!(out.status.success(), "{shown}\n{}", text(&out.stderr));
    assert!(
        shown.contains(&format!(
            "5. no Claude Code CLI found at /opt/no-such/claude, named by OLLIM_CLAUDE_CLI. \
             The CLI you named is left alone: point OLLIM_CLAUDE_CLI at \
             {TESTED_CLI_VERSION}, or remove it"
        )),
        "{shown}"
    );
    assert!(!shown.contains("[y/N]"), "{shown}");
    assert_eq!(fresh.npm_args(), None);
}

/// Without npm on PATH nothing is asked: set-up says to install Node.js with npm.
#[test]
fn without_npm_it_says_what_to_install() {
    let fresh = Fresh::new();
    let path = fresh.bin.display().to_string();
    let out = fresh.run(&path, &["setup"], &format!("{NAMES}\n"));
    let shown = text(&out.stdout);
    assert!(out.status.success(), "{shown}\n{}", text(&out.stderr));
    assert!(
        shown.contains(&format!(
            "Installing the tested version {TESTED_CLI_VERSION} takes npm, which is not on \
             PATH: install Node.js 20 or newer with npm"
        )),
        "{shown}"
    );
    assert!(!shown.contains("[y/N]"), "{shown}");
    assert!(!fresh.install_dir().exists());
}
