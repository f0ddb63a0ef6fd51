//! What a session may do, decided by us at each tool call rather than left to the CLI.
//!
//! - [`policy`]: the permission callback of the main session and interactive forks (PRM-2,
//!   AGT-6); [`background_policy`]: a background run's tool set, policy and stop hook.
//! - [`hooks`]: the hooks every main-session and fork client gets (AGT-8), assembled from the
//!   guards: [`write_scope`] (writes no rule covers), [`routine_guard`] (the routine validator,
//!   with [`proposed_write`] working out what a write would leave), [`outbound_hold`] (outbound
//!   tools after mail).
//! - [`rule_match`]: whether an `--allowedTools`-style rule list covers a call; [`live_rules`]:
//!   the rules that widen running clients (`tool-policy.yaml` additions, a foreground job's
//!   tools for its turn).

pub mod background_policy;
pub mod hooks;
pub mod live_rules;
pub mod outbound_hold;
pub mod policy;
pub mod proposed_write;
pub mod routine_guard;
pub mod rule_match;
pub mod write_scope;
