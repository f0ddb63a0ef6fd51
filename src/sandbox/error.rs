//! Why a CLI's box could not be prepared.

use super::egress;

/// Why a child's domain could not be prepared. The child is then not started: the bot never
/// runs the agent outside the box on a kernel that has one.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// The kernel refused to create the ruleset or a rule.
    #[error("could not prepare the sandbox: {0}")]
    Ruleset(#[from] landlock::RulesetError),
    /// A file holding the bot's secrets sits inside a tree every CLI may read, and without
    /// containers nothing can hide it (issue 39 §2).
    #[error(
        "{} holds the bot's secrets but sits inside {}, which every Claude CLI may read here \
         (no containers on this machine): move it out of there, e.g. to ~/.ollim-bot/.env, \
         and point OLLIM_ENV_FILE at it",
        secret.display(),
        tree.display()
    )]
    SecretExposed {
        /// The secret file.
        secret: std::path::PathBuf,
        /// The granted tree that holds it.
        tree: std::path::PathBuf,
    },
    /// The proxy of a container's network could not start.
    #[error(transparent)]
    Proxy(#[from] egress::ProxyError),
    /// The record of which home holds each session can't be read (issue 40 §1): a session
    /// is not resumed from a home nobody can vouch for.
    #[error("could not tell which container holds the session: {0}")]
    Book(#[from] crate::state::StateError),
    /// A directory the layout needs could not be created.
    #[error("could not create {path}: {source}")]
    Dir {
        /// The directory.
        path: std::path::PathBuf,
        /// The error.
        source: std::io::Error,
    },
}
