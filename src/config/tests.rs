//! Reading the configuration from variables.

use std::collections::HashMap;

use super::*;

fn lookup(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let map: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    move |name| map.get(name).cloned()
}

#[test]
fn reads_a_full_configuration() {
    let config = Config::from_lookup(lookup(&[
        ("OLLIM_USER_NAME", "Julia"),
        ("OLLIM_BOT_NAME", "Ollim"),
        ("OLLIM_TIMEZONE", "Asia/Tokyo"),
        ("OLLIM_DATA_DIR", "~/bot-data"),
        ("HOME", "/home/julia"),
        ("OLLIM_CLAUDE_CLI", "/opt/claude"),
        ("OLLIM_DOCS_MCP_URL", ""),
    ]))
    .unwrap();
    assert_eq!(config.timezone, Tz::Asia__Tokyo);
    assert_eq!(config.data_dir, PathBuf::from("/home/julia/bot-data"));
    assert_eq!(config.claude_cli, PathBuf::from("/opt/claude"));
    assert_eq!(config.docs_mcp_url, None);
}

#[test]
fn defaults() {
    let config = Config::from_lookup(lookup(&[
        ("OLLIM_USER_NAME", "Julia"),
        ("OLLIM_BOT_NAME", "Ollim"),
        ("HOME", "/home/julia"),
    ]))
    .unwrap();
    assert_eq!(config.data_dir, PathBuf::from("/home/julia/.ollim-bot"));
    assert_eq!(config.claude_cli, PathBuf::from("claude"));
    assert_eq!(config.docs_mcp_url.as_deref(), Some(DEFAULT_DOCS_MCP_URL));
    assert_eq!(config.fs_events, FsEvents::On);
}

#[test]
fn file_events_can_be_turned_off_and_nothing_else() {
    let with = |value: &str| {
        Config::from_lookup(lookup(&[
            ("OLLIM_USER_NAME", "Julia"),
            ("OLLIM_BOT_NAME", "Ollim"),
            ("HOME", "/home/julia"),
            ("OLLIM_FS_EVENTS", value),
        ]))
    };
    assert_eq!(with("OFF").unwrap().fs_events, FsEvents::Off);
    assert_eq!(with("on").unwrap().fs_events, FsEvents::On);
    let text = with("sometimes").unwrap_err().to_string();
    assert!(text.contains("OLLIM_FS_EVENTS=off"), "{text}");
}

#[test]
fn debug_never_shows_cli_env_values() {
    let mut config = Config::from_lookup(lookup(&[
        ("OLLIM_USER_NAME", "Julia"),
        ("OLLIM_BOT_NAME", "Ollim"),
        ("HOME", "/home/julia"),
    ]))
    .unwrap();
    config
        .cli_env
        .insert("ANTHROPIC_API_KEY".into(), "sk-ant-very-secret".into());
    let shown = format!("{config:?}");
    assert!(shown.contains("ANTHROPIC_API_KEY"), "{shown}");
    assert!(!shown.contains("sk-ant-very-secret"), "{shown}");
    assert!(shown.contains("Julia"), "{shown}");
}

#[test]
fn errors_name_the_variable_and_an_example() {
    let missing = Config::from_lookup(lookup(&[("OLLIM_BOT_NAME", "Ollim")])).unwrap_err();
    let text = missing.to_string();
    assert!(text.starts_with("OLLIM_USER_NAME is not set"), "{text}");
    assert!(text.contains("OLLIM_USER_NAME=Julia"), "{text}");
    let bad_tz = Config::from_lookup(lookup(&[
        ("OLLIM_USER_NAME", "J"),
        ("OLLIM_BOT_NAME", "O"),
        ("OLLIM_TIMEZONE", "Mars/Olympus"),
    ]))
    .unwrap_err();
    assert!(
        bad_tz
            .to_string()
            .contains("OLLIM_TIMEZONE=America/Los_Angeles")
    );
}

/// CHN-1: `OLLIM_HOME_CHANNEL` takes an id (or a pasted `<#id>`); anything else is refused
/// with where to find the id.
#[test]
fn the_home_channel_from_the_env_file_is_an_id() {
    let with = |value: &str| {
        Config::from_lookup(lookup(&[
            ("OLLIM_USER_NAME", "Julia"),
            ("OLLIM_BOT_NAME", "Ollim"),
            ("HOME", "/home/julia"),
            ("OLLIM_HOME_CHANNEL", value),
        ]))
    };
    assert_eq!(with("").unwrap().home_channel, None);
    assert_eq!(
        with("1234567890123456789").unwrap().home_channel,
        Some(1_234_567_890_123_456_789)
    );
    assert_eq!(with("<#42>").unwrap().home_channel, Some(42));
    let text = with("#general").unwrap_err().to_string();
    assert!(text.contains("Copy Channel ID"), "{text}");
}
