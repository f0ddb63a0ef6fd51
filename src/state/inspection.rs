//! Every state file the bot reads and sets aside when damaged, judged by the reader the bot
//! itself uses (issue 24 §1, §9; issue 40 §1): `doctor` reports them without touching
//! anything, and the bot sets the damaged ones aside at start, so the owner hears of it with
//! the greeting rather than whenever the file is next used. This module lists its own stores
//! ([`stores`]); the files of modules above it (`config.json`, `scheduler.json`,
//! `update.json`, `token.json`) are added by whoever sees them all
//! (`agent::setup::state_files`).

use std::path::{Path, PathBuf};

use super::{
    paths::DataDir,
    set_aside::{Trouble, set_aside},
    state_file::{FileFormat, StateFile},
};

/// A state file (its name inside `state/`) and how the bot's reader tells a damaged copy
/// (the reason, or `None`).
#[derive(Debug, Clone, Copy)]
pub struct Known {
    name: &'static str,
    damage: fn(&[u8]) -> Option<String>,
}

impl Known {
    /// `name`, read with format `F`.
    pub fn of<F: FileFormat>(name: &'static str) -> Self {
        Self {
            name,
            damage: StateFile::<F>::damage,
        }
    }
}

/// The state files this module's stores read.
pub fn stores() -> Vec<Known> {
    vec![
        Known::of::<super::sessions::Format>("sessions.json"),
        Known::of::<super::pending::Format>("pending_updates.json"),
        Known::of::<super::fork_messages::Format>("fork_messages.json"),
        Known::of::<super::inquiries::Format>("inquiries.json"),
        Known::of::<super::ping_budget::Format>("ping_budget.json"),
        Known::of::<super::unfinished::Format>("unfinished.json"),
        Known::of::<super::held_webhooks::Format>("held_webhooks.json"),
        Known::of::<super::nags::Format>("nags.json"),
        Known::of::<super::quiet::Format>("quiet.json"),
        Known::of::<super::content_approvals::Format>("content_approvals.json"),
        Known::of::<super::tool_approvals::Format>("tool_approvals.json"),
        Known::of::<super::cli_homes::Format>("cli_homes.json"),
        Known::of::<super::untrusted_sessions::Format>("untrusted_sessions.json"),
        Known::of::<super::told::Format>("told.json"),
        Known::of::<super::recall_forgotten::Format>("recall_forgotten.json"),
    ]
}

/// What one state file is like now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Health {
    /// Not there (the store starts empty).
    Absent,
    /// Its reader accepts it.
    Sound,
    /// Its reader would set it aside: why.
    Damaged(String),
    /// It can't be read at all: the error.
    Unreadable(String),
}

/// One state file's name, path and health.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inspected {
    /// The file name inside `state/`.
    pub name: &'static str,
    /// Its path.
    pub path: PathBuf,
    /// What it is like.
    pub health: Health,
}

/// The health of each of `known`. Reads only.
pub fn inspect(data_dir: &DataDir, known: &[Known]) -> Vec<Inspected> {
    let state_dir = data_dir.state_dir();
    known
        .iter()
        .map(|known| {
            let path = state_dir.join(known.name);
            let health = health(&path, known.damage);
            Inspected {
                name: known.name,
                path,
                health,
            }
        })
        .collect()
}

fn health(path: &Path, damage: fn(&[u8]) -> Option<String>) -> Health {
    match std::fs::read(path) {
        Ok(bytes) => damage(&bytes).map_or(Health::Sound, Health::Damaged),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Health::Absent,
        Err(error) => Health::Unreadable(error.to_string()),
    }
}

/// Sets every damaged state file aside now (the owner is told through the set-aside notice),
/// as its store would on first use, and tells the owner of each file that can't be read (once:
/// its store won't tell again). Returns the names set aside.
pub fn set_aside_damaged(data_dir: &DataDir, known: &[Known]) -> Vec<&'static str> {
    inspect(data_dir, known)
        .into_iter()
        .filter_map(|file| match file.health {
            Health::Damaged(reason) => {
                tracing::warn!(file = file.name, %reason, "damaged state file set aside at start");
                set_aside(&file.path, &reason);
                Some(file.name)
            }
            Health::Unreadable(error) => {
                super::state_file::told::trouble(&file.path, Trouble::Unreadable, &error);
                None
            }
            Health::Absent | Health::Sound => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each file as the bot writes it is sound; garbage in any of them is damaged; a bare
    /// session id (not JSON) is what `sessions.json` holds by design.
    #[test]
    fn files_are_judged_by_the_bots_own_readers() {
        let dir = tempfile::tempdir().unwrap();
        let data_dir = DataDir::new(dir.path());
        let state = data_dir.state_dir();
        std::fs::create_dir_all(&state).unwrap();
        assert!(
            inspect(&data_dir, &stores())
                .iter()
                .all(|f| f.health == Health::Absent)
        );
        std::fs::write(
            state.join("sessions.json"),
            "2f1c7a8e-55b1-4d3c-9e0a-1b2c3d4e5f60",
        )
        .unwrap();
        std::fs::write(state.join("pending_updates.json"), "[]").unwrap();
        std::fs::write(state.join("ping_budget.json"), "garbage").unwrap();
        let health = |name: &str| {
            inspect(&data_dir, &stores())
                .into_iter()
                .find(|f| f.name == name)
                .unwrap()
                .health
        };
        assert_eq!(health("sessions.json"), Health::Sound);
        assert_eq!(health("pending_updates.json"), Health::Sound);
        assert!(matches!(health("ping_budget.json"), Health::Damaged(_)));

        assert_eq!(
            set_aside_damaged(&data_dir, &stores()),
            ["ping_budget.json"]
        );
        assert_eq!(health("ping_budget.json"), Health::Absent);
        assert_eq!(
            crate::state::set_aside::copies_of(&state.join("ping_budget.json")).len(),
            1
        );
        assert_eq!(health("sessions.json"), Health::Sound, "left alone");
    }
}
