//! The fakes and harnesses the end-to-end tests (`tests/e2e`) and the benches share, a crate
//! of its own so it compiles once: a scriptable mock of the Anthropic Messages API
//! (`mock_api`), the fake Discord (`fake_discord`) and Google (`fake_google`), a sandbox for
//! running the pinned Claude Code CLI against them (`cli`), and the harnesses (`AgentHarness`
//! for the session runtime in-process, `BotHarness` for the real binary).

// Panicking with what went wrong is how a harness fails a test, so nearly every function here
// may panic; a `# Panics` section on each would say only that. Builders (`Reply::with_…`) are
// always used in a chain.
#![allow(clippy::missing_panics_doc, clippy::return_self_not_must_use)]

pub mod agent;
pub mod bot;
pub mod chat;
pub mod cli;
pub mod echo_bot;
pub mod fake_discord;
pub mod fake_google;
pub mod google_cli;
pub mod http;
pub mod mock_api;
pub mod paths;
pub mod power_loss;
pub mod procs;
pub mod replay;
pub mod wait;
