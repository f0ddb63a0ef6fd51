//! Start-up of the session runtime: [`data_dir`] prepares the data dir and opens the shared
//! `Services` (BOOT-6); [`sandbox`] lays out the agent's Landlock box for this installation
//! and moves the CLI's login into the bot's own config dir once; [`state_files`] lists every
//! state file and its format for the start-up check and `doctor`.

pub mod data_dir;
pub mod sandbox;
pub mod state_files;
