//! The Discord front end: the owner's DMs, slash commands, buttons and reactions, over
//! serenity. Transport stays here; the conversation logic lives in [`crate::agent`].
//!
//! - [`bot`]: shared state and the event handler; [`startup`] runs on the first `READY`.
//! - [`intake`]: a DM's way through; [`interactions`] and [`commands`]: clicks and slash
//!   commands; [`approval`]: tool approval by reaction.
//! - [`streamer`]: renders a turn into messages (edits, splits, status); [`sink`] and
//!   [`http_sink`]: the message operations it needs.
//! - [`front_end`] and [`embeds`]: what the agent core asks of Discord.

pub mod approval;
pub mod attachments;
pub mod bot;
pub mod buttons;
pub mod channel_privacy;
pub mod client;
pub mod commands;
mod content_approval;
pub mod disk_space_notice;
pub mod dm_front_end;
pub mod embeds;
pub mod google;
pub mod google_auth;
pub mod greeting;
pub mod http_sink;
pub mod intake;
pub mod interactions;
pub mod owner;
pub mod quote;
pub mod rate_limit;
pub mod reconnects;
mod self_update;
pub mod set_aside_notice;
mod setup;
pub mod sink;
mod startup;
pub mod streamer;
mod tool_approval;
pub mod unfinished_notice;
mod webhook_hold;
