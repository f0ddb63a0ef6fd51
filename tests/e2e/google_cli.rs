//! `ollim-bot tasks | cal | gmail | google auth` through the real binary against the fake
//! Google on 127.0.0.1 (GOO-1…7), a module per topic: every `tasks` subcommand's exact output;
//! the setup instructions without credentials, a refreshed token rewritten and a revoked
//! refresh token turned into the marker; retries on 429 and what API errors say; and both ways
//! of completing the consent flow. No network.

mod api_errors;
mod consent;
mod credentials;
mod tasks;
