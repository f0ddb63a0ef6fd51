//! One container's proxy: an HTTP proxy on a Unix socket of its own that asks the container's
//! [`Gate`] about each connection. HTTPS goes through `CONNECT host:port` tunnels (the proxy
//! never sees inside them); plain HTTP requests in absolute form are forwarded. A refusal is
//! a `403` whose body says why, which the CLI and the agent's programs report.

use std::{convert::Infallible, path::PathBuf, sync::Arc, time::Duration};

use bytes::Bytes;
use http_body_util::{BodyExt, Full, combinators::BoxBody};
use hyper::{
    Method, Request, Response, StatusCode, Uri,
    body::Incoming,
    header::{CONTENT_TYPE, HeaderValue},
    service::service_fn,
};
use hyper_util::rt::TokioIo;
use tokio::net::{TcpStream, UnixListener, UnixStream};
use tokio_util::{
    sync::{CancellationToken, DropGuard},
    task::TaskTracker,
};
use tracing::Instrument;

use super::Gate;
use crate::config::UpstreamProxy;

/// How a container's proxy reaches hosts: directly, or through the owner's proxy.
type Upstream = Option<Arc<UpstreamProxy>>;

type ProxyBody = BoxBody<Bytes, hyper::Error>;

/// Why a proxy could not start.
#[derive(Debug, thiserror::Error)]
pub enum ProxyError {
    /// Not inside the bot's runtime.
    #[error("the egress proxy needs the bot's async runtime")]
    NoRuntime,
    /// Its folder or socket could not be made.
    #[error("could not open the egress proxy's socket: {0}")]
    Socket(#[from] std::io::Error),
}

/// A running proxy; it stops (and ends every connection through it) when dropped, which is
/// when the CLI it serves is gone.
#[derive(Debug)]
pub struct Proxy {
    dir: tempfile::TempDir,
    _stop: DropGuard,
}

impl Proxy {
    /// Starts a proxy for one container that lets through what `gate` allows, through
    /// `upstream` where it applies.
    pub fn start(gate: Arc<Gate>, upstream: Upstream) -> Result<Self, ProxyError> {
        let runtime = tokio::runtime::Handle::try_current().map_err(|_| ProxyError::NoRuntime)?;
        // A short path of its own (a socket path has ~100 bytes at most), owner-only.
        let dir = tempfile::Builder::new().prefix("ollim-egress-").tempdir()?;
        let listener = {
            let _entered = runtime.enter();
            UnixListener::bind(dir.path().join("proxy.sock"))?
        };
        let stop = CancellationToken::new();
        let span = tracing::info_span!("egress_proxy", holder = ?gate.holder());
        runtime.spawn(serve(listener, (gate, upstream), stop.clone()).instrument(span));
        Ok(Self {
            dir,
            _stop: stop.drop_guard(),
        })
    }

    /// The socket to mount into the container.
    pub fn socket(&self) -> PathBuf {
        self.dir.path().join("proxy.sock")
    }
}

async fn serve(listener: UnixListener, route: (Arc<Gate>, Upstream), stop: CancellationToken) {
    let tasks = TaskTracker::new();
    loop {
        let accepted = tokio::select! {
            () = stop.cancelled() => break,
            accepted = listener.accept() => accepted,
        };
        match accepted {
            Ok((stream, _)) => {
                let (route, stop, owned) = (route.clone(), stop.clone(), tasks.clone());
                tasks.spawn(
                    async move {
                        tokio::select! {
                            () = stop.cancelled() => {}
                            () = connection(stream, route, owned, stop.clone()) => {}
                        }
                    }
                    .in_current_span(),
                );
            }
            Err(error) => {
                tracing::warn!(%error, "the egress proxy could not accept a connection");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
    tasks.close();
    tasks.wait().await;
}

async fn connection(
    stream: UnixStream,
    route: (Arc<Gate>, Upstream),
    tasks: TaskTracker,
    stop: CancellationToken,
) {
    let service =
        service_fn(move |request| handle(request, route.clone(), tasks.clone(), stop.clone()));
    let served = hyper::server::conn::http1::Builder::new()
        .preserve_header_case(true)
        .title_case_headers(true)
        .serve_connection(TokioIo::new(stream), service)
        .with_upgrades()
        .await;
    if let Err(error) = served {
        tracing::debug!(%error, "an egress proxy connection ended with an error");
    }
}

async fn handle(
    request: Request<Incoming>,
    (gate, upstream): (Arc<Gate>, Upstream),
    tasks: TaskTracker,
    stop: CancellationToken,
) -> Result<Response<ProxyBody>, Infallible> {
    let Some((host, port)) = target(&request) else {
        return Ok(text(
            StatusCode::BAD_REQUEST,
            "ollim-bot's proxy takes CONNECT host:port or an absolute http:// URL".to_owned(),
        ));
    };
    if let Err(reason) = gate.verdict(&host, port) {
        tracing::info!(%host, port, "egress refused");
        return Ok(text(StatusCode::FORBIDDEN, format!("ollim-bot: {reason}")));
    }
    let via = upstream.filter(|proxy| proxy.applies_to(&host));
    let reached = match &via {
        None => TcpStream::connect((host.as_str(), port)).await,
        Some(proxy) => TcpStream::connect(proxy.authority.as_str()).await,
    };
    let mut upstream = match reached {
        Ok(upstream) => {
            // Each small write (a head, a streamed event) at once, not after a delayed ACK.
            let _ = upstream.set_nodelay(true);
            upstream
        }
        Err(error) => {
            return Ok(text(
                StatusCode::BAD_GATEWAY,
                format!("ollim-bot's proxy could not reach {host}:{port}: {error}"),
            ));
        }
    };
    if request.method() == Method::CONNECT
        && let Some(proxy) = &via
        && let Err(error) = chain::connect(&mut upstream, proxy, &host, port).await
    {
        return Ok(text(
            StatusCode::BAD_GATEWAY,
            format!("ollim-bot's proxy could not reach {host}:{port}: {error}"),
        ));
    }
    tracing::debug!(%host, port, method = %request.method(), "egress allowed");
    if request.method() == Method::CONNECT {
        tasks.spawn(
            async move {
                tokio::select! {
                    () = stop.cancelled() => {}
                    () = tunnel(request, upstream) => {}
                }
            }
            .in_current_span(),
        );
        return Ok(Response::new(empty()));
    }
    let proxied = via.as_deref();
    Ok(forward(request, upstream, proxied, &tasks, stop).await)
}

/// The host and port a request is for: a CONNECT's authority, or an absolute `http://` URL's.
fn target(request: &Request<Incoming>) -> Option<(String, u16)> {
    let uri = request.uri();
    let bare = |host: &str| {
        host.trim_start_matches('[')
            .trim_end_matches(']')
            .to_owned()
    };
    if request.method() == Method::CONNECT {
        let authority = uri.authority()?;
        return Some((bare(authority.host()), authority.port_u16()?));
    }
    if uri.scheme_str() != Some("http") {
        return None;
    }
    Some((bare(uri.host()?), uri.port_u16().unwrap_or(80)))
}

async fn tunnel(request: Request<Incoming>, mut upstream: TcpStream) {
    match hyper::upgrade::on(request).await {
        Ok(upgraded) => {
            let mut client = TokioIo::new(upgraded);
            let _ = tokio::io::copy_bidirectional(&mut client, &mut upstream).await;
        }
        Err(error) => tracing::debug!(%error, "a CONNECT tunnel was not taken up"),
    }
}

/// Sends one plain HTTP request on to its host, in origin form (or to the owner's proxy, in
/// absolute form), and returns the answer.
async fn forward(
    mut request: Request<Incoming>,
    upstream: TcpStream,
    via: Option<&UpstreamProxy>,
    tasks: &TaskTracker,
    stop: CancellationToken,
) -> Response<ProxyBody> {
    let handshake = hyper::client::conn::http1::Builder::new()
        .preserve_header_case(true)
        .title_case_headers(true)
        .handshake(TokioIo::new(upstream))
        .await;
    let (mut sender, connection) = match handshake {
        Ok(pair) => pair,
        Err(error) => {
            return text(
                StatusCode::BAD_GATEWAY,
                format!("ollim-bot's proxy: {error}"),
            );
        }
    };
    tasks.spawn(
        async move {
            tokio::select! {
                () = stop.cancelled() => {}
                _ = connection => {}
            }
        }
        .in_current_span(),
    );
    for header in ["proxy-connection", "proxy-authorization"] {
        request.headers_mut().remove(header);
    }
    if let Some(proxy) = via {
        if let Some(value) = chain::authorization(proxy) {
            request.headers_mut().insert("proxy-authorization", value);
        }
    } else {
        let origin = request
            .uri()
            .path_and_query()
            .cloned()
            .map_or_else(|| Uri::from_static("/"), Uri::from);
        *request.uri_mut() = origin;
    }
    match sender.send_request(request).await {
        Ok(response) => response.map(BodyExt::boxed),
        Err(error) => text(
            StatusCode::BAD_GATEWAY,
            format!("ollim-bot's proxy: {error}"),
        ),
    }
}

fn empty() -> ProxyBody {
    Full::new(Bytes::new())
        .map_err(|never| match never {})
        .boxed()
}

fn text(status: StatusCode, message: String) -> Response<ProxyBody> {
    let mut response = Response::new(
        Full::new(Bytes::from(message))
            .map_err(|never| match never {})
            .boxed(),
    );
    *response.status_mut() = status;
    response.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

/// Going through the owner's own proxy.
mod chain {
    use base64::Engine;
    use hyper::header::HeaderValue;
    use tokio::{
        io::{AsyncReadExt, AsyncWriteExt},
        net::TcpStream,
    };

    use crate::config::UpstreamProxy;

    /// The `Proxy-Authorization` header for `proxy`, when its URL had credentials.
    pub(super) fn authorization(proxy: &UpstreamProxy) -> Option<HeaderValue> {
        let credentials = proxy.credentials.as_ref()?;
        let encoded = base64::engine::general_purpose::STANDARD.encode(credentials);
        HeaderValue::from_str(&format!("Basic {encoded}")).ok()
    }

    /// Asks `proxy`, connected on `stream`, for a tunnel to `host`:`port`.
    pub(super) async fn connect(
        stream: &mut TcpStream,
        proxy: &UpstreamProxy,
        host: &str,
        port: u16,
    ) -> std::io::Result<()> {
        let authority = if host.contains(':') {
            format!("[{host}]:{port}")
        } else {
            format!("{host}:{port}")
        };
        let mut head = format!("CONNECT {authority} HTTP/1.1\r\nHost: {authority}\r\n");
        if let Some(value) = authorization(proxy).and_then(|v| v.to_str().ok().map(str::to_owned)) {
            head.push_str("Proxy-Authorization: ");
            head.push_str(&value);
            head.push_str("\r\n");
        }
        head.push_str("\r\n");
        stream.write_all(head.as_bytes()).await?;
        // Byte by byte up to the blank line, so nothing of the tunnel is read here.
        let mut answer = Vec::new();
        let mut byte = [0u8; 1];
        while !answer.ends_with(b"\r\n\r\n") {
            if answer.len() > 16 * 1024 || stream.read(&mut byte).await? == 0 {
                return Err(std::io::Error::other("the owner's proxy gave no answer"));
            }
            answer.push(byte[0]);
        }
        let status_line = String::from_utf8_lossy(&answer);
        let status_line = status_line.lines().next().unwrap_or_default();
        if status_line.split_whitespace().nth(1) == Some("200") {
            Ok(())
        } else {
            Err(std::io::Error::other(format!(
                "the owner's proxy ({}) answered {status_line}",
                proxy.authority
            )))
        }
    }
}

#[cfg(test)]
#[path = "proxy_tests.rs"]
mod tests;
