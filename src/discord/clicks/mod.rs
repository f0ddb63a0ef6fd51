//! The owner's clicks and reactions: what a button means and what each one does.
//!
//! - [`buttons`]: the persistent-button codec (`custom_id = act:<action>:<data>`), so a
//!   click is understood even after a restart; `interactions` decodes it and routes it here.
//! - `tool_approval`, `content_approval`, `webhook_hold`: Approve / Deny (Run / Drop) on the
//!   embeds that ask for them, honoured only on the message the bot posted.
//! - [`google`]: the task and event buttons, and the revocation notice.
//! - [`reaction_approval`]: tool approval by reaction (✅ ❌ 🔓) in the owner's DM.

pub mod buttons;
mod content_approval;
pub mod google;
pub mod reaction_approval;
mod tool_approval;
mod webhook_hold;
