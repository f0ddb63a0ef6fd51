use super::*;

fn secrets() -> ClientSecrets {
    ClientSecrets {
        client_id: "cid".into(),
        client_secret: Some("cs".into()),
        auth_uri: "http://127.0.0.1:9/auth".into(),
        token_uri: "http://127.0.0.1:9/token".into(),
    }
}

fn query_of(url: &str) -> Vec<(String, String)> {
    let parsed = oauth2::url::Url::parse(url).unwrap();
    parsed.query_pairs().into_owned().collect()
}

#[test]
fn consent_url_carries_scopes_pkce_state_and_offline_access() {
    let consent = ConsentRequest::new(&secrets(), "http://127.0.0.1:5555/").unwrap();
    assert!(consent.url.starts_with("http://127.0.0.1:9/auth?"));
    let query = query_of(&consent.url);
    let get = |k: &str| query.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
    assert_eq!(get("client_id").as_deref(), Some("cid"));
    assert_eq!(
        get("redirect_uri").as_deref(),
        Some("http://127.0.0.1:5555/")
    );
    assert_eq!(get("code_challenge_method").as_deref(), Some("S256"));
    assert!(get("code_challenge").is_some_and(|c| c.len() >= 43));
    assert_eq!(get("access_type").as_deref(), Some("offline"));
    assert_eq!(get("scope").as_deref(), Some(SCOPES.join(" ").as_str()));
    let state = get("state").unwrap();
    assert!(state.len() >= 16);
    let other = ConsentRequest::new(&secrets(), "http://127.0.0.1:5555/").unwrap();
    assert_ne!(
        get("state"),
        query_of(&other.url)
            .into_iter()
            .find(|(n, _)| n == "state")
            .map(|(_, v)| v)
    );
}

#[test]
fn redirects_are_checked_against_the_state() {
    let consent = ConsentRequest::new(&secrets(), "http://127.0.0.1:5555/").unwrap();
    let state = query_of(&consent.url)
        .into_iter()
        .find(|(n, _)| n == "state")
        .unwrap()
        .1;
    let encoded: String = oauth2::url::form_urlencoded::byte_serialize(state.as_bytes()).collect();
    assert_eq!(
        consent.check(&format!("code=abc&state={encoded}&scope=x")),
        Ok(Redirect::Code("abc".into()))
    );
    assert_eq!(
        consent.check(&format!("?error=access_denied&state={encoded}")),
        Ok(Redirect::Denied("access_denied".into()))
    );
    assert_eq!(
        consent.check("code=abc&state=forged"),
        Err(RedirectRejection::WrongState)
    );
    assert_eq!(
        consent.check("code=abc"),
        Err(RedirectRejection::WrongState)
    );
    assert_eq!(consent.check(""), Err(RedirectRejection::NotARedirect));
    // The debug form shows neither the state nor the verifier.
    assert!(!format!("{consent:?}").contains(&state));
}

#[test]
fn refresh_uses_the_tokens_own_client_then_the_credentials() {
    let token = StoredToken {
        token: None,
        refresh_token: Some("rt".into()),
        token_uri: Some("http://own/token".into()),
        client_id: None,
        client_secret: None,
        scopes: vec![],
        expiry: None,
    };
    let client = refresh_client(&token, Some(&secrets()));
    assert_eq!(client.token_uri, "http://own/token");
    assert_eq!(client.client_id, "cid");
    assert_eq!(client.client_secret.as_deref(), Some("cs"));
}
