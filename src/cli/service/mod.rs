//! `ollim-bot service install | uninstall | status` (issue 15 "Service"): run the bot as a
//! systemd user service. The unit text is [`unit::render`]; the `systemctl` calls are in
//! [`systemd`].

pub mod systemd;
pub mod unit;

use crate::config::environment;
use std::path::Path;

use clap::Subcommand;

use self::{
    systemd::{Systemctl, linger_enabled, systemctl, systemctl_passthrough, unit_path},
    unit::{UNIT_NAME, UnitParams, render},
};
use crate::config::Launch;

/// `ollim-bot service …`.
#[derive(Debug, Clone, Subcommand)]
pub enum ServiceCommand {
    /// Write ~/.config/systemd/user/ollim-bot.service, enable it and start it.
    Install {
        /// Write and enable the unit without starting it now.
        #[arg(long)]
        no_start: bool,
    },
    /// Stop and disable the service and remove its unit file.
    Uninstall,
    /// `systemctl --user status ollim-bot.service`.
    Status,
}

/// Runs a `service` subcommand for the bot `launch` describes, whose data dir is `data_dir`;
/// returns the exit code.
pub fn run(action: &ServiceCommand, launch: &Launch, data_dir: &Path) -> i32 {
    let lookup = environment::var;
    let Some(unit_file) = unit_path(lookup) else {
        eprintln!("cannot tell where user units live: set HOME (or XDG_CONFIG_HOME)");
        return 1;
    };
    match action {
        ServiceCommand::Install { no_start } => install(launch, data_dir, &unit_file, *no_start),
        ServiceCommand::Uninstall => uninstall(&unit_file),
        ServiceCommand::Status => {
            systemctl_passthrough(&["status", UNIT_NAME]).unwrap_or_else(|| {
                eprintln!("systemd isn't available here (no systemctl on PATH)");
                1
            })
        }
    }
}

fn install(launch: &Launch, data_dir: &Path, unit_file: &Path, no_start: bool) -> i32 {
    let Some(env_file) = launch.env_file.path() else {
        eprintln!(
            "no .env to give the service: {}. Create one (e.g. `cp .env.example {}`) or pass \
             --env-file PATH",
            launch.env_file.describe(),
            data_dir.join(".env").display()
        );
        return 1;
    };
    let params = match unit_params(launch, env_file, data_dir) {
        Ok(params) => params,
        Err(message) => {
            eprintln!("{message}");
            return 1;
        }
    };
    let text = match render(&params) {
        Ok(text) => text,
        Err(error) => {
            eprintln!("cannot write the unit: {error}");
            return 1;
        }
    };
    if let Err(message) = write_unit(unit_file, data_dir, &text) {
        eprintln!("{message}");
        return 1;
    }
    println!("wrote {}", unit_file.display());
    let by_hand = format!("start the bot by hand instead: {}", shell_command(&params));
    if let Err(why) = reachable(systemctl(&["daemon-reload"])) {
        eprintln!("systemd isn't available here ({why}); {by_hand}");
        return 1;
    }
    let enable: &[&str] = if no_start {
        &["enable", UNIT_NAME]
    } else {
        &["enable", "--now", UNIT_NAME]
    };
    if let Err(why) = reachable(systemctl(enable)) {
        eprintln!("could not enable {UNIT_NAME} ({why}); {by_hand}");
        return 1;
    }
    if no_start {
        println!("enabled {UNIT_NAME}; start it with: systemctl --user start ollim-bot");
    } else {
        println!("enabled and started {UNIT_NAME}");
    }
    println!("follow its logs: journalctl --user -u ollim-bot -f");
    let user = environment::user_name();
    if linger_enabled(user.as_deref()) != Some(true) {
        println!(
            "to keep it running after you log out (and start it at boot): loginctl enable-linger \
             $USER"
        );
    }
    0
}

fn uninstall(unit_file: &Path) -> i32 {
    let disabled = systemctl(&["disable", "--now", UNIT_NAME]);
    match crate::state::atomic::remove_if_exists(unit_file) {
        Ok(true) => println!("removed {}", unit_file.display()),
        Ok(false) => println!("{} was not there", unit_file.display()),
        Err(error) => {
            eprintln!("could not remove {}: {error}", unit_file.display());
            return 1;
        }
    }
    match disabled {
        Systemctl::Missing => {
            eprintln!("systemd isn't available here (no systemctl on PATH)");
            return 1;
        }
        Systemctl::Failed(_, why) => println!("disable: {why}"),
        Systemctl::Done => println!("stopped and disabled {UNIT_NAME}"),
    }
    if let Err(why) = reachable(systemctl(&["daemon-reload"])) {
        eprintln!("systemd isn't available here ({why})");
        return 1;
    }
    0
}

/// The service's command line for a shell, each word quoted as needed.
fn shell_command(params: &UnitParams) -> String {
    let mut words = vec![
        params.exe.display().to_string(),
        "--env-file".to_owned(),
        params.env_file.display().to_string(),
    ];
    if let Some(dir) = &params.data_dir_arg {
        words.extend(["--data-dir".to_owned(), dir.display().to_string()]);
    }
    words
        .iter()
        .map(|word| {
            shlex::try_quote(word).map_or_else(|_| word.clone(), std::borrow::Cow::into_owned)
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// `Ok` when the call succeeded, else why systemd could not be used.
fn reachable(outcome: Systemctl) -> Result<(), String> {
    match outcome {
        Systemctl::Done => Ok(()),
        Systemctl::Missing => Err("no systemctl on PATH".to_owned()),
        Systemctl::Failed(code, why) => Err(format!("systemctl exited with {code}: {why}")),
    }
}

/// Absolute paths of this binary, the `.env` and the data dir; `--data-dir` is pinned when
/// it came from the flag or from `OLLIM_DATA_DIR`, which a service would not otherwise see.
fn unit_params(launch: &Launch, env_file: &Path, data_dir: &Path) -> Result<UnitParams, String> {
    let exe = std::env::current_exe()
        .map_err(|error| format!("cannot find this program's path: {error}"))?;
    let absolute = |path: &Path| {
        std::path::absolute(path)
            .map_err(|error| format!("cannot make {} absolute: {error}", path.display()))
    };
    let data_dir = absolute(data_dir)?;
    let from_env = environment::is_set("OLLIM_DATA_DIR");
    Ok(UnitParams {
        exe,
        env_file: absolute(env_file)?,
        data_dir_arg: (launch.data_dir_flag.is_some() || from_env).then(|| data_dir.clone()),
        working_dir: data_dir,
        path_env: environment::var("PATH"),
    })
}

/// Writes the unit atomically, creating its directory and the data dir (the working
/// directory must exist for the service to start).
fn write_unit(unit_file: &Path, data_dir: &Path, text: &str) -> Result<(), String> {
    let dir = unit_file.parent().unwrap_or_else(|| Path::new("."));
    for needed in [dir, data_dir] {
        std::fs::create_dir_all(needed)
            .map_err(|error| format!("cannot create {}: {error}", needed.display()))?;
    }
    crate::state::atomic::write_atomic(unit_file, text.as_bytes())
        .map_err(|error| format!("cannot write {}: {error}", unit_file.display()))
}
