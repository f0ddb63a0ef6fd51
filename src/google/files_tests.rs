use std::os::unix::fs::PermissionsExt;

use chrono::TimeZone;

use super::*;

fn files() -> (tempfile::TempDir, GoogleFiles) {
    let dir = tempfile::tempdir().unwrap();
    let files = GoogleFiles::new(&DataDir::new(dir.path()));
    (dir, files)
}

#[test]
fn desktop_client_file_is_read_with_its_endpoints() {
    let secrets = ClientSecrets::parse(
        br#"{"installed":{"client_id":"cid","client_secret":"cs","auth_uri":"http://a/auth",
            "token_uri":"http://a/token","redirect_uris":["http://localhost"]}}"#,
    )
    .unwrap();
    assert_eq!(secrets.client_id, "cid");
    assert_eq!(secrets.client_secret.as_deref(), Some("cs"));
    assert_eq!(secrets.auth_uri, "http://a/auth");
    assert_eq!(secrets.token_uri, "http://a/token");
    let bare = ClientSecrets::parse(br#"{"installed":{"client_id":"cid"}}"#).unwrap();
    assert_eq!(bare.token_uri, DEFAULT_TOKEN_URI);
}

#[test]
fn web_clients_and_junk_are_refused_with_what_to_do() {
    let web = ClientSecrets::parse(br#"{"web":{"client_id":"x"}}"#).unwrap_err();
    assert!(web.contains("Desktop app"), "{web}");
    assert!(ClientSecrets::parse(b"nope").unwrap_err().contains("JSON"));
    let (_dir, files) = files();
    assert!(matches!(
        files.load_secrets(),
        Err(GoogleError::NoCredentials { .. })
    ));
}

#[test]
fn token_is_saved_owner_only_and_read_back() {
    let (dir, files) = files();
    let token = StoredToken {
        token: Some("at".into()),
        refresh_token: Some("rt".into()),
        token_uri: Some("http://t".into()),
        client_id: Some("cid".into()),
        client_secret: None,
        scopes: vec!["s".into()],
        expiry: Some("2030-01-01T00:00:00Z".into()),
    };
    files.save_token(&token).unwrap();
    let mode = std::fs::metadata(files.token_path())
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
    assert_eq!(files.load_token().unwrap(), Some(token));
    assert!(files.is_connected());
    // Nothing but the token in state/ (no temp file left behind).
    let names: Vec<_> = std::fs::read_dir(dir.path().join("state"))
        .unwrap()
        .collect();
    assert_eq!(names.len(), 1);
}

#[test]
fn python_written_tokens_parse_and_expiry_counts_with_a_margin() {
    let token: StoredToken = serde_json::from_str(
        r#"{"token":"at","refresh_token":"rt","token_uri":"https://oauth2.googleapis.com/token",
            "client_id":"c","client_secret":"s","scopes":["a"],"universe_domain":"googleapis.com",
            "account":"","expiry":"2026-11-25T10:00:00.123456Z"}"#,
    )
    .unwrap();
    let at = Utc.with_ymd_and_hms(2026, 11, 25, 10, 0, 0).unwrap();
    assert_eq!(
        token.expires_at().map(|e| e.timestamp()),
        Some(at.timestamp())
    );
    let before = at - chrono::Duration::minutes(5);
    assert_eq!(token.valid_access_token(before), Some("at"));
    assert_eq!(
        token.valid_access_token(at - chrono::Duration::seconds(30)),
        None
    );
    assert!(token.is_usable(at + chrono::Duration::days(1)));
    let no_refresh = StoredToken {
        refresh_token: None,
        ..token
    };
    assert!(!no_refresh.is_usable(at));
}

#[test]
fn revocation_removes_the_token_and_leaves_a_marker_taken_once() {
    let (_dir, files) = files();
    files
        .save_token(&StoredToken {
            token: Some("at".into()),
            refresh_token: Some("rt".into()),
            token_uri: None,
            client_id: None,
            client_secret: None,
            scopes: vec![],
            expiry: None,
        })
        .unwrap();
    files.mark_revoked().unwrap();
    assert_eq!(files.load_token().unwrap(), None);
    assert!(!files.is_connected());
    assert!(files.take_revoked_marker().unwrap());
    assert!(!files.take_revoked_marker().unwrap());
}

#[test]
fn a_damaged_token_is_set_aside_and_the_owner_told_and_an_unreadable_one_is_an_error() {
    let (_dir, files) = files();
    let state = files.token_path().parent().unwrap().to_owned();
    std::fs::create_dir_all(&state).unwrap();
    std::fs::write(files.token_path(), "garbage").unwrap();
    assert_eq!(files.load_token().unwrap(), None);
    assert!(!files.is_connected());
    assert!(!files.token_path().exists());
    assert_eq!(crate::state::set_aside::pending_notices(&state).len(), 1);

    std::fs::create_dir(files.token_path()).unwrap();
    assert!(matches!(
        files.load_token(),
        Err(GoogleError::BadToken { .. })
    ));
    assert!(files.save_token(&StoredToken::default()).is_err());
    assert!(files.token_path().is_dir(), "never written over");
}
