use super::*;

#[test]
fn missing_variables_are_listed_together() {
    let looked = "none found (looked at /home/j/.ollim-bot/.env)";
    let text = missing_required(
        |name| (name == "OLLIM_BOT_NAME").then(|| "Ollim".to_owned()),
        looked,
    )
    .unwrap();
    assert!(text.starts_with("Missing required env vars in .env:\n  DISCORD_TOKEN — "));
    assert!(text.contains("\n  OLLIM_USER_NAME — "));
    assert!(!text.contains("OLLIM_BOT_NAME"));
    assert!(
        text.contains(looked) && text.contains("ollim-bot setup"),
        "{text}"
    );
    assert_eq!(missing_required(|_| Some("x".to_owned()), looked), None);
}

#[test]
fn debug_never_shows_the_token() {
    let settings = DiscordSettings {
        token: "MTA-very-secret".into(),
        api_url: None,
    };
    assert!(!format!("{settings:?}").contains("very-secret"));
}
