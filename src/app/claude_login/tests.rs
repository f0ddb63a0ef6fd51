use super::{
    output::{last_words, says_failed},
    *,
};

#[test]
fn the_first_https_link_is_taken_whole() {
    let line = "If the browser didn't open, visit: https://claude.com/cai/oauth/authorize?code=true&state=x_y";
    assert_eq!(
        first_https_url(line),
        Some("https://claude.com/cai/oauth/authorize?code=true&state=x_y")
    );
    assert_eq!(
        first_https_url("see https://a.example/x and https://b.example/y"),
        Some("https://a.example/x")
    );
    assert_eq!(first_https_url("Opening browser to sign in…"), None);
    assert_eq!(first_https_url("http://localhost:5555/callback"), None);
}

#[test]
fn the_code_is_the_first_word_of_the_reply() {
    assert_eq!(
        code_from_reply("  abc123#state-9 \n"),
        Some("abc123#state-9".into())
    );
    assert_eq!(code_from_reply("`abc#def`"), Some("abc#def".into()));
    assert_eq!(code_from_reply("abc#def thanks!"), Some("abc#def".into()));
    assert_eq!(code_from_reply("   "), None);
    assert_eq!(code_from_reply("``"), None);
}

#[test]
fn a_refused_token_reads_like_the_start_up_message() {
    assert!(
        LoginError::InvalidToken
            .to_string()
            .starts_with("Invalid Discord token. Check DISCORD_TOKEN in .env")
    );
}

#[test]
fn a_refused_login_says_what_the_cli_said_and_names_a_network_cause() {
    let offline = last_words(
        "Paste code here if prompted > Couldn't log in: getaddrinfo ENOTFOUND platform.claude.com",
    );
    assert_eq!(
        offline.as_deref(),
        Some("Couldn't log in: getaddrinfo ENOTFOUND platform.claude.com")
    );
    let said = LoginError::Refused { said: offline }.to_string();
    assert!(
        said.starts_with("`claude auth login` failed: Couldn't log in"),
        "{said}"
    );
    assert!(said.contains("no network or no DNS"), "{said}");
    assert_eq!(last_words("Paste code here if prompted > "), None);
    let refused = LoginError::Refused {
        said: Some("Invalid code".into()),
    };
    assert_eq!(
        refused.to_string(),
        "`claude auth login` failed: Invalid code"
    );
    assert_eq!(
        LoginError::Refused { said: None }.to_string(),
        "`claude auth login` failed"
    );
}

#[test]
fn the_cli_saying_the_login_failed_is_recognised() {
    assert!(says_failed(
        "Paste code here if prompted > Couldn't log in: getaddrinfo ENOTFOUND platform.claude.com"
    ));
    assert!(says_failed("Login failed: invalid code"));
    assert!(!says_failed("Paste code here if prompted > "));
    assert!(!says_failed("Login successful"));
}
