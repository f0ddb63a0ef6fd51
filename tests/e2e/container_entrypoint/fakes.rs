//! The stand-ins of the entrypoint's tests: a fake `curl` that logs and answers by rules, a fake
//! command that records its pid and arguments, and the run of a script with `sh` in a clean
//! environment.

use std::{
    os::unix::fs::PermissionsExt,
    path::{Path, PathBuf},
    process::{Command, Output},
};

pub(super) const OLLAMA: &str = "http://ollama:11434";

/// The fake `curl`: `FAKE_CURL_RULES` holds lines `<glob>|<answer>`, matched against
/// `<url> <body>`; the answer is an exit code, or `down:N` (refused for the first N calls to
/// that URL, then answered). No rule: connection refused (7).
const FAKE_CURL: &str = r#"#!/bin/sh
url= body=
while [ $# -gt 0 ]; do
  case $1 in
    -d) body=$2; shift ;;
    -m|-o|-H) shift ;;
    -*) ;;
    *) url=$1 ;;
  esac
  shift
done
before=$(grep -cF "$url " "$FAKE_CURL_LOG" 2>/dev/null)
printf '%s %s\n' "$url" "$body" >> "$FAKE_CURL_LOG"
answer=7
while IFS='|' read -r pattern rule; do
  case "$url $body" in
    $pattern) answer=$rule; break ;;
  esac
done <<EOF
${FAKE_CURL_RULES:-}
EOF
case $answer in
  down:*) [ "${before:-0}" -ge "${answer#down:}" ] && exit 0; answer=7 ;;
esac
[ "$answer" = 0 ] || echo "curl: ($answer) fake failure for $url" >&2
exit "$answer"
"#;

const FAKE_COMMAND: &str = "#!/bin/sh\nprintf '%s\\n' \"$$\" \"$@\" > \"$FAKE_CMD_LOG\"\n";

pub(super) struct Container {
    root: tempfile::TempDir,
    env: Vec<(String, String)>,
}

pub(super) struct Run {
    output: Output,
    pid: u32,
}

impl Container {
    pub(super) fn new() -> Self {
        let root = tempfile::tempdir().expect("temp dir");
        let bin = root.path().join("bin");
        std::fs::create_dir_all(&bin).expect("bin dir");
        std::fs::create_dir_all(root.path().join("home")).expect("home");
        for (name, text) in [
            ("curl", FAKE_CURL),
            ("ollim-bot", FAKE_COMMAND),
            ("other-tool", FAKE_COMMAND),
        ] {
            let path = bin.join(name);
            std::fs::write(&path, text).expect("write a fake");
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
                .expect("make it executable");
        }
        let mut container = Self {
            root,
            env: Vec::new(),
        };
        // A short wait unless a test says otherwise, so a forgotten rule fails fast.
        container.set("OLLIM_WAIT_SECS", "5");
        container.set("OLLIM_WAIT_POLL", "0");
        container
    }

    pub(super) fn path(&self, rel: &str) -> PathBuf {
        self.root.path().join(rel)
    }

    pub(super) fn set(&mut self, name: &str, value: &str) -> &mut Self {
        self.env.push((name.to_owned(), value.to_owned()));
        self
    }

    /// `rules`, one `<glob>|<answer>` per line, for the fake `curl`.
    pub(super) fn curl_answers(&mut self, rules: &[&str]) -> &mut Self {
        self.set("FAKE_CURL_RULES", &rules.join("\n"))
    }

    /// `sh container/entrypoint.sh <args>` in a clean environment: `HOME` and `PATH` (the
    /// fakes first) and what the test set.
    pub(super) fn run(&self, args: &[&str]) -> Run {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("container/entrypoint.sh");
        self.spawn(&script, args)
    }

    pub(super) fn spawn(&self, script: &Path, args: &[&str]) -> Run {
        let child = Command::new("sh")
            .arg(script)
            .args(args)
            .env_clear()
            .env(
                "PATH",
                format!("{}:/usr/bin:/bin", self.path("bin").display()),
            )
            .env("HOME", self.path("home"))
            .env("FAKE_CURL_LOG", self.path("curl.log"))
            .env("FAKE_CMD_LOG", self.path("command.log"))
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("spawn sh");
        let pid = child.id();
        let output = child.wait_with_output().expect("wait for sh");
        Run { output, pid }
    }

    /// Each call the fake `curl` got: `<url> <body>`.
    pub(super) fn curl_calls(&self) -> Vec<String> {
        std::fs::read_to_string(self.path("curl.log"))
            .unwrap_or_default()
            .lines()
            .map(|line| line.trim_end().to_owned())
            .collect()
    }

    /// The command's pid and arguments, when it ran.
    pub(super) fn command_ran(&self) -> Option<Vec<String>> {
        let text = std::fs::read_to_string(self.path("command.log")).ok()?;
        Some(text.lines().map(str::to_owned).collect())
    }
}

impl Run {
    pub(super) fn code(&self) -> Option<i32> {
        self.output.status.code()
    }
    pub(super) fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.output.stdout).into_owned()
    }
    pub(super) fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.output.stderr).into_owned()
    }
    /// Asserts the entrypoint became `args` (same pid: `exec`, not a child) and exited 0.
    pub(super) fn became(&self, container: &Container, args: &[&str]) {
        let mut expected = vec![self.pid.to_string()];
        expected.extend(args.iter().skip(1).map(|a| (*a).to_owned()));
        assert_eq!(
            container.command_ran(),
            Some(expected),
            "stderr: {}",
            self.stderr()
        );
        assert_eq!(self.code(), Some(0), "stderr: {}", self.stderr());
    }
}
