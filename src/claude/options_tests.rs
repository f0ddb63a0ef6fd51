use super::*;

fn arg_after<'a>(args: &'a [String], flag: &str) -> Option<&'a str> {
    let index = args.iter().position(|a| a == flag)?;
    args.get(index + 1).map(String::as_str)
}

#[test]
fn base_command_line_has_stream_json_in_and_out() {
    let args = ClientOptions::default().to_args(false);
    assert_eq!(&args[..3], ["--output-format", "stream-json", "--verbose"]);
    assert_eq!(&args[args.len() - 2..], ["--input-format", "stream-json"]);
    assert_eq!(arg_after(&args, "--system-prompt"), Some(""));
    assert!(!args.contains(&"--tools".to_owned()));
}

#[test]
fn the_offered_builtins_and_the_cacheable_prompt_map_to_their_flags() {
    let none = ClientOptions {
        builtin_tools: Some(Vec::new()),
        exclude_dynamic_sections: true,
        ..ClientOptions::default()
    };
    let args = none.to_args(false);
    assert_eq!(arg_after(&args, "--tools"), Some(""));
    // Ignored by the CLI with a custom prompt, so not passed.
    assert!(!args.contains(&"--exclude-dynamic-system-prompt-sections".to_owned()));
    let some = ClientOptions {
        builtin_tools: Some(vec!["Bash".into(), "Read".into()]),
        exclude_dynamic_sections: true,
        system_prompt: SystemPrompt::Preset { append: None },
        ..ClientOptions::default()
    };
    let args = some.to_args(false);
    assert_eq!(arg_after(&args, "--tools"), Some("Bash,Read"));
    assert!(args.contains(&"--exclude-dynamic-system-prompt-sections".to_owned()));
}

#[test]
fn every_product_option_maps_to_its_flag() {
    let mut options = ClientOptions {
        system_prompt: SystemPrompt::Preset {
            append: Some("be kind".into()),
        },
        model: Some("haiku".into()),
        permission_mode: Some(PermissionMode::Default),
        resume: SessionId::parse("abc").ok(),
        fork_session: true,
        session_id: SessionId::parse("new-id").ok(),
        allowed_tools: vec!["Read".into(), "mcp__discord__discord_embed".into()],
        disallowed_tools: vec!["WebSearch".into()],
        setting_sources: Some(vec!["project".into()]),
        thinking: Some(Thinking::Budget(8000)),
        include_partial_messages: true,
        ..ClientOptions::default()
    };
    options
        .mcp_servers
        .insert("discord".into(), McpServerConfig::Sdk);
    let args = options.to_args(true);
    assert_eq!(arg_after(&args, "--append-system-prompt"), Some("be kind"));
    assert!(!args.contains(&"--system-prompt".to_owned()));
    assert!(args.contains(&"--model=haiku".to_owned()));
    assert_eq!(arg_after(&args, "--permission-prompt-tool"), Some("stdio"));
    assert_eq!(arg_after(&args, "--permission-mode"), Some("default"));
    assert!(args.contains(&"--resume=abc".to_owned()));
    assert!(args.contains(&"--fork-session".to_owned()));
    assert!(args.contains(&"--session-id=new-id".to_owned()));
    assert_eq!(
        arg_after(&args, "--allowedTools"),
        Some("Read,mcp__discord__discord_embed")
    );
    assert_eq!(arg_after(&args, "--disallowedTools"), Some("WebSearch"));
    assert_eq!(
        arg_after(&args, "--mcp-config"),
        Some(r#"{"mcpServers":{"discord":{"name":"discord","type":"sdk"}}}"#)
    );
    assert!(args.contains(&"--include-partial-messages".to_owned()));
    assert!(args.contains(&"--setting-sources=project".to_owned()));
    assert_eq!(arg_after(&args, "--max-thinking-tokens"), Some("8000"));
}

#[test]
fn thinking_modes() {
    assert_eq!(Thinking::parse("OFF"), Some(Thinking::Off));
    assert_eq!(Thinking::parse("adaptive"), Some(Thinking::Adaptive));
    assert_eq!(Thinking::parse("32000"), Some(Thinking::Budget(32000)));
    assert_eq!(Thinking::parse("0"), None);
    assert_eq!(Thinking::parse("lots"), None);
    let off = ClientOptions {
        thinking: Some(Thinking::Off),
        ..ClientOptions::default()
    };
    assert_eq!(
        arg_after(&off.to_args(false), "--thinking"),
        Some("disabled")
    );
}
