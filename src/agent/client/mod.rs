//! How a session's CLI client is built. [`session_builder`] assembles every kind of session
//! (main, interactive fork, background run, persistent routine, screening) from one
//! description; [`main_client`] gives the main session's and forks' options and
//! [`main_tools`] their `--allowedTools` (and the start-up check of declared tools);
//! [`tool_offer`] derives what each kind is offered (issue 17); `executable_content` hands the
//! CLI the skills, subagents and settings the owner approved (issue 23 §2).

mod executable_content;
pub(crate) mod main_client;
pub mod main_tools;
pub mod session_builder;
pub mod tool_offer;
