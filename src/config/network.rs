//! The network settings of the agent's containers (issue 39 §3): the hosts every session may
//! reach (`OLLIM_NETWORK_ALLOW`), and the proxy the bot's own connections go through when its
//! environment names one (`HTTPS_PROXY`, `HTTP_PROXY`, in either case, with `NO_PROXY`): a
//! container reaches only the bot's own proxy, which then chains to that one, as the CLI did
//! before it had a container.

/// The entries of `OLLIM_NETWORK_ALLOW` (comma or space separated).
pub(super) fn allow_list(raw: &str) -> Vec<String> {
    raw.split([',', ' ', '\n', '\t'])
        .filter(|entry| !entry.is_empty())
        .map(str::to_owned)
        .collect()
}

/// An upstream HTTP proxy.
#[derive(Clone, PartialEq, Eq)]
pub struct UpstreamProxy {
    /// `host:port` of the proxy.
    pub authority: String,
    /// `user:password` from its URL, sent as Basic `Proxy-Authorization`; never in `Debug`.
    pub credentials: Option<String>,
    /// `NO_PROXY` entries, lower case: hosts reached directly.
    pub bypass: Vec<String>,
}

impl std::fmt::Debug for UpstreamProxy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UpstreamProxy")
            .field("authority", &self.authority)
            .field(
                "credentials",
                &self.credentials.as_ref().map(|_| "<redacted>"),
            )
            .field("bypass", &self.bypass)
            .finish()
    }
}

impl UpstreamProxy {
    /// The proxy the variables name through `get`; `None` when none is set or it isn't an
    /// `http://` proxy (the only kind a `CONNECT` chain speaks to).
    pub(super) fn read(get: impl Fn(&str) -> Option<String>) -> Option<Self> {
        let raw = ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"]
            .iter()
            .find_map(|name| get(name))?;
        let url = url::Url::parse(&raw)
            .ok()
            .filter(url::Url::has_host)
            .or_else(|| url::Url::parse(&format!("http://{raw}")).ok())?;
        if url.scheme() != "http" {
            return None;
        }
        let host = url.host_str()?;
        let port = url.port_or_known_default()?;
        // A URL's user and password are percent-encoded only: a `+` is a plus, not a space
        // as in a form, so it is kept as one (`%2B`) before the form decoder reads the rest.
        let decode = |text: &str| {
            let text = text.replace('+', "%2B");
            url::form_urlencoded::parse(format!("x={text}").as_bytes())
                .next()
                .map(|(_, value)| value.into_owned())
                .unwrap_or_default()
        };
        let credentials = (!url.username().is_empty()).then(|| {
            format!(
                "{}:{}",
                decode(url.username()),
                decode(url.password().unwrap_or_default())
            )
        });
        let bypass = ["NO_PROXY", "no_proxy"]
            .iter()
            .find_map(|name| get(name))
            .map(|raw| {
                raw.split(',')
                    .map(|entry| entry.trim().to_ascii_lowercase())
                    .filter(|entry| !entry.is_empty())
                    .collect()
            })
            .unwrap_or_default();
        Some(Self {
            authority: format!("{host}:{port}"),
            credentials,
            bypass,
        })
    }

    /// Whether a connection to `host` goes through it (`NO_PROXY`: `*`, a host, a domain
    /// with or without its leading dot; a port after an entry is ignored).
    pub fn applies_to(&self, host: &str) -> bool {
        let host = host.to_ascii_lowercase();
        !self.bypass.iter().any(|entry| {
            let name = match entry.rsplit_once(':') {
                Some((name, port)) if port.chars().all(|c| c.is_ascii_digit()) => name,
                _ => entry.as_str(),
            };
            let domain = name.trim_start_matches('.');
            name == "*" || host == domain || host.ends_with(&format!(".{domain}"))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(vars: &[(&str, &str)]) -> Option<UpstreamProxy> {
        UpstreamProxy::read(|name| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| (*v).to_owned())
        })
    }

    #[test]
    fn the_upstream_proxy_comes_from_the_proxy_variables() {
        assert_eq!(read(&[]), None);
        let proxy = read(&[
            ("HTTPS_PROXY", "http://me:p%40ss@proxy.corp:3128"),
            ("NO_PROXY", "localhost, .internal.corp,10.0.0.1:80"),
        ])
        .unwrap();
        assert_eq!(proxy.authority, "proxy.corp:3128");
        assert_eq!(proxy.credentials.as_deref(), Some("me:p@ss"));
        assert!(!format!("{proxy:?}").contains("p@ss"));
        assert!(proxy.applies_to("api.anthropic.com"));
        assert!(!proxy.applies_to("LOCALHOST"));
        assert!(!proxy.applies_to("git.internal.corp"));
        assert!(!proxy.applies_to("10.0.0.1"));
        let bare = read(&[("http_proxy", "proxy.corp:8080")]).unwrap();
        assert_eq!(bare.authority, "proxy.corp:8080");
        assert_eq!(bare.credentials, None);
        let plus = read(&[("HTTPS_PROXY", "http://me+you:a+b%2Bc@proxy.corp:3128")]).unwrap();
        assert_eq!(plus.credentials.as_deref(), Some("me+you:a+b+c"));
        assert!(read(&[("HTTPS_PROXY", "socks5://proxy.corp:1080")]).is_none());
        let all = read(&[("HTTPS_PROXY", "http://p:1"), ("no_proxy", "*")]).unwrap();
        assert!(!all.applies_to("anything.example"));
    }
}
