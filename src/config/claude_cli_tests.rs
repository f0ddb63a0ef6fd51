//! Which CLI the bot runs: the owner's, the bot's own copy, `claude` on PATH.

use std::collections::HashMap;

use super::*;

fn lookup(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let map: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    move |name| map.get(name).cloned()
}

/// An executable file at `path` (a stand-in for npm's link).
fn install_at(path: &Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, "#!/bin/sh\n").unwrap();
}

#[test]
fn the_install_dir_follows_xdg_data_home_else_home() {
    assert_eq!(
        bot_cli_dir(lookup(&[("HOME", "/home/julia")])),
        Some(PathBuf::from(
            "/home/julia/.local/share/ollim-bot/claude-cli"
        ))
    );
    assert_eq!(
        bot_cli_dir(lookup(&[
            ("HOME", "/home/julia"),
            ("XDG_DATA_HOME", "/data")
        ])),
        Some(PathBuf::from("/data/ollim-bot/claude-cli"))
    );
    // A relative XDG_DATA_HOME is ignored, as the spec says; blank is unset.
    for ignored in ["relative/share", "  "] {
        assert_eq!(
            bot_cli_dir(lookup(&[
                ("HOME", "/home/julia"),
                ("XDG_DATA_HOME", ignored)
            ])),
            Some(PathBuf::from(
                "/home/julia/.local/share/ollim-bot/claude-cli"
            )),
            "{ignored:?}"
        );
    }
    assert_eq!(bot_cli_dir(lookup(&[])), None);
    assert_eq!(
        bot_cli_executable(Path::new("/d")),
        PathBuf::from("/d/node_modules/.bin/claude")
    );
}

#[test]
fn the_owners_cli_wins_then_the_bots_copy_then_path() {
    let home = tempfile::tempdir().unwrap();
    let home_var = home.path().to_str().unwrap();
    let own = bot_cli_executable(&home.path().join(".local/share/ollim-bot/claude-cli"));

    // Nothing installed: `claude` on PATH, as before.
    let none = claude_cli_from(lookup(&[("HOME", home_var)]));
    assert_eq!(none.path, PathBuf::from("claude"));
    assert_eq!(none.origin, CliOrigin::SearchPath);

    install_at(&own);
    let copy = claude_cli_from(lookup(&[("HOME", home_var)]));
    assert_eq!(
        copy,
        ClaudeCli {
            path: own.clone(),
            origin: CliOrigin::BotCopy
        }
    );

    // The owner's choice wins over the bot's copy; a blank one is unset.
    let named = claude_cli_from(lookup(&[
        ("HOME", home_var),
        ("OLLIM_CLAUDE_CLI", " /opt/claude "),
    ]));
    assert_eq!(
        named,
        ClaudeCli {
            path: PathBuf::from("/opt/claude"),
            origin: CliOrigin::Named
        }
    );
    let blank = claude_cli_from(lookup(&[("HOME", home_var), ("OLLIM_CLAUDE_CLI", " ")]));
    assert_eq!(blank.origin, CliOrigin::BotCopy);
}

#[test]
fn a_copy_under_xdg_data_home_is_found_and_one_in_the_data_dir_is_not() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let data_home = tmp.path().join("xdg");
    let own = bot_cli_executable(&data_home.join("ollim-bot/claude-cli"));
    install_at(&own);
    let vars = [
        ("HOME", home.to_str().unwrap()),
        ("XDG_DATA_HOME", data_home.to_str().unwrap()),
    ];
    assert_eq!(claude_cli_from(lookup(&vars)).path, own);

    // XDG_DATA_HOME inside the data dir (the agent's workspace): that copy is never run.
    let data_dir = tmp.path().join("xdg");
    let mut inside = vars.to_vec();
    inside.push(("OLLIM_DATA_DIR", data_dir.to_str().unwrap()));
    assert!(inside_data_dir(&data_home.join("ollim-bot"), &data_dir));
    let cli = claude_cli_from(lookup(&inside));
    assert_eq!(cli.origin, CliOrigin::SearchPath);
}

#[test]
fn an_empty_install_dir_is_not_a_copy() {
    let home = tempfile::tempdir().unwrap();
    let dir = home
        .path()
        .join(".local/share/ollim-bot/claude-cli/node_modules/.bin");
    std::fs::create_dir_all(&dir).unwrap();
    let cli = claude_cli_from(lookup(&[("HOME", home.path().to_str().unwrap())]));
    assert_eq!(cli.origin, CliOrigin::SearchPath);
}
