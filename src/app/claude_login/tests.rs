use super::*;

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
