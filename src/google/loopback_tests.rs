use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::*;
use crate::state::paths::DataDir;

async fn flow() -> (tempfile::TempDir, GoogleFiles, LoopbackFlow) {
    let dir = tempfile::tempdir().unwrap();
    let data_dir = DataDir::new(dir.path());
    std::fs::create_dir_all(data_dir.state_dir()).unwrap();
    std::fs::write(
        data_dir.credentials_file(),
        r#"{"installed":{"client_id":"cid","client_secret":"cs",
            "auth_uri":"http://127.0.0.1:9/auth","token_uri":"http://127.0.0.1:9/token"}}"#,
    )
    .unwrap();
    let files = GoogleFiles::new(&data_dir);
    let flow = LoopbackFlow::start(&files, reqwest::Client::new())
        .await
        .unwrap();
    (dir, files, flow)
}

fn state_of(flow: &LoopbackFlow) -> String {
    let url = oauth2::url::Url::parse(flow.url()).unwrap();
    let state = url.query_pairs().find(|(k, _)| k == "state").unwrap().1;
    oauth2::url::form_urlencoded::byte_serialize(state.as_bytes()).collect()
}

async fn browser_get(redirect_uri: &str, query: &str) -> String {
    let addr = redirect_uri
        .trim_start_matches("http://")
        .trim_end_matches('/');
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let request = format!("GET /?{query} HTTP/1.1\r\nHost: {addr}\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await.unwrap();
    answer
}

#[tokio::test]
async fn a_wrong_state_is_refused_and_the_flow_keeps_waiting_for_the_right_one() {
    let (_dir, files, flow) = flow().await;
    assert!(flow.redirect_uri().starts_with("http://127.0.0.1:"));
    let refused = browser_get(flow.redirect_uri(), "code=x&state=forged").await;
    assert!(refused.starts_with("HTTP/1.1 400"), "{refused}");
    let favicon = browser_get(flow.redirect_uri(), "").await;
    assert!(favicon.starts_with("HTTP/1.1 404"), "{favicon}");
    let paste = flow.paste_handle();
    assert_eq!(
        paste.offer_url("http://127.0.0.1:1/?code=x&state=nope"),
        Offer::Rejected(RedirectRejection::WrongState)
    );
    let state = state_of(&flow);
    let page = browser_get(
        flow.redirect_uri(),
        &format!("error=access_denied&state={state}"),
    )
    .await;
    assert!(page.starts_with("HTTP/1.1 200"), "{page}");
    // First one wins: the paste that comes second changes nothing.
    assert_eq!(
        paste.offer_url(&format!("http://127.0.0.1:1/?code=late&state={state}")),
        Offer::AlreadyDone
    );
    let outcome = flow.finish(&files, Duration::from_secs(5)).await;
    assert!(
        matches!(outcome, Err(GoogleError::Auth(AuthError::Denied(ref r))) if r == "access_denied"),
        "{outcome:?}"
    );
    assert!(!files.token_path().exists());
}

#[tokio::test]
async fn nobody_answering_times_out_and_closes_the_listener() {
    let (_dir, files, flow) = flow().await;
    let redirect = flow.redirect_uri().to_owned();
    let outcome = flow.finish(&files, Duration::from_millis(50)).await;
    assert!(matches!(
        outcome,
        Err(GoogleError::Auth(AuthError::TimedOut))
    ));
    let addr = redirect.trim_start_matches("http://").trim_end_matches('/');
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(tokio::net::TcpStream::connect(addr).await.is_err());
}

#[test]
fn pasted_redirects_are_recognised() {
    assert!(looks_like_redirect(
        " http://127.0.0.1:4242/?state=a&code=b "
    ));
    assert!(looks_like_redirect(
        "http://127.0.0.1:4242/?error=access_denied"
    ));
    assert!(!looks_like_redirect("see http://127.0.0.1:4242/?code=b"));
    assert!(!looks_like_redirect("http://127.0.0.1:4242/"));
}
