//! The text of the systemd user unit `ollim-bot service install` writes (issue 15 "Service"):
//! a pure function of the paths, so the quoting and every directive are tested without
//! systemd.

use std::path::{Path, PathBuf};

/// The unit's file name under `~/.config/systemd/user/`.
pub const UNIT_NAME: &str = "ollim-bot.service";

/// How long systemd waits after SIGTERM before SIGKILL: above the bot's own shutdown deadlines
/// (30 s for the turn in progress, 10 s for an interrupted turn, 10 s for the CLI to stop,
/// 10 s more for the CLI after the gateway closed; see `app`), with room for the git flush.
pub const STOP_TIMEOUT_SECS: u64 = 90;

/// What the unit is rendered from; every path absolute.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnitParams {
    /// This binary.
    pub exe: PathBuf,
    /// The `.env` the service reads (`--env-file`).
    pub env_file: PathBuf,
    /// `--data-dir`, when the data dir was chosen on the command line or by `OLLIM_DATA_DIR`.
    pub data_dir_arg: Option<PathBuf>,
    /// The working directory: the data dir.
    pub working_dir: PathBuf,
    /// `PATH` of the installing shell, so the service finds `claude`, node and git as it does.
    pub path_env: Option<String>,
}

/// A path or value the unit can't carry.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum UnitError {
    /// Not valid UTF-8.
    #[error("{0} is not valid UTF-8; systemd unit files are text")]
    NotUtf8(String),
    /// A line break or other control character would end or corrupt the directive.
    #[error("{0:?} contains a control character (line break, tab, …) a unit file can't hold")]
    ControlCharacter(String),
    /// Not absolute.
    #[error("{0} is not an absolute path")]
    Relative(String),
}

/// The whole unit file.
pub fn render(params: &UnitParams) -> Result<String, UnitError> {
    let mut command = vec![
        exec_word(absolute(&params.exe)?)?,
        "--env-file".to_owned(),
        exec_word(absolute(&params.env_file)?)?,
    ];
    if let Some(dir) = &params.data_dir_arg {
        command.push("--data-dir".to_owned());
        command.push(exec_word(absolute(dir)?)?);
    }
    let working_dir = plain_value(absolute(&params.working_dir)?)?;
    let path_line = match &params.path_env {
        Some(path) if !path.is_empty() => format!(
            "# PATH of the shell that installed the service, so `claude`, node and git are found \
             as there.\nEnvironment={}\n",
            quoted_word(&format!("PATH={path}"))?
        ),
        _ => String::new(),
    };
    let command = command.join(" ");
    Ok(format!(
        "\
# ollim-bot as a systemd user service, written by `ollim-bot service install`.
# Run that command again after moving the binary, the .env or the data dir.

[Unit]
Description=ollim-bot, a personal assistant in your Discord DMs
# A crash loop stops after 10 starts within 10 minutes (`systemctl --user reset-failed
# ollim-bot` clears it). A user service can't wait for the system's network-online.target:
# the bot itself waits for the network at start, so a late network is no failure.
StartLimitIntervalSec=600
StartLimitBurst=10

[Service]
Type=simple
# This binary with the .env it reads; RUST_LOG and everything else comes from that file.
ExecStart={command}
# The data dir: where the Claude CLI keeps the bot's sessions.
WorkingDirectory={working_dir}
{path_line}\
# Start again 15 s after a crash or a fatal error (any exit code but 0); a clean stop stays
# stopped.
Restart=on-failure
RestartSec=15
# Stopping sends SIGTERM to the bot alone (not to the Claude CLI under it): it lets the turn in
# progress finish, stops the CLI itself and says goodbye in your DMs. Whatever is still running
# after TimeoutStopSec gets SIGKILL.
KillMode=mixed
KillSignal=SIGTERM
TimeoutStopSec={STOP_TIMEOUT_SECS}
# Each Claude CLI's container gets a cgroup of its own under this service's, holding its
# memory and process limits (issue 39); the bot moves itself into a leaf of it for that.
Delegate=memory pids
# Files the bot creates (state, tokens, transcripts) are readable by you only.
UMask=0077
# Hardening that still lets the Claude CLI run node, shells and git and write ~/.claude,
# ~/.claude.json, ~/.npm, ~/.cache and ~/.config.
# No privilege gain through setuid programs (sudo, su) for the bot or anything it starts.
NoNewPrivileges=yes
# Nor can it create setuid or setgid files.
RestrictSUIDSGID=yes
# The process can't switch its execution domain (personality).
LockPersonality=yes
# A user namespace of its own, where you are yourself and every other user is `nobody`; a user
# service needs it for the two namespace settings below. Where unprivileged user namespaces
# are off, the service fails with status=226/NAMESPACE: delete these three lines.
# (ProtectControlGroups= is left out: user services don't support it.)
PrivateUsers=yes
# Its own /tmp and /var/tmp, emptied when it stops.
PrivateTmp=yes
# /usr, /boot and /etc read-only; your home stays writable.
ProtectSystem=full
# No ProtectKernelTunables=: its read-only mounts over /proc/sys make the kernel refuse the
# fresh /proc each Claude CLI's container mounts (issue 39); the containers hide far more.

[Install]
# Started with your user session (or at boot with `loginctl enable-linger`).
WantedBy=default.target
"
    ))
}

fn absolute(path: &Path) -> Result<&str, UnitError> {
    let text = path
        .to_str()
        .ok_or_else(|| UnitError::NotUtf8(path.display().to_string()))?;
    if path.is_absolute() {
        Ok(text)
    } else {
        Err(UnitError::Relative(text.to_owned()))
    }
}

/// Specifiers (`%`) are expanded in every setting: a literal `%` is written `%%`.
fn escape_specifiers(text: &str) -> String {
    text.replace('%', "%%")
}

fn check_controls(text: &str) -> Result<(), UnitError> {
    if text.chars().any(char::is_control) {
        Err(UnitError::ControlCharacter(text.to_owned()))
    } else {
        Ok(())
    }
}

/// A value taken to the end of the line (`WorkingDirectory=`): no quoting, only specifiers.
fn plain_value(text: &str) -> Result<String, UnitError> {
    check_controls(text)?;
    Ok(escape_specifiers(text))
}

/// One word of a quoted list (`Environment=`): double quotes with `\` and `"` escaped, as
/// systemd unquotes with C escapes.
fn quoted_word(text: &str) -> Result<String, UnitError> {
    check_controls(text)?;
    let escaped = text.replace('\\', "\\\\").replace('"', "\\\"");
    Ok(format!("\"{}\"", escape_specifiers(&escaped)))
}

/// One word of `ExecStart=`: bare when it holds nothing special, else double-quoted; `$`
/// (variable substitution) written `$$` and `%` written `%%` either way.
fn exec_word(text: &str) -> Result<String, UnitError> {
    check_controls(text)?;
    let bare = !text.is_empty()
        && text != ";"
        && !text
            .chars()
            .any(|c| c.is_whitespace() || matches!(c, '"' | '\'' | '\\'));
    let word = if bare {
        escape_specifiers(text)
    } else {
        quoted_word(text)?
    };
    Ok(word.replace('$', "$$"))
}

#[cfg(test)]
#[path = "unit_tests.rs"]
mod tests;
