//! Waiting for the network at start (issue 24 §7): a bot started at boot, or on a laptop
//! that hasn't joined a network yet, can't reach Discord for a while. Instead of failing with
//! whatever the first request reports (a login error, `Error while sending HTTP request`), it
//! says what is wrong — the name doesn't resolve, the host refuses, no route — and tries again,
//! waiting longer each time, until Discord answers or the process is told to stop.

use std::time::Duration;

use tokio::net::TcpStream;

/// Where Discord's API lives unless `OLLIM_DISCORD_API_URL` says otherwise.
const DISCORD_API: (&str, u16) = ("discord.com", 443);
/// How long one connection attempt may take.
const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(10);
/// The longest wait between attempts.
const MAX_DELAY: Duration = Duration::from_secs(60);

/// Why Discord can't be reached.
#[derive(Debug, thiserror::Error)]
pub enum Unreachable {
    /// The name doesn't resolve: no DNS yet, or no network at all.
    #[error("can't look up {host} (no DNS or no network yet): {source}")]
    Lookup {
        /// The host name.
        host: String,
        /// The resolver's error.
        source: std::io::Error,
    },
    /// The connection failed.
    #[error("can't connect to {host}:{port}: {source}")]
    Connect {
        /// The host.
        host: String,
        /// The port.
        port: u16,
        /// The error.
        source: std::io::Error,
    },
    /// Nothing answered in time.
    #[error("{host}:{port} didn't answer within {} s", ATTEMPT_TIMEOUT.as_secs())]
    Silent {
        /// The host.
        host: String,
        /// The port.
        port: u16,
    },
}

/// The host and port of `api_url` (`http://127.0.0.1:9000/api`), or Discord's own.
pub fn discord_endpoint(api_url: Option<&str>) -> (String, u16) {
    let parsed = api_url.and_then(|url| reqwest::Url::parse(url).ok());
    match parsed.as_ref().and_then(|url| {
        let host = url.host_str()?.to_owned();
        Some((host, url.port_or_known_default()?))
    }) {
        Some(endpoint) => endpoint,
        None => (DISCORD_API.0.to_owned(), DISCORD_API.1),
    }
}

/// One attempt to open a connection to `host:port`.
pub async fn probe(host: &str, port: u16) -> Result<(), Unreachable> {
    let addresses = tokio::net::lookup_host((host, port))
        .await
        .map_err(|source| Unreachable::Lookup {
            host: host.to_owned(),
            source,
        })?;
    let mut last = None;
    for address in addresses {
        match tokio::time::timeout(ATTEMPT_TIMEOUT, TcpStream::connect(address)).await {
            Ok(Ok(_)) => return Ok(()),
            Ok(Err(source)) => {
                last = Some(Unreachable::Connect {
                    host: host.to_owned(),
                    port,
                    source,
                });
            }
            Err(_) => {
                last = Some(Unreachable::Silent {
                    host: host.to_owned(),
                    port,
                });
            }
        }
    }
    Err(last.unwrap_or_else(|| Unreachable::Lookup {
        host: host.to_owned(),
        source: std::io::Error::other("no addresses"),
    }))
}

/// Waits until `host:port` accepts a connection, saying on stderr (and in the log) what is
/// wrong at each failed attempt. Returns at once when it is reachable.
pub async fn wait_for(host: &str, port: u16) {
    let mut delay = Duration::from_secs(2);
    loop {
        match probe(host, port).await {
            Ok(()) => return,
            Err(error) => {
                tracing::debug!(%error, "Discord isn't reachable yet");
                eprintln!(
                    "waiting for the network: {error}; trying again in {} s",
                    delay.as_secs()
                );
            }
        }
        tokio::time::sleep(delay).await;
        delay = (delay * 2).min(MAX_DELAY);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_endpoint_comes_from_the_api_url_or_is_discords() {
        assert_eq!(
            discord_endpoint(Some("http://127.0.0.1:9000/api")),
            ("127.0.0.1".to_owned(), 9000)
        );
        assert_eq!(
            discord_endpoint(Some("https://proxy.example/api")),
            ("proxy.example".to_owned(), 443)
        );
        assert_eq!(discord_endpoint(None), ("discord.com".to_owned(), 443));
        assert_eq!(
            discord_endpoint(Some("nonsense")),
            ("discord.com".to_owned(), 443)
        );
    }

    #[tokio::test]
    async fn a_refused_port_and_a_bad_name_say_so() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        assert!(probe("127.0.0.1", port).await.is_ok());
        drop(listener);
        let refused = probe("127.0.0.1", port).await.unwrap_err().to_string();
        assert!(
            refused.starts_with("can't connect to 127.0.0.1:"),
            "{refused}"
        );
        let lookup = probe("no-such-host.invalid", 443)
            .await
            .unwrap_err()
            .to_string();
        assert!(
            lookup.starts_with("can't look up no-such-host.invalid"),
            "{lookup}"
        );
    }
}
