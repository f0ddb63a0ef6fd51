//! Webhooks (WHK-1…13, E.3): outside services start background runs over authenticated HTTP,
//! and nothing they send can widen what the agent may do.
//!
//! Layer: beside `scheduling` (imports `domain`, `config`, `state` only). The runtime (screening
//! run, dispatch, the owner's say on held requests) implements [`HookSink`].
//!
//! - [`spec`], [`store`]: spec files and the folder, cached by modification time and size.
//! - [`schema`], [`template`], [`payload`]: validation, `{field}` templates, the fenced body.
//! - [`auth`]: bearer check, HMAC signatures and the replay cache.
//! - [`request`]: the checks in order, each refusal with its status and body.
//! - [`screening`]: which values to screen, the screener's prompt, reading its verdict.
//! - [`server`]: the axum edge and the [`HookSink`] hand-over.

pub mod auth;
pub mod payload;
pub mod request;
pub mod schema;
pub mod screening;
pub mod server;
pub mod spec;
pub mod store;
pub mod template;

use std::{future::Future, net::SocketAddr, sync::Arc};

pub use screening::{SCREENING_TIMEOUT, Verdict, parse_verdict, screening_prompt};
pub use server::{AcceptedHook, DEFAULT_MAX_IN_FLIGHT, HookSink, WebhookServer, serve};
pub use spec::{Signature, WebhookSpec};
pub use store::{SpecError, SpecStore};

use crate::config::WebhookSetting;

/// A started webhook server.
#[derive(Debug)]
pub struct RunningServer {
    /// The address it listens on (the real port when 0 was asked for).
    pub addr: SocketAddr,
    /// The serving task; it ends after the shutdown future resolved and requests in flight
    /// were answered.
    pub task: tokio::task::JoinHandle<std::io::Result<()>>,
}

/// Starts the server the way WHK-1 says: nothing when `WEBHOOK_PORT` is unset; one error line
/// and nothing when the secret is missing (the bot runs on); else bound to `<bind>:<port>`
/// (`WEBHOOK_BIND`, loopback by default) with `Webhook server started on <bind>:<port>`
/// logged. A bind failure is the caller's to report.
pub async fn start(
    (setting, bind): (&WebhookSetting, std::net::IpAddr),
    store: Arc<SpecStore>,
    sink: Arc<dyn HookSink>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<Option<RunningServer>> {
    let (port, secret) = match setting {
        WebhookSetting::Off => return Ok(None),
        WebhookSetting::MissingSecret { port } => {
            tracing::error!(
                "WEBHOOK_PORT={port} is set but WEBHOOK_SECRET is missing: the webhook server \
                 stays off"
            );
            return Ok(None);
        }
        WebhookSetting::On { port, secret } => (*port, secret.clone()),
    };
    let listener = tokio::net::TcpListener::bind((bind, port)).await?;
    let addr = listener.local_addr()?;
    let server = WebhookServer::new(secret, store, sink, DEFAULT_MAX_IN_FLIGHT);
    tracing::info!("Webhook server started on {addr}");
    let task = tokio::spawn(serve(listener, server, shutdown));
    Ok(Some(RunningServer { addr, task }))
}
