//! What a session is told: [`system_prompt`] builds the text appended to the CLI's preset
//! system prompt (the owner's profile files and the operational sections, whose prose is in
//! `system_prompt_text`); [`context`] builds what opens each user turn (the timestamp header,
//! the pending-updates block, the prompt tags of scheduled and system prompts).

pub mod context;
pub mod system_prompt;
mod system_prompt_text;
