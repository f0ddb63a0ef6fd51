use std::collections::HashSet;

use super::*;

fn files(paths: &[&str]) -> impl Fn(&Path) -> bool {
    let set: HashSet<PathBuf> = paths.iter().map(PathBuf::from).collect();
    move |path| set.contains(path)
}

fn env(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
    move |name| {
        pairs
            .iter()
            .find(|(key, _)| *key == name)
            .map(|(_, value)| (*value).to_owned())
    }
}

const HOME: &[(&str, &str)] = &[("HOME", "/home/j")];

#[test]
fn the_flag_wins_and_must_exist() {
    let cwd = Path::new("/work");
    let all = files(&["/etc/ollim.env", "/work/.env", "/home/j/.ollim-bot/.env"]);
    assert_eq!(
        locate(Some("/etc/ollim.env".into()), None, cwd, env(HOME), &all).unwrap(),
        EnvFileSource::Flag("/etc/ollim.env".into())
    );
    assert_eq!(
        locate(
            Some("conf/.env".into()),
            None,
            cwd,
            env(HOME),
            files(&["/work/conf/.env"])
        )
        .unwrap(),
        EnvFileSource::Flag("/work/conf/.env".into())
    );
    let missing = locate(Some("/nope.env".into()), None, cwd, env(HOME), &all).unwrap_err();
    assert_eq!(missing.to_string(), "--env-file /nope.env: no such file");
}

#[test]
fn then_the_current_directory_then_the_data_dir() {
    let cwd = Path::new("/work");
    assert_eq!(
        locate(
            None,
            None,
            cwd,
            env(HOME),
            files(&["/work/.env", "/home/j/.ollim-bot/.env"])
        )
        .unwrap(),
        EnvFileSource::CurrentDir("/work/.env".into())
    );
    assert_eq!(
        locate(
            None,
            None,
            cwd,
            env(HOME),
            files(&["/home/j/.ollim-bot/.env"])
        )
        .unwrap(),
        EnvFileSource::DataDir("/home/j/.ollim-bot/.env".into())
    );
}

#[test]
fn the_data_dir_comes_from_the_flag_then_the_environment() {
    let cwd = Path::new("/");
    let both = files(&["/srv/bot/.env", "/home/j/data/.env"]);
    assert_eq!(
        locate(
            None,
            Some(Path::new("/srv/bot")),
            cwd,
            env(&[("OLLIM_DATA_DIR", "~/data"), ("HOME", "/home/j")]),
            &both
        )
        .unwrap(),
        EnvFileSource::DataDir("/srv/bot/.env".into())
    );
    assert_eq!(
        locate(
            None,
            None,
            cwd,
            env(&[("OLLIM_DATA_DIR", "~/data"), ("HOME", "/home/j")]),
            &both
        )
        .unwrap(),
        EnvFileSource::DataDir("/home/j/data/.env".into())
    );
}

#[test]
fn nothing_found_lists_where_it_looked() {
    let found = locate(None, None, Path::new("/work"), env(HOME), files(&[])).unwrap();
    assert_eq!(found.path(), None);
    assert_eq!(
        found.describe(),
        "none found (looked at /work/.env, /home/j/.ollim-bot/.env)"
    );
}
