//! The channel-agnostic agent core: the main session, context injection, the system prompt and
//! the front-end trait shared by Discord and the terminal.

pub mod context;
pub mod frontend;
pub mod labels;
pub mod system_prompt;
