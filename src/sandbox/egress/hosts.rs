//! Hosts a container may reach: rules read from the owner's settings, from the CLI's own
//! environment (the model API) and from a job's approved `WebFetch(domain:…)` rules.

/// The host the CLI refreshes its Claude login at (its OAuth token endpoint).
const LOGIN_HOST: &str = "platform.claude.com";
/// The model API when `ANTHROPIC_BASE_URL` doesn't name another.
const DEFAULT_API: &str = "https://api.anthropic.com";

/// One host a container may reach.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostRule {
    /// Lower case, without a trailing dot; for `*.example.com`, `example.com`.
    host: String,
    /// `None`: any port.
    port: Option<u16>,
    /// Whether subdomains match too (`*.example.com`).
    subdomains: bool,
}

impl HostRule {
    /// Reads `example.com`, `*.example.com`, `example.com:8443` or a URL
    /// (`https://example.com/path`, whose port is its scheme's unless written). `None` for
    /// anything else.
    pub fn parse(text: &str) -> Option<Self> {
        let text = text.trim();
        if text.contains("://") {
            let url = url::Url::parse(text).ok()?;
            return Some(Self {
                host: normal(url.host_str()?),
                port: url.port_or_known_default(),
                subdomains: false,
            });
        }
        let (subdomains, rest) = match text.strip_prefix("*.") {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let (host, port) = match rest.rsplit_once(':') {
            Some((host, port)) if !host.contains(':') => (host, Some(port.parse().ok()?)),
            _ => (rest, None),
        };
        let host = normal(host.trim_start_matches('[').trim_end_matches(']'));
        let valid = !host.is_empty()
            && host
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '_'));
        valid.then_some(Self {
            host,
            port,
            subdomains,
        })
    }

    /// Whether a connection to `host`:`port` is one this rule names.
    pub fn matches(&self, host: &str, port: u16) -> bool {
        let host = normal(host);
        let named = host == self.host
            || (self.subdomains
                && host
                    .strip_suffix(self.host.as_str())
                    .is_some_and(|head| head.ends_with('.')));
        named && self.port.is_none_or(|own| own == port)
    }
}

impl std::fmt::Display for HostRule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.subdomains {
            f.write_str("*.")?;
        }
        f.write_str(&self.host)?;
        match self.port {
            Some(port) => write!(f, ":{port}"),
            None => Ok(()),
        }
    }
}

fn normal(host: &str) -> String {
    host.trim_end_matches('.')
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_ascii_lowercase()
}

/// The hosts every CLI needs: the model API its environment names (`ANTHROPIC_BASE_URL`),
/// Anthropic's own (where `WebFetch` checks a domain before fetching it), and where it
/// refreshes its login.
pub fn model_api(base_url: Option<&str>) -> Vec<HostRule> {
    base_url
        .and_then(HostRule::parse)
        .into_iter()
        .chain(HostRule::parse(DEFAULT_API))
        .chain(HostRule::parse(&format!("{LOGIN_HOST}:443")))
        .collect()
}

/// What a job's tool rules let it reach besides the model API.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolReach {
    /// A bare `WebFetch` rule: the owner let it fetch anything.
    Anywhere,
    /// The hosts of its `WebFetch(domain:…)` rules (none: only the model API).
    Hosts(Vec<HostRule>),
}

/// What `rules` (the tool rules a run was granted) let it reach.
pub fn reach_of_tools<S: AsRef<str>>(rules: &[S]) -> ToolReach {
    let mut hosts = Vec::new();
    for rule in rules.iter().map(AsRef::as_ref).map(str::trim) {
        if rule == "WebFetch" || rule == "WebFetch(*)" {
            return ToolReach::Anywhere;
        }
        let domain = rule
            .strip_prefix("WebFetch(domain:")
            .and_then(|rest| rest.strip_suffix(')'));
        hosts.extend(domain.and_then(HostRule::parse));
    }
    ToolReach::Hosts(hosts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_read_hosts_wildcards_ports_and_urls() {
        let rule = HostRule::parse("Example.COM.").unwrap();
        assert!(rule.matches("example.com", 443) && rule.matches("EXAMPLE.com.", 80));
        assert!(!rule.matches("api.example.com", 443) && !rule.matches("badexample.com", 443));
        let wild = HostRule::parse("*.example.com").unwrap();
        assert!(wild.matches("api.example.com", 1) && !wild.matches("example.com.evil", 1));
        assert!(!wild.matches("evilexample.com", 443));
        let ported = HostRule::parse("example.com:8443").unwrap();
        assert!(ported.matches("example.com", 8443) && !ported.matches("example.com", 443));
        let url = HostRule::parse("http://127.0.0.1:4567/v1").unwrap();
        assert!(url.matches("127.0.0.1", 4567) && !url.matches("127.0.0.1", 80));
        assert_eq!(url.to_string(), "127.0.0.1:4567");
        let https = HostRule::parse("https://api.anthropic.com").unwrap();
        assert!(https.matches("api.anthropic.com", 443));
        assert!(HostRule::parse("").is_none() && HostRule::parse("a b").is_none());
        assert!(HostRule::parse("x.com:port").is_none());
    }

    #[test]
    fn the_model_api_is_the_base_url_and_anthropics_and_the_login_host() {
        let hosts = model_api(Some("http://127.0.0.1:9"));
        assert!(hosts[0].matches("127.0.0.1", 9));
        assert!(hosts[1].matches("api.anthropic.com", 443));
        assert!(hosts[2].matches("platform.claude.com", 443));
        assert!(model_api(None)[0].matches("api.anthropic.com", 443));
        assert!(!model_api(None)[0].matches("api.anthropic.com", 80));
    }

    #[test]
    fn webfetch_rules_name_what_a_job_reaches() {
        assert_eq!(
            reach_of_tools(&["Read(./**.md)", "WebFetch"]),
            ToolReach::Anywhere
        );
        let ToolReach::Hosts(hosts) =
            reach_of_tools(&["WebFetch(domain:wttr.in)", "Bash(curl *)", "WebSearch"])
        else {
            panic!("hosts expected");
        };
        assert_eq!(hosts.len(), 1);
        assert!(hosts[0].matches("wttr.in", 443));
        assert_eq!(reach_of_tools::<&str>(&[]), ToolReach::Hosts(Vec::new()));
    }
}
