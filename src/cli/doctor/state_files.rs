//! STATE FILES (CMD-7): every state file the bot reads, judged by the reader the bot itself uses
//! (`state::inspection`, issue 24 §1: `sessions.json` holds a bare session id, not JSON; issue 40
//! §1: `config.json`, `scheduler.json`, `update.json` and `token.json` too). Nothing is changed: a
//! damaged file is reported (the bot sets it aside at its next start and says so), and no file's
//! content is ever shown.

use super::{Check, Group};
use crate::{
    agent::setup::state_files::state_files,
    state::{
        inspection::{Health, inspect},
        paths::DataDir,
    },
};

/// The STATE FILES group for `data_dir`.
pub(super) fn state_file_checks(data_dir: &DataDir) -> Vec<Check> {
    let group = Group::StateFiles;
    match std::fs::read_dir(data_dir.state_dir()) {
        Ok(_) => {}
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return vec![Check::pass(group, "no state/ yet (created at first start)")];
        }
        Err(error) => {
            return vec![Check::fail(
                group,
                format!("state/ can't be read ({error}): fix its permissions"),
            )];
        }
    }
    let mut checks: Vec<Check> = inspect(data_dir, &state_files())
        .into_iter()
        .filter_map(|file| {
            let name = format!("state/{}", file.name);
            match file.health {
                Health::Absent => None,
                Health::Sound => Some(Check::pass(group, format!("{name} reads fine"))),
                Health::Damaged(reason) => Some(Check::fail(
                    group,
                    format!(
                        "{name} is damaged ({reason}): repair it now to keep its content; at its \
                         next start the bot moves it aside as {name}.corrupt-<time>, starts it \
                         fresh and tells you"
                    ),
                )),
                Health::Unreadable(error) => Some(Check::fail(
                    group,
                    format!("{name} can't be read ({error}): fix its permissions"),
                )),
            }
        })
        .collect();
    if checks.is_empty() {
        checks.push(Check::pass(group, "state/ holds no files yet"));
    }
    checks
}
