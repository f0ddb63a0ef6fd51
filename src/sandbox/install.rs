//! Where the programs the box must let the agent run are: the `claude` executable and its
//! install, and the directories of `PATH`.

use std::{
    ffi::OsStr,
    os::unix::fs::PermissionsExt,
    path::{Path, PathBuf},
};

/// Where `cli` resolves: a path with a directory part as it is, a bare name on `path_var`
/// (`PATH`); only executable regular files count.
pub fn locate_executable(cli: &Path, path_var: Option<&OsStr>) -> Option<PathBuf> {
    let executable = |path: &Path| {
        std::fs::metadata(path)
            .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
    };
    if cli.components().count() > 1 {
        return executable(cli).then(|| cli.to_path_buf());
    }
    std::env::split_paths(path_var?)
        .map(|dir| dir.join(cli))
        .find(|candidate| executable(candidate))
}

/// The paths to read and execute for the CLI at `cli` (as configured): the executable found
/// itself, its folder, and the package its real file sits in (two levels up: an npm
/// package's `bin/claude.exe`, or the native installer's `versions/<version>`). The folders
/// are left out later when they would cover the home or the data dir; the file never is.
pub fn cli_install_dirs(cli: &Path, path_var: Option<&OsStr>) -> Vec<PathBuf> {
    let Some(found) = locate_executable(cli, path_var) else {
        return Vec::new();
    };
    let mut dirs = vec![found.clone()];
    dirs.extend(found.parent().map(Path::to_path_buf));
    if let Ok(real) = std::fs::canonicalize(&found)
        && let Some(package) = real.parent().and_then(Path::parent)
    {
        dirs.push(package.to_path_buf());
    }
    dirs
}

/// The directories of `path_var` (`PATH`) that exist, in order.
pub fn path_dirs(path_var: Option<&OsStr>) -> Vec<PathBuf> {
    path_var
        .map(|value| {
            std::env::split_paths(value)
                .filter(|dir| dir.is_absolute() && dir.is_dir())
                .collect()
        })
        .unwrap_or_default()
}
