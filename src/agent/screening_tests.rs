use super::*;

fn services(dir: &std::path::Path) -> Arc<Services> {
    let config = crate::config::Config::from_lookup(|key| match key {
        "OLLIM_USER_NAME" => Some("Julia".to_owned()),
        "OLLIM_BOT_NAME" => Some("Ollim".to_owned()),
        "OLLIM_DATA_DIR" => Some(dir.display().to_string()),
        "OLLIM_TIMEZONE" => Some("UTC".to_owned()),
        "OLLIM_DOCS_MCP_URL" => Some("http://127.0.0.1:9/mcp".to_owned()),
        _ => None,
    })
    .unwrap();
    crate::agent::open_services(config).unwrap().services
}

#[tokio::test]
async fn the_screening_session_gets_nothing_to_act_with() {
    let dir = tempfile::tempdir().unwrap();
    let options = super::super::answer_only::answer_only_options(
        &services(dir.path()),
        SCREENING_SYSTEM_PROMPT,
        super::SCREENING_MODEL,
    );
    let args = options.to_args(false);
    let tools_at = args.iter().position(|a| a == "--tools").unwrap();
    assert_eq!(args[tools_at + 1], "", "no built-in tools: {args:?}");
    assert!(!args.iter().any(|a| a == "--mcp-config"), "{args:?}");
    assert!(!args.iter().any(|a| a == "--permission-prompt-tool"));
    assert!(args.contains(&"--setting-sources=".to_owned()));
    assert!(args.contains(&"--model=haiku".to_owned()));
    assert!(args.windows(2).any(|w| w == ["--thinking", "disabled"]));
    assert!(args.windows(2).any(|w| w == ["--max-turns", "1"]));
    // No transcript: recall never reads the untrusted text asked about as anyone's words.
    assert!(args.contains(&"--no-session-persistence".to_owned()));
    assert!(
        args.windows(2)
            .any(|w| w == ["--permission-mode", "dontAsk"])
    );
    let prompt_at = args.iter().position(|a| a == "--system-prompt").unwrap();
    assert_eq!(args[prompt_at + 1], SCREENING_SYSTEM_PROMPT);
    assert_eq!(options.cwd, dir.path());
}
