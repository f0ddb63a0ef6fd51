//! The edge of `ollim-bot service`: where the unit file lives and the `systemctl` /
//! `loginctl` calls, each reporting whether systemd could be reached at all.

use std::{
    path::PathBuf,
    process::{Command, Stdio},
};

use super::unit::UNIT_NAME;

/// `$XDG_CONFIG_HOME/systemd/user/ollim-bot.service`, else `~/.config/systemd/user/…`.
pub fn unit_path(lookup: impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let nonempty = |name: &str| lookup(name).filter(|v| !v.trim().is_empty());
    let config = nonempty("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| nonempty("HOME").map(|home| PathBuf::from(home).join(".config")))?;
    Some(config.join("systemd").join("user").join(UNIT_NAME))
}

/// How a `systemctl --user …` call went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Systemctl {
    /// Exit code 0.
    Done,
    /// It ran and failed: the exit code and the first line it printed on stderr.
    Failed(i32, String),
    /// No `systemctl` on `PATH`.
    Missing,
}

/// Runs `systemctl --user <args>`, output captured.
pub fn systemctl(args: &[&str]) -> Systemctl {
    match Command::new("systemctl")
        .arg("--user")
        .args(args)
        .stdin(Stdio::null())
        .output()
    {
        Ok(output) if output.status.success() => Systemctl::Done,
        Ok(output) => Systemctl::Failed(
            output.status.code().unwrap_or(1),
            String::from_utf8_lossy(&output.stderr)
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("no message")
                .trim()
                .to_owned(),
        ),
        Err(_) => Systemctl::Missing,
    }
}

/// Runs `systemctl --user <args>` on the terminal and returns its exit code (`None`: no
/// `systemctl`).
pub fn systemctl_passthrough(args: &[&str]) -> Option<i32> {
    let output = Command::new("systemctl")
        .arg("--user")
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::inherit())
        .stderr(Stdio::piped())
        .output()
        .ok()?;
    let said = String::from_utf8_lossy(&output.stderr);
    if said.contains("Failed to connect to bus") || said.contains("$DBUS_SESSION_BUS_ADDRESS") {
        eprintln!(
            "systemd's user manager isn't reachable from here ({}): user services need a \
             login session with systemd (not a container, `su` or `sudo` shell, or WSL \
             without systemd). Run `ollim-bot` in a terminal or under your own supervisor \
             instead; see docs/service.md.",
            said.trim()
        );
    } else {
        eprint!("{said}");
    }
    Some(output.status.code().unwrap_or(1))
}

/// Whether the user's services keep running after logout (`loginctl show-user <user> -p
/// Linger`); `None` when it can't be told.
pub fn linger_enabled(user: Option<&str>) -> Option<bool> {
    let output = Command::new("loginctl")
        .args(["show-user", user?, "-p", "Linger"])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()
        .filter(|output| output.status.success())?;
    match String::from_utf8_lossy(&output.stdout).trim() {
        "Linger=yes" => Some(true),
        "Linger=no" => Some(false),
        _ => None,
    }
}
