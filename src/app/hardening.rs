//! Process hardening at start-up: the bot's own memory and `/proc/<pid>/environ` (which holds
//! the Discord token and API keys) stay out of reach of other processes of the same user —
//! including every shell the agent runs — and no core dump carries them.

/// Marks the process non-dumpable (`PR_SET_DUMPABLE 0`). Children get the default back when
/// they exec, so the CLI is unaffected. A failure is logged, never fatal.
pub fn harden_process() {
    if let Err(error) =
        rustix::process::set_dumpable_behavior(rustix::process::DumpableBehavior::NotDumpable)
    {
        tracing::warn!(%error, "could not mark the process non-dumpable");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_process_becomes_non_dumpable() {
        harden_process();
        assert_eq!(
            rustix::process::dumpable_behavior().unwrap(),
            rustix::process::DumpableBehavior::NotDumpable
        );
    }
}
