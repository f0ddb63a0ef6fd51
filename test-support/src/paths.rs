//! Where the things under test are: the repository (fixtures, the pinned CLI's install dir)
//! and the `ollim-bot` binary cargo built for this test or bench run.

use std::path::{Path, PathBuf};

/// The repository's root (this crate sits in `test-support/` under it).
pub fn repo_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("test-support/ sits inside the repository")
}

/// The `ollim-bot` binary cargo built beside the running test or bench: cargo builds the
/// package's binaries before its integration tests and benches and puts them one level above
/// their `deps/` folder (`target/<profile>/ollim-bot`). `CARGO_BIN_EXE_ollim-bot` would say
/// the same, but cargo sets it only while compiling the package's own tests and benches, not
/// this crate.
pub fn ollim_bot_exe() -> PathBuf {
    let exe = std::env::current_exe().expect("the path of the running test");
    let profile_dir = exe
        .parent()
        .filter(|dir| dir.ends_with("deps"))
        .and_then(Path::parent)
        .unwrap_or_else(|| panic!("{} is not in a cargo deps/ folder", exe.display()));
    let bin = profile_dir.join(format!("ollim-bot{}", std::env::consts::EXE_SUFFIX));
    assert!(
        bin.exists(),
        "{} is missing: run the tests through cargo (`cargo test`), which builds it",
        bin.display()
    );
    bin
}
