//! Start-up of the session runtime: [`data_dir`] prepares the data dir and opens the shared
//! `Services` (BOOT-6); [`sandbox`] lays out the agent's Landlock box for this installation
//! and moves the CLI's login into the bot's own config dir once.

pub mod data_dir;
pub mod sandbox;
