//! ROUTINES, REMINDERS and WEBHOOKS (CMD-7): every file read by the loaders the scheduler and
//! the webhook server use, routines with their next fire from the scheduler's cron.

use std::net::TcpListener;

use chrono::DateTime;
use chrono_tz::Tz;

use super::{Check, Group};
use crate::{
    config::WebhookSetting,
    scheduling::{
        cron::CronSchedule,
        files::{FileProblem, load_reminders, load_routines},
    },
    state::paths::DataDir,
    webhooks::SpecStore,
};

/// How fire times are shown.
const WHEN: &str = "%a %Y-%m-%d %H:%M %Z";

fn broken_file(group: Group, problem: &FileProblem) -> Check {
    Check::fail(
        group,
        format!(
            "{}: {}: fix the file or remove it (the scheduler skips it)",
            problem.path.display(),
            problem.reason
        ),
    )
}

/// A WARN per note on a file that loads (an unknown key, issue 24 §4), the file shown as
/// `shown`.
pub(super) fn note_checks(
    group: Group,
    shown: &dyn std::fmt::Display,
    notes: &[String],
) -> Vec<Check> {
    notes
        .iter()
        .map(|note| {
            Check::warn(
                group,
                format!("{shown}: {note}: fix the spelling or remove it"),
            )
        })
        .collect()
}

/// Each routine file: parses, its cron is usable, and when it fires next after `now`.
pub(super) fn routine_checks(data_dir: &DataDir, now: DateTime<Tz>) -> Vec<Check> {
    let group = Group::Routines;
    let (routines, problems) = load_routines(data_dir);
    let mut checks: Vec<Check> = problems.iter().map(|p| broken_file(group, p)).collect();
    for file in &routines {
        checks.extend(note_checks(group, &file.path.display(), &file.notes));
        let path = file.path.display();
        let cron = &file.item.cron;
        checks.push(match CronSchedule::parse(cron) {
            Ok(schedule) => match schedule.next_after(now) {
                Some(next) => Check::pass(
                    group,
                    format!("{path}: next fire {} (cron {cron})", next.format(WHEN)),
                ),
                None => Check::warn(
                    group,
                    format!("{path}: cron {cron} never fires again: change or remove it"),
                ),
            },
            Err(error) => broken_file(
                group,
                &FileProblem {
                    path: file.path.clone(),
                    reason: error.to_string(),
                },
            ),
        });
    }
    if checks.is_empty() {
        checks.push(Check::pass(group, "no routines"));
    }
    checks
}

/// Each reminder file: parses, and whether its time has passed.
pub(super) fn reminder_checks(data_dir: &DataDir, now: DateTime<Tz>) -> Vec<Check> {
    let group = Group::Reminders;
    let (reminders, problems) = load_reminders(data_dir, now.timezone());
    let mut checks: Vec<Check> = problems.iter().map(|p| broken_file(group, p)).collect();
    for file in &reminders {
        checks.extend(note_checks(group, &file.path.display(), &file.notes));
        let path = file.path.display();
        let at = file.item.run_at.with_timezone(&now.timezone());
        checks.push(if at < now {
            Check::warn(
                group,
                format!(
                    "{path}: overdue since {}: it fires late at the bot's next start; cancel it \
                     with `ollim-bot reminder cancel {}` if it is no longer wanted",
                    at.format(WHEN),
                    file.item.id
                ),
            )
        } else {
            Check::pass(group, format!("{path}: fires {}", at.format(WHEN)))
        });
    }
    if checks.is_empty() {
        checks.push(Check::pass(group, "no reminders"));
    }
    checks
}

/// Each spec in `webhooks/`, read by the server's own store; with the server off a valid
/// spec is a warning, since nothing can reach it (issue 24 §8).
pub(super) fn webhook_spec_checks(data_dir: &DataDir, setting: &WebhookSetting) -> Vec<Check> {
    let group = Group::Webhooks;
    let server_on = matches!(setting, WebhookSetting::On { .. });
    let specs = SpecStore::new(data_dir.webhooks_dir()).scan();
    let mut checks: Vec<Check> = specs
        .iter()
        .filter_map(|parsed| parsed.as_ref().ok())
        .flat_map(|spec| note_checks(group, &spec.file.display(), &spec.notes))
        .collect();
    checks.extend(specs.into_iter().map(|parsed| match parsed {
        Ok(spec) if server_on => Check::pass(
            group,
            format!("webhooks/{}: POST /hook/{}", spec.file_name(), spec.id),
        ),
        Ok(spec) => Check::warn(
            group,
            format!(
                "webhooks/{}: the webhook server is off, so nothing reaches /hook/{}: set \
                     WEBHOOK_PORT and WEBHOOK_SECRET in .env",
                spec.file_name(),
                spec.id
            ),
        ),
        Err(error) => Check::fail(
            group,
            format!("{error}: fix the spec (requests for it are refused until then)"),
        ),
    }));
    if checks.is_empty() {
        checks.push(Check::pass(group, "no webhook specs"));
    }
    checks
}

/// Whether the configured port is free on 127.0.0.1 (a bind test; nothing when the server is
/// off).
pub(super) fn port_check(setting: &WebhookSetting, bind: std::net::IpAddr) -> Option<Check> {
    let port = match setting {
        WebhookSetting::Off => return None,
        WebhookSetting::MissingSecret { port } | WebhookSetting::On { port, .. } => *port,
    };
    Some(port_status((bind, port), TcpListener::bind((bind, port))))
}

/// The port check's line from the bind attempt on `bind:port`.
pub(super) fn port_status(
    (bind, port): (std::net::IpAddr, u16),
    bound: std::io::Result<TcpListener>,
) -> Check {
    let group = Group::Webhooks;
    if port == 0 {
        return Check::pass(group, "port 0: the system picks a free port at start");
    }
    match bound {
        Ok(_) => Check::pass(group, format!("port {port} is free on {bind}")),
        Err(error) if error.kind() == std::io::ErrorKind::AddrInUse => Check::warn(
            group,
            format!(
                "port {port} on {bind} is in use (is the bot running?): if not, choose \
                 another WEBHOOK_PORT"
            ),
        ),
        Err(error) => Check::fail(
            group,
            format!(
                "port {port} on {bind} can't be opened ({error}): choose another WEBHOOK_PORT \
                 or WEBHOOK_BIND"
            ),
        ),
    }
}
