//! The tests that need no CLI, no fakes and no binary, one test binary: generated input for
//! every parser, the import layering of `src/` against `docs/architecture.md` (and no circle
//! between sibling folders), and the
//! behaviour index `docs/behaviour.md` against the IDs the code names, where the process
//! environment is read, that the Discord front end's parts stand alone, the container
//! image's files against the code, and the README's links, commands and routine.

mod behaviour_index;
mod behaviour_places;
mod container;
mod discord_parts;
mod environment_reads;
mod layers;
mod parsers_proptest;
mod readme;
mod sibling_circles;
mod source_tree;
