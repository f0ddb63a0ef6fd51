//! The Discord front end: the owner's DMs, slash commands, buttons and reactions, over
//! serenity. Transport stays here; the conversation logic lives in [`crate::agent`].
//!
//! - [`router`]: the one way in — every message, command, click, reaction and typing admitted
//!   by one owner and door check, run under its span and tracked; the serenity event handler.
//! - [`bot`]: shared state and the lifecycle; [`client`]: building and running the serenity
//!   client; [`startup`] runs on the first `READY`; [`owner`]: who may talk to the bot;
//!   [`rate_limit`] and [`reconnects`]: 429s and gateway reconnect storms.
//! - [`intake`]: a message's way through, with its attachments and quoted replies.
//! - [`interactions`]: what a click means, routed; [`commands`]: the slash
//!   commands (`/setup`, `/update`, `/google-auth` in their own files beneath it);
//!   [`clicks`]: what a click or reaction means and does (the button codec, tool and content
//!   approvals, held webhooks, Google buttons).
//! - [`notices`]: what the bot tells the owner unasked: the greeting and shutdown texts, disk
//!   space, set-aside state files, work a killed process left unfinished.
//! - [`streamer`]: renders a turn into messages (edits, splits, status); [`sink`] and
//!   [`http_sink`]: the message operations it needs.
//! - [`front_end`] and [`embeds`]: what the agent core asks of Discord.
//! - [`places`]: the owner's DM, the home channel, and where the conversation is shown now;
//!   [`doors`]: which way a message came in and whether it reaches the agent;
//!   [`channel_privacy`]: who else can read the home channel and which permissions the bot
//!   lacks there; [`home_channel`]: reading that from Discord and telling the owner.

pub(crate) mod arrivals;
mod backfill;
pub mod bot;
pub mod channel_privacy;
pub mod clicks;
pub mod client;
pub mod commands;
pub mod doors;
pub mod embeds;
pub mod focus;
pub mod front_end;
pub mod home_channel;
pub mod http_sink;
pub mod intake;
pub mod interactions;
mod lifecycle;
pub mod nags;
pub mod notices;
pub mod owner;
pub mod owner_turn;
pub mod places;
pub mod rate_limit;
pub mod reconnects;
pub mod router;
pub mod sink;
mod startup;
pub mod streamer;
pub mod wake;
