//! The Discord front end: the owner's DMs, the home channel and the forks' threads, slash
//! commands, buttons and reactions, over serenity. Transport stays here; the conversation
//! logic lives in [`crate::agent`]. A thin router over parts that own their state and
//! handlers (issue 41 §2), as `docs/architecture.md` draws it.
//!
//! - [`router`]: the one way in — every message, command, click, reaction and typing admitted
//!   by one owner and door check ([`doors`]), run under its span, tracked, and handed to the
//!   part that owns it; the serenity event handler.
//! - [`bot`]: the router's state (the parts, what arrived) and the lifecycle; [`reach`]: what
//!   the parts share and how they answer; [`client`]: building and running the serenity
//!   client; [`startup`] runs on the first `READY`; [`owner`]: who may talk to the bot;
//!   [`rate_limit`] and [`reconnects`]: 429s and gateway reconnect storms; [`backfill`]: what
//!   arrived while the gateway was away; [`self_update`]: `/restart` and `/update`.
//! - The parts: [`conversations`] (messages, agent and fork buttons, the conversation's
//!   commands, `/setup`), [`approvals`] (tools, content, held webhooks; buttons and
//!   reactions), [`google`], [`quiet`] (quiet time and focus), [`nags`], [`home`] (the home
//!   channel), [`notices`] (what the bot tells the owner unasked), [`recall`] (`/recall`,
//!   `/forget`).
//! - [`commands`]: the slash command set and which part answers each; [`buttons`]: the
//!   persistent-button codec, which says which part a click is for.
//! - [`streamer`]: renders a turn into messages (edits, splits, status); [`sink`] and
//!   [`http_sink`]: the message operations it needs.
//! - [`front_end`] and [`embeds`]: what the agent core asks of Discord.
//! - [`places`]: the owner's DM, the home channel, and where the conversation is shown now.

pub mod approvals;
pub(crate) mod arrivals;
mod backfill;
pub mod bot;
pub mod buttons;
pub mod client;
pub mod commands;
pub mod conversations;
mod dispatch;
pub mod doors;
pub mod embeds;
pub mod front_end;
pub mod google;
pub mod home;
pub mod http_sink;
mod lifecycle;
pub mod link;
pub mod nags;
pub mod notices;
pub mod owner;
pub mod places;
pub mod quiet;
pub mod rate_limit;
pub mod reach;
pub mod recall;
pub mod reconnects;
pub mod router;
mod self_update;
pub mod sink;
mod startup;
pub mod streamer;
