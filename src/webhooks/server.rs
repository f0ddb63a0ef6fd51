//! The HTTP edge (WHK-1…9): `POST /hook/{id}` on 127.0.0.1, the checks of [`super::request`]
//! in order, the body read under its cap, a bound on work in flight, and the hand-over to a
//! [`HookSink`] right before `202` goes out. Everything after the 202 (screening, the run) is
//! the sink's.

use std::{future::Future, pin::Pin, sync::Arc};

use axum::{
    Json, Router,
    body::{Body, HttpBody},
    extract::{Path, State, rejection::PathRejection},
    http::{HeaderMap, HeaderValue, StatusCode, header},
    response::{IntoResponse, Response},
    routing::post,
};
use chrono::{DateTime, Utc};
use parking_lot::Mutex;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::{
    auth::{ReplayCache, SIGNATURE_HEADER, TIMESTAMP_HEADER},
    payload::Payload,
    request::{
        MAX_BODY_BYTES, Rejection, accepted_body, authorize, check_declared_length,
        check_signature, lookup, prepare, signature_rejection,
    },
    spec::WebhookSpec,
    store::SpecStore,
};
use crate::config::WebhookSecret;

/// How many accepted requests may be screened or running at once by default.
pub const DEFAULT_MAX_IN_FLIGHT: usize = 4;

/// An accepted request, handed to the runtime right before the 202.
#[derive(Debug)]
pub struct AcceptedHook {
    /// The spec it was accepted for.
    pub spec: Arc<WebhookSpec>,
    /// The validated payload, keys in the order sent.
    pub payload: Payload,
    /// The fenced prompt body (WHK-10) that follows the `[webhook:<id>] <preamble>` line.
    pub body: String,
    /// The values to screen before dispatch, `(key, text)`; empty = nothing to screen.
    pub to_screen: Vec<(String, String)>,
    /// When the request arrived (sample the busy state from here, WHK-11).
    pub received_at: DateTime<Utc>,
    /// One unit of the in-flight bound: hold it until screening and the run are over.
    pub permit: OwnedSemaphorePermit,
}

/// Where accepted requests go: the runtime screens and dispatches them.
pub trait HookSink: Send + Sync {
    /// Takes an accepted request; must not block (spawn the work).
    fn accept(&self, hook: AcceptedHook);
}

/// The webhook server's state: the secret, the specs, the sink, the in-flight bound and the
/// replay cache. Cheap to clone. `Debug` never shows the secret.
#[derive(Clone)]
pub struct WebhookServer {
    inner: Arc<Inner>,
}

struct Inner {
    secret: WebhookSecret,
    store: Arc<SpecStore>,
    sink: Arc<dyn HookSink>,
    in_flight: Arc<Semaphore>,
    replay: Mutex<ReplayCache>,
}

impl std::fmt::Debug for WebhookServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebhookServer")
            .field("secret", &self.inner.secret)
            .field("specs", &self.inner.store.dir())
            .field("free_slots", &self.inner.in_flight.available_permits())
            .finish_non_exhaustive()
    }
}

impl WebhookServer {
    /// A server over `store` handing accepted requests to `sink`, with at most `max_in_flight`
    /// of them screened or running at once (past that: 429).
    pub fn new(
        secret: WebhookSecret,
        store: Arc<SpecStore>,
        sink: Arc<dyn HookSink>,
        max_in_flight: usize,
    ) -> Self {
        Self {
            inner: Arc::new(Inner {
                secret,
                store,
                sink,
                in_flight: Arc::new(Semaphore::new(max_in_flight)),
                replay: Mutex::new(ReplayCache::default()),
            }),
        }
    }

    /// The router: `POST /hook/{id}`; anything else is the framework's 404/405 (WHK-2).
    pub fn router(self) -> Router {
        Router::new()
            .route("/hook/{id}", post(handle))
            .with_state(self)
    }
}

/// Serves `server` on `listener` until `shutdown` resolves; then stops accepting connections
/// and returns once the requests in flight are answered (WHK-1).
pub async fn serve(
    listener: tokio::net::TcpListener,
    server: WebhookServer,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(listener, server.router())
        .with_graceful_shutdown(shutdown)
        .await
}

async fn handle(
    State(server): State<WebhookServer>,
    id: Result<Path<String>, PathRejection>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let received_at = Utc::now();
    match admit(&server, id, &headers, body, received_at).await {
        Ok(()) => (StatusCode::ACCEPTED, Json(accepted_body())).into_response(),
        Err(rejection) => refuse(&rejection),
    }
}

async fn admit(
    server: &WebhookServer,
    id: Result<Path<String>, PathRejection>,
    headers: &HeaderMap,
    body: Body,
    received_at: DateTime<Utc>,
) -> Result<(), Rejection> {
    let inner = &server.inner;
    let authorization = headers
        .get(header::AUTHORIZATION)
        .map(HeaderValue::as_bytes);
    authorize(authorization, &inner.secret)?;
    let Ok(Path(id)) = id else {
        return Err(Rejection::NotFound(String::new()));
    };
    let store = inner.store.clone();
    let lookup_id = id.clone();
    let spec = tokio::task::spawn_blocking(move || lookup(&store, &lookup_id))
        .await
        .map_err(|_| Rejection::NotFound(id.clone()))??;
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    check_declared_length(declared)?;
    let bytes = read_capped(body, MAX_BODY_BYTES).await?;
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let signed = check_signature(
        &spec,
        &inner.secret,
        (text(TIMESTAMP_HEADER), text(SIGNATURE_HEADER)),
        &bytes,
        received_at,
        &inner.replay.lock(),
    )
    .map_err(|failure| {
        tracing::warn!("Webhook {id}: signed request refused: {failure}");
        signature_rejection(failure)
    })?;
    let prepared = prepare(&spec, &bytes)?;
    let permit = inner
        .in_flight
        .clone()
        .try_acquire_owned()
        .map_err(|_| Rejection::Busy)?;
    if let Some(signed) = signed {
        inner
            .replay
            .lock()
            .record(&signed, received_at)
            .map_err(|failure| {
                tracing::warn!("Webhook {id}: signed request refused: {failure}");
                signature_rejection(failure)
            })?;
    }
    tracing::info!("Webhook {id}: request accepted");
    inner.sink.accept(AcceptedHook {
        spec,
        payload: prepared.payload,
        body: prepared.body,
        to_screen: prepared.to_screen,
        received_at,
        permit,
    });
    Ok(())
}

fn refuse(rejection: &Rejection) -> Response {
    let status =
        StatusCode::from_u16(rejection.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    match rejection {
        Rejection::Unauthorized => tracing::warn!("Webhook request refused: unauthorized"),
        // The store logged the broken file once, when it read it.
        Rejection::BrokenSpec(error) => tracing::debug!("Webhook request failed: {error}"),
        other => tracing::info!("Webhook request refused ({}): {}", status, other.body()),
    }
    let json = HeaderValue::from_static("application/json");
    let mut response = (
        status,
        [(header::CONTENT_TYPE, json)],
        rejection.body_text(),
    )
        .into_response();
    if let Some(seconds) = rejection.retry_after() {
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
    }
    response
}

/// Reads the body, refusing it as soon as it passes `cap` bytes: nothing past the cap is kept.
async fn read_capped(mut body: Body, cap: usize) -> Result<Vec<u8>, Rejection> {
    let mut bytes = Vec::new();
    loop {
        let frame = std::future::poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await;
        match frame {
            None => return Ok(bytes),
            Some(Err(_)) => return Err(Rejection::InvalidJson),
            Some(Ok(frame)) => {
                if let Ok(data) = frame.into_data() {
                    if bytes.len() + data.len() > cap {
                        return Err(Rejection::TooLarge);
                    }
                    bytes.extend_from_slice(&data);
                }
            }
        }
    }
}
