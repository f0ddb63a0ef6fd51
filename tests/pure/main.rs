//! The tests that need no CLI, no fakes and no binary, one test binary: generated input for
//! every parser, and the import layering of `src/` against `docs/architecture.md`.

mod layers;
mod parsers_proptest;
