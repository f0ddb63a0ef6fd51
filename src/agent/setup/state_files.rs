//! Every state file the bot keeps, with the format its reader uses (issue 40 §1, KEEP-3): the state
//! layer's own stores and the files of the modules above it. The start-up check sets the damaged
//! ones aside and `doctor` reports them, judged by this one list.

use crate::state::inspection::{Known, stores};

/// Every state file under `state/` and its format.
pub fn state_files() -> Vec<Known> {
    let mut known = stores();
    known.extend([
        Known::of::<crate::config::ConfigFile>("config.json"),
        Known::of::<crate::scheduling::missed::Format>("scheduler.json"),
        Known::of::<crate::update::RecordFormat>("update.json"),
        Known::of::<crate::google::files::TokenFormat>("token.json"),
    ]);
    known
}

#[cfg(test)]
#[path = "state_files_tests.rs"]
mod tests;
