//! Recall (issue 42): one ranked index of everything the owner's assistant knows — what was
//! said in the main conversation, the forks and the background runs, and the markdown the
//! agent keeps — so "what did I decide about the flat in March?" is answered from months
//! back, by meaning close to the words, not only by the exact ones.
//!
//! - [`entry`]: a passage (its date, kind, origin, whether untrusted text wrote it) and the
//!   fingerprint a forgotten passage is remembered by;
//! - [`sources`]: passages from the transcripts and the data dir's markdown;
//!   [`gather`]: every source with its stamp, and reading one;
//! - [`rank`]: relevance lifted for recency; [`query`]: what recall is asked and answers;
//! - [`words`]: stemming in the owner's language, with [`synonyms`]: the words that stand
//!   for one another; [`index`]: the `SQLite` `FTS5` index itself;
//! - [`memory`]: recall for a configuration — find, forget, rebuild — as the terminal, the
//!   agent's `recall` tool and Discord use it; [`keeper`]: the daemon keeping the index
//!   current after its start and each ended turn, off the turn's path.
//!
//! The index lives under `state/recall/` (the agent's container never sees `state/`); it is
//! rebuilt from the sources whenever it is damaged or gone, and what the owner forgot
//! (`state/recall_forgotten.json`) never comes back from a rebuild.

pub mod entry;
pub mod gather;
pub mod index;
pub mod keeper;
pub mod memory;
pub mod query;
pub mod rank;
pub mod sources;
pub mod synonyms;
pub mod words;

#[cfg(test)]
mod tests;
