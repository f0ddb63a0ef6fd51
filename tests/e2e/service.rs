//! `ollim-bot service install | uninstall | status` through the real binary (issue 15
//! "Service"; BOOT-8's restart-on-failure lives in the unit). `systemctl` is a shell script on
//! `PATH` that records its arguments: systemd's user manager is the remote service here. The
//! unit written is checked with the real `systemd-analyze verify` when the machine has it.

use std::{
    os::unix::fs::PermissionsExt,
    path::{Path, PathBuf},
    process::{Command, Output},
};

struct Sandbox {
    root: tempfile::TempDir,
}

impl Sandbox {
    fn new() -> Self {
        let root = tempfile::tempdir().unwrap();
        for dir in ["home", "config", "bin", "runtime"] {
            std::fs::create_dir_all(root.path().join(dir)).unwrap();
        }
        Self { root }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.root.path().join(rel)
    }

    /// A `systemctl` that appends its arguments to `systemctl.log` and exits 0, except
    /// `status`, which exits 3 as for a stopped unit.
    fn fake_systemctl(&self) {
        let script = self.path("bin/systemctl");
        std::fs::write(
            &script,
            format!(
                "#!/bin/sh\necho \"$@\" >> '{}'\n[ \"$2\" = status ] && exit 3\nexit 0\n",
                self.path("systemctl.log").display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    fn systemctl_calls(&self) -> Vec<String> {
        std::fs::read_to_string(self.path("systemctl.log"))
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect()
    }

    /// The env file, in a directory with a space in its name.
    fn env_file(&self) -> PathBuf {
        let dir = self.path("my config");
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join(".env");
        std::fs::write(&file, "OLLIM_USER_NAME=Julia\nOLLIM_BOT_NAME=Ollim\n").unwrap();
        file
    }

    fn unit_file(&self) -> PathBuf {
        self.path("config/systemd/user/ollim-bot.service")
    }

    /// `ollim-bot <args>` with only this sandbox's `HOME`, `XDG_CONFIG_HOME` and `PATH`, run from
    /// HOME (no `.env` there).
    fn run(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_ollim-bot"))
            .args(args)
            .env_clear()
            .env("HOME", self.path("home"))
            .env("XDG_CONFIG_HOME", self.path("config"))
            .env("PATH", self.path("bin"))
            .env("USER", "julia")
            .current_dir(self.path("home"))
            .output()
            .unwrap()
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn exec_start(unit: &str) -> &str {
    unit.lines()
        .find_map(|l| l.strip_prefix("ExecStart="))
        .expect("ExecStart line")
}

/// `systemd-analyze verify --user` on the unit: no error, no unknown or ignored directive.
fn verify_with_systemd(sandbox: &Sandbox, unit: &Path) {
    let verified = Command::new("systemd-analyze")
        .args(["verify", "--user"])
        .arg(unit)
        .env("XDG_RUNTIME_DIR", sandbox.path("runtime"))
        .output();
    let Ok(verified) = verified else {
        println!("note: no systemd-analyze on this machine; the unit was not verified");
        return;
    };
    let stderr = text(&verified.stderr);
    assert!(
        verified.status.success(),
        "systemd-analyze verify: {stderr}"
    );
    assert!(
        !stderr.contains("Unknown") && !stderr.contains("ignoring"),
        "systemd-analyze verify: {stderr}"
    );
}

#[test]
fn install_no_start_writes_a_verified_unit_and_enables_it() {
    let sandbox = Sandbox::new();
    sandbox.fake_systemctl();
    let env_file = sandbox.env_file();
    let data_dir = sandbox.path("data dir");
    let out = sandbox.run(&[
        "--env-file",
        env_file.to_str().unwrap(),
        "--data-dir",
        data_dir.to_str().unwrap(),
        "service",
        "install",
        "--no-start",
    ]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    let unit = std::fs::read_to_string(sandbox.unit_file()).expect("unit written");
    assert_eq!(
        exec_start(&unit),
        format!(
            "{} --env-file \"{}\" --data-dir \"{}\"",
            env!("CARGO_BIN_EXE_ollim-bot"),
            env_file.display(),
            data_dir.display()
        )
    );
    assert!(
        unit.contains(&format!("\nWorkingDirectory={}\n", data_dir.display())),
        "{unit}"
    );
    assert!(data_dir.is_dir(), "the working directory exists");
    assert_eq!(
        sandbox.systemctl_calls(),
        ["--user daemon-reload", "--user enable ollim-bot.service"]
    );
    for said in [
        sandbox.unit_file().display().to_string(),
        "journalctl --user -u ollim-bot -f".to_owned(),
        "loginctl enable-linger $USER".to_owned(),
    ] {
        assert!(stdout.contains(&said), "{said:?} in {stdout}");
    }
    verify_with_systemd(&sandbox, &sandbox.unit_file());

    let out = sandbox.run(&["service", "uninstall"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(!sandbox.unit_file().exists(), "unit removed");
    assert_eq!(
        sandbox.systemctl_calls()[2..],
        [
            "--user disable --now ollim-bot.service",
            "--user daemon-reload"
        ]
    );
}

#[test]
fn install_starts_the_service_and_status_passes_through() {
    let sandbox = Sandbox::new();
    sandbox.fake_systemctl();
    let env_file = sandbox.env_file();
    let out = sandbox.run(&[
        "--env-file",
        env_file.to_str().unwrap(),
        "service",
        "install",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let unit = std::fs::read_to_string(sandbox.unit_file()).unwrap();
    assert!(
        !exec_start(&unit).contains("--data-dir"),
        "no --data-dir when none was chosen: {unit}"
    );
    assert!(
        unit.contains(&format!(
            "\nWorkingDirectory={}\n",
            sandbox.path("home/.ollim-bot").display()
        )),
        "{unit}"
    );
    let out = sandbox.run(&["service", "status"]);
    assert_eq!(out.status.code(), Some(3), "systemctl's exit code is kept");
    assert_eq!(
        sandbox.systemctl_calls(),
        [
            "--user daemon-reload",
            "--user enable --now ollim-bot.service",
            "--user status ollim-bot.service"
        ]
    );
}

#[test]
fn without_systemd_the_unit_is_still_written_and_the_exit_code_is_1() {
    let sandbox = Sandbox::new();
    let env_file = sandbox.env_file();
    let out = sandbox.run(&[
        "--env-file",
        env_file.to_str().unwrap(),
        "service",
        "install",
    ]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(sandbox.unit_file().is_file(), "unit written anyway");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "one line: {stderr}");
    assert!(lines[0].contains("systemd isn't available"), "{stderr}");
    assert!(
        lines[0].ends_with(&format!(
            "{} --env-file '{}'",
            env!("CARGO_BIN_EXE_ollim-bot"),
            env_file.display()
        )),
        "how to start it by hand, quoted for a shell: {stderr}"
    );
    let out = sandbox.run(&["service", "status"]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn install_without_an_env_file_is_refused() {
    let sandbox = Sandbox::new();
    sandbox.fake_systemctl();
    let out = sandbox.run(&["service", "install"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("--env-file"), "{stderr}");
    assert!(!sandbox.unit_file().exists());
    assert!(sandbox.systemctl_calls().is_empty());
}

/// `service status` where systemd's user manager can't be reached (a container, an `su`
/// shell): systemctl's own one line is explained, with what to do instead.
#[test]
fn status_without_a_user_bus_says_why_and_what_to_do() {
    let sandbox = Sandbox::new();
    let script = sandbox.path("bin/systemctl");
    std::fs::write(
        &script,
        "#!/bin/sh\necho 'Failed to connect to bus: No medium found' >&2\nexit 1\n",
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = sandbox.run(&["service", "status"]);
    assert_eq!(out.status.code(), Some(1));
    let said = text(&out.stderr);
    assert!(
        said.contains("systemd's user manager isn't reachable from here"),
        "{said}"
    );
    assert!(said.contains("Run `ollim-bot` in a terminal"), "{said}");
}
