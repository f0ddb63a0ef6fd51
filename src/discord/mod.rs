//! The Discord front end: the owner's DMs, slash commands, buttons and reactions, over
//! serenity. Transport stays here; the conversation logic lives in [`crate::agent`].

pub mod sink;
pub mod streamer;
