//! The loopback consent flow (GOO-3, GOO-4, MSG-6): a listener on `127.0.0.1:<random port>`
//! is the redirect URI; the browser's redirect or the same URL pasted by the owner (from
//! another device, for a bot on a headless server) completes it, whichever comes first. Only
//! an answer carrying this consent's `state` counts; anything else is refused and the flow
//! keeps waiting. Nothing here logs a query, a code or a URL.

use std::{sync::Arc, time::Duration};

use parking_lot::Mutex;
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::{TcpListener, TcpStream},
    sync::oneshot,
};

use super::{
    AuthError, GoogleError,
    files::{GoogleFiles, StoredToken},
    oauth::{ConsentRequest, Redirect, RedirectRejection},
};

/// How long a flow waits for the owner (GOO-4).
pub const FLOW_TIMEOUT: Duration = Duration::from_secs(300);

/// The largest request head the listener reads.
const MAX_REQUEST_BYTES: usize = 16 * 1024;

const PAGE_DONE: &str = "<!doctype html><html><body><p>Google is connected. You can close \
                         this window.</p></body></html>";
const PAGE_DENIED: &str = "<!doctype html><html><body><p>Google sign-in was cancelled. You can \
                           close this window.</p></body></html>";
const PAGE_REFUSED: &str = "<!doctype html><html><body><p>This sign-in answer is not for the \
                            sign-in in progress (stale or forged); it was ignored.</p></body></html>";

/// What offering a redirect did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Offer {
    /// It completed the flow (a code or a refusal for this consent).
    Accepted,
    /// The flow was already completed by the other path.
    AlreadyDone,
    /// Not an answer to this consent.
    Rejected(RedirectRejection),
}

/// The part both paths share: the consent's checks and the first-wins slot.
struct Completion {
    consent: ConsentRequest,
    slot: Mutex<Option<oneshot::Sender<Redirect>>>,
}

impl Completion {
    fn offer_query(&self, query: &str) -> Offer {
        match self.consent.check(query) {
            Ok(redirect) => match self.slot.lock().take() {
                Some(sender) => {
                    let _ = sender.send(redirect);
                    Offer::Accepted
                }
                None => Offer::AlreadyDone,
            },
            Err(rejection) => Offer::Rejected(rejection),
        }
    }
}

/// A handle that completes the flow from a pasted redirect URL (MSG-6). Cheap to clone.
#[derive(Clone)]
pub struct PasteHandle {
    completion: Arc<Completion>,
}

impl std::fmt::Debug for PasteHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PasteHandle")
    }
}

impl PasteHandle {
    /// Offers a pasted redirect URL (`http://127.0.0.1:<port>/?code=…&state=…`).
    pub fn offer_url(&self, pasted: &str) -> Offer {
        let pasted = pasted.trim();
        let query = pasted.split_once('?').map_or("", |(_, q)| q);
        let query = query.split('#').next().unwrap_or_default();
        self.completion.offer_query(query)
    }
}

/// Whether a DM looks like a pasted redirect URL (MSG-6): it starts with the loopback origin
/// and carries a code (or an error).
pub fn looks_like_redirect(text: &str) -> bool {
    let text = text.trim();
    text.starts_with("http://127.0.0.1:") && (text.contains("code=") || text.contains("error="))
}

/// The listener task, stopped when the flow is dropped or finished, whatever the path.
struct ServerTask(tokio::task::JoinHandle<()>);

impl Drop for ServerTask {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// A consent flow waiting for its redirect. Dropping it closes the listener.
pub struct LoopbackFlow {
    completion: Arc<Completion>,
    answer: oneshot::Receiver<Redirect>,
    server: ServerTask,
    http: reqwest::Client,
}

impl std::fmt::Debug for LoopbackFlow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoopbackFlow").finish_non_exhaustive()
    }
}

impl LoopbackFlow {
    /// Reads `credentials.json`, binds the listener and builds the consent URL.
    pub async fn start(files: &GoogleFiles, http: reqwest::Client) -> Result<Self, GoogleError> {
        let secrets = files.load_secrets()?;
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|e| AuthError::Listener(e.to_string()))?;
        let port = listener
            .local_addr()
            .map_err(|e| AuthError::Listener(e.to_string()))?
            .port();
        let consent = ConsentRequest::new(&secrets, &format!("http://127.0.0.1:{port}/"))?;
        let (sender, answer) = oneshot::channel();
        let completion = Arc::new(Completion {
            consent,
            slot: Mutex::new(Some(sender)),
        });
        let server = ServerTask(tokio::spawn(serve(listener, completion.clone())));
        Ok(Self {
            completion,
            answer,
            server,
            http,
        })
    }

    /// The URL to open in a browser.
    pub fn url(&self) -> &str {
        &self.completion.consent.url
    }

    /// The loopback redirect URI.
    pub fn redirect_uri(&self) -> &str {
        self.completion.consent.redirect_uri()
    }

    /// A handle for pasted redirect URLs.
    pub fn paste_handle(&self) -> PasteHandle {
        PasteHandle {
            completion: self.completion.clone(),
        }
    }

    /// Waits (at most `timeout`) for the first accepted answer, exchanges the code and saves
    /// `token.json`. The listener is closed on every outcome.
    pub async fn finish(
        self,
        files: &GoogleFiles,
        timeout: Duration,
    ) -> Result<StoredToken, GoogleError> {
        let Self {
            completion,
            answer,
            server,
            http,
        } = self;
        let outcome = tokio::time::timeout(timeout, answer).await;
        // Give the browser its page before the listener goes away.
        tokio::time::sleep(Duration::from_millis(50)).await;
        drop(server);
        let redirect = match outcome {
            Err(_) => return Err(AuthError::TimedOut.into()),
            Ok(Err(_)) => return Err(AuthError::Listener("listener stopped".to_owned()).into()),
            Ok(Ok(redirect)) => redirect,
        };
        let code = match redirect {
            Redirect::Code(code) => code,
            Redirect::Denied(reason) => return Err(AuthError::Denied(reason).into()),
        };
        let token = completion.consent.exchange(&http, code).await?;
        files.save_token(&token)?;
        let _ = files.take_revoked_marker();
        Ok(token)
    }
}

async fn serve(listener: TcpListener, completion: Arc<Completion>) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            // Out of descriptors or the like: don't spin.
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        };
        let completion = completion.clone();
        tokio::spawn(async move {
            let _ = answer(stream, &completion).await;
        });
    }
}

/// Reads one request head and answers it with a small page.
async fn answer(mut stream: TcpStream, completion: &Completion) -> std::io::Result<()> {
    let mut head = Vec::with_capacity(1024);
    let mut buf = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < MAX_REQUEST_BYTES {
        let read = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut buf))
            .await
            .map_err(|_| std::io::Error::from(std::io::ErrorKind::TimedOut))??;
        if read == 0 {
            break;
        }
        head.extend_from_slice(&buf[..read]);
    }
    let head = String::from_utf8_lossy(&head);
    let target = head
        .lines()
        .next()
        .and_then(|line| line.strip_prefix("GET "))
        .and_then(|rest| rest.split(' ').next())
        .unwrap_or_default();
    let query = target.split_once('?').map_or("", |(_, q)| q);
    let (status, page) = match completion.offer_query(query) {
        Offer::Accepted | Offer::AlreadyDone => match completion.consent.check(query) {
            Ok(Redirect::Denied(_)) => ("200 OK", PAGE_DENIED),
            _ => ("200 OK", PAGE_DONE),
        },
        Offer::Rejected(RedirectRejection::WrongState) => ("400 Bad Request", PAGE_REFUSED),
        Offer::Rejected(RedirectRejection::NotARedirect) => ("404 Not Found", ""),
    };
    let response = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{page}",
        page.len()
    );
    stream.write_all(response.as_bytes()).await?;
    stream.shutdown().await
}

#[cfg(test)]
#[path = "loopback_tests.rs"]
mod tests;
