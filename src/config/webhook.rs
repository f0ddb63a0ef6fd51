//! The webhook server's settings (WHK-1, BOOT-3): `WEBHOOK_PORT` turns it on, and it needs
//! `WEBHOOK_SECRET`; without the secret it stays off and says so once. `WEBHOOK_BIND` is the
//! address it listens on: loopback unless said otherwise (a container publishing the port
//! needs `0.0.0.0`, BOOT-11).

use std::net::{IpAddr, Ipv4Addr};

use super::ConfigError;

/// Where the webhook server listens unless `WEBHOOK_BIND` says otherwise.
pub const DEFAULT_WEBHOOK_BIND: IpAddr = IpAddr::V4(Ipv4Addr::LOCALHOST);

/// Reads `WEBHOOK_BIND` through `get` (trimmed, empty = unset): an IPv4 or IPv6 address.
pub(super) fn read_webhook_bind(
    get: impl Fn(&str) -> Option<String>,
) -> Result<IpAddr, ConfigError> {
    let Some(raw) = get("WEBHOOK_BIND") else {
        return Ok(DEFAULT_WEBHOOK_BIND);
    };
    raw.parse::<IpAddr>().map_err(|_| ConfigError::Invalid {
        name: "WEBHOOK_BIND",
        value: raw.clone(),
        reason: "not an IP address to listen on",
        example: "0.0.0.0",
    })
}

/// The shared secret webhook senders authenticate with. `Debug` never shows it.
#[derive(Clone, PartialEq, Eq)]
pub struct WebhookSecret(String);

impl WebhookSecret {
    /// Wraps a secret.
    pub fn new(secret: impl Into<String>) -> Self {
        Self(secret.into())
    }

    /// The secret itself, for comparing and signing; never for logs.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for WebhookSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WebhookSecret(<redacted>)")
    }
}

/// Whether and where the webhook server runs.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum WebhookSetting {
    /// `WEBHOOK_PORT` is not set: no server.
    #[default]
    Off,
    /// `WEBHOOK_PORT` is set but `WEBHOOK_SECRET` is not: no server, and an error line at
    /// start-up (the bot runs on).
    MissingSecret {
        /// The port that was asked for.
        port: u16,
    },
    /// Serve on `127.0.0.1:<port>` (port 0: a free port the OS picks).
    On {
        /// The port.
        port: u16,
        /// The secret.
        secret: WebhookSecret,
    },
}

impl WebhookSetting {
    /// Reads `WEBHOOK_PORT` and `WEBHOOK_SECRET` through `get` (values trimmed, empty =
    /// unset); a port that is not a number from 0 to 65535 is a configuration error.
    pub fn read(get: impl Fn(&str) -> Option<String>) -> Result<Self, ConfigError> {
        let Some(raw) = get("WEBHOOK_PORT") else {
            return Ok(Self::Off);
        };
        let port = raw.parse::<u16>().map_err(|_| ConfigError::Invalid {
            name: "WEBHOOK_PORT",
            value: raw.clone(),
            reason: "not a TCP port number (0-65535)",
            example: "8420",
        })?;
        Ok(match get("WEBHOOK_SECRET") {
            Some(secret) => Self::On {
                port,
                secret: WebhookSecret::new(secret),
            },
            None => Self::MissingSecret { port },
        })
    }
}

#[cfg(test)]
#[path = "webhook_tests.rs"]
mod tests;
