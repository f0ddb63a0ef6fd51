//! ENVIRONMENT, DATA DIRECTORY and TIMEZONE & SCHEDULING (CMD-7).

use std::path::Path;

use chrono::DateTime;
use chrono_tz::Tz;

use super::{Check, Group};
use crate::config::{Config, ConfigError, EnvFileSource, Launch, WebhookSetting};

/// The variables the bot does not start without (BOOT-2), with what each is for.
const REQUIRED: [(&str, &str); 3] = [
    (
        "DISCORD_TOKEN",
        "the bot token from the Discord Developer Portal (Bot → Reset Token)",
    ),
    (
        "OLLIM_USER_NAME",
        "your first name, the one the bot calls you",
    ),
    ("OLLIM_BOT_NAME", "the bot's name, e.g. Ollim"),
];

/// The ENVIRONMENT group, and the configuration the other groups work from: the real one, or
/// when only the names are missing, one with placeholder names (so the data dir is still
/// checked). `None` when the configuration can't be read at all.
pub(super) fn environment_checks(launch: &Launch) -> (Vec<Check>, Option<Config>) {
    let mut checks = vec![env_file_check(&launch.env_file)];
    if let Some(path) = launch.env_file.path() {
        checks.extend(
            crate::config::env_keys::misspelt_keys(path)
                .into_iter()
                .map(|note| Check::warn(Group::Environment, format!(".env: {note}"))),
        );
    }
    checks.extend(required_var_checks(|name| launch.var(name)));
    let config = Config::from_launch(launch);
    let usable = match config {
        Ok(config) => {
            checks.push(Check::pass(Group::Environment, "configuration is valid"));
            Some(config)
        }
        Err(ConfigError::Missing {
            name: "OLLIM_USER_NAME" | "OLLIM_BOT_NAME",
            ..
        }) => {
            // Already a FAIL line above; look past the names for other problems.
            match Config::from_lookup(|name| match name {
                "OLLIM_USER_NAME" | "OLLIM_BOT_NAME" => Some("-".to_owned()),
                _ => launch.var(name),
            }) {
                Ok(config) => Some(config),
                Err(error) => {
                    checks.push(config_failure(&error));
                    None
                }
            }
        }
        Err(error) => {
            checks.push(config_failure(&error));
            None
        }
    };
    if let Some(config) = &usable {
        checks.extend(webhook_secret_check(&config.webhook));
    }
    (checks, usable)
}

fn config_failure(error: &ConfigError) -> Check {
    Check::fail(Group::Environment, format!("configuration: {error}"))
}

/// Which `.env` was read.
pub(super) fn env_file_check(source: &EnvFileSource) -> Check {
    match source {
        EnvFileSource::Absent(_) => Check::warn(
            Group::Environment,
            format!(
                ".env: {}: only the process environment is used; put your settings in \
                 DATA_DIR/.env or pass --env-file PATH",
                source.describe()
            ),
        ),
        _ => Check::pass(Group::Environment, format!(".env: {}", source.describe())),
    }
}

/// One line per required variable; never its value.
pub(super) fn required_var_checks(lookup: impl Fn(&str) -> Option<String>) -> Vec<Check> {
    REQUIRED
        .iter()
        .map(|(name, hint)| {
            if lookup(name).is_some_and(|v| !v.trim().is_empty()) {
                Check::pass(Group::Environment, format!("{name} is set"))
            } else {
                Check::fail(
                    Group::Environment,
                    format!("{name} is not set: add {name}=… to .env ({hint})"),
                )
            }
        })
        .collect()
}

/// `WEBHOOK_PORT` without `WEBHOOK_SECRET` leaves the server off (WHK-1).
pub(super) fn webhook_secret_check(setting: &WebhookSetting) -> Option<Check> {
    match setting {
        WebhookSetting::MissingSecret { port } => Some(Check::fail(
            Group::Environment,
            format!(
                "WEBHOOK_PORT={port} is set but WEBHOOK_SECRET is not: the webhook server stays \
                 off; set WEBHOOK_SECRET in .env (a long random string), or remove WEBHOOK_PORT"
            ),
        )),
        WebhookSetting::On { port, .. } => Some(Check::pass(
            Group::Environment,
            format!("WEBHOOK_PORT={port} and WEBHOOK_SECRET are set"),
        )),
        WebhookSetting::Off => None,
    }
}

/// The data dir: there (else created at first start), writable, a git repository.
pub(super) fn data_dir_checks(root: &Path) -> Vec<Check> {
    let shown = root.display();
    let group = Group::DataDirectory;
    if root.is_dir() {
        let writable = match tempfile::NamedTempFile::new_in(root) {
            Ok(_) => Check::pass(group, format!("{shown} is writable")),
            Err(error) => Check::fail(
                group,
                format!(
                    "{shown} is not writable ({error}): give your user write access to it \
                     (chown or chmod)"
                ),
            ),
        };
        let git = if root.join(".git").exists() {
            Check::pass(group, format!("{shown} is a git repository"))
        } else {
            Check::warn(
                group,
                format!(
                    "{shown} is not a git repository yet: it is initialised at the bot's first \
                     start"
                ),
            )
        };
        return vec![Check::pass(group, format!("{shown} exists")), writable, git];
    }
    if root.exists() {
        return vec![Check::fail(
            group,
            format!("{shown} is not a directory: move the file away or set OLLIM_DATA_DIR"),
        )];
    }
    let missing = Check::warn(
        group,
        format!("{shown} does not exist yet: it is created at the bot's first start"),
    );
    vec![missing, creatable_check(root)]
}

/// Whether a data dir that is not there yet can be created: its nearest existing ancestor is
/// a directory we may write in.
fn creatable_check(root: &Path) -> Check {
    let group = Group::DataDirectory;
    let shown = root.display();
    let Some(ancestor) = root.ancestors().skip(1).find(|dir| dir.exists()) else {
        return Check::fail(group, format!("{shown} can't be created: no parent exists"));
    };
    if !ancestor.is_dir() {
        return Check::fail(
            group,
            format!(
                "{shown} can't be created: {} is not a directory; set OLLIM_DATA_DIR to another \
                 path",
                ancestor.display()
            ),
        );
    }
    match tempfile::NamedTempFile::new_in(ancestor) {
        Ok(_) => Check::pass(group, format!("{shown} can be created")),
        Err(error) => Check::fail(
            group,
            format!(
                "{shown} can't be created: {} is not writable ({error}); create the directory \
                 yourself or set OLLIM_DATA_DIR",
                ancestor.display()
            ),
        ),
    }
}

/// The zone in use (and where it came from) and the local time now.
pub(super) fn timezone_checks(now: DateTime<Tz>, zone_named: bool) -> Vec<Check> {
    let zone = now.timezone();
    let zone_line = if zone_named {
        format!("timezone {zone} (OLLIM_TIMEZONE)")
    } else {
        format!("timezone {zone} (the system's; set OLLIM_TIMEZONE to choose another)")
    };
    vec![
        Check::pass(Group::Timezone, zone_line),
        Check::pass(
            Group::Timezone,
            format!("local time {}", now.format("%a %Y-%m-%d %H:%M %Z")),
        ),
    ]
}
