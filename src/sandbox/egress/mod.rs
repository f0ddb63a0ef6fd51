//! The network of a container (issue 39 §3, BOX-9): every container has a network namespace
//! of its own with only a loopback, so nothing inside reaches any host directly. Its one way
//! out is a proxy the bot runs for that container alone, on a Unix socket mounted into it;
//! inside, the launcher bridges `127.0.0.1:<port>` to that socket and points the CLI (and so
//! every shell, tool and subagent it runs) at it with `HTTPS_PROXY` / `HTTP_PROXY`.
//!
//! The proxy asks the container's [`Gate`] about every connection:
//! - a **conversation** with the owner (the main session, its forks, `chat`) reaches any host
//!   until it reads mail; from then on only the model API, the owner's
//!   `OLLIM_NETWORK_ALLOW` hosts and the hosts the owner approves one by one (a held
//!   `WebFetch`);
//! - a **background run** (routines, reminders, webhook runs) and the **answer-only** sessions
//!   (webhook screening, nudge words) reach only the model API, the owner's allow-list and
//!   the hosts their job's approved `WebFetch(domain:…)` rules name (a bare approved
//!   `WebFetch`: any host).
//!
//! Only HTTP and HTTPS (CONNECT) leave a container; other protocols have no route out.

#[allow(unsafe_code)]
mod bridge;
mod hosts;
mod proxy;

pub use bridge::{PROXY_SOCKET, start_bridge};
pub use hosts::{HostRule, ToolReach, model_api, reach_of_tools};
pub use proxy::{Proxy, ProxyError};

use std::sync::Arc;

use parking_lot::Mutex;

/// Who a container is for, which says what it reaches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Holder {
    /// A conversation with the owner.
    Conversation,
    /// A background run or an answer-only session.
    Background,
}

/// What one container may reach; shared by its proxy and the session's hooks, which narrow it
/// when the conversation reads mail and widen it when the owner approves a host.
#[derive(Debug)]
pub struct Gate {
    holder: Holder,
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    /// Any host.
    open: bool,
    /// The model API and the owner's allow-list, added when the container starts.
    always: Vec<HostRule>,
    /// Hosts the owner approved for this container.
    granted: Vec<HostRule>,
}

impl Gate {
    /// A conversation's gate: open unless the conversation has read mail.
    pub fn conversation(read_mail: bool) -> Arc<Self> {
        Arc::new(Self {
            holder: Holder::Conversation,
            inner: Mutex::new(Inner {
                open: !read_mail,
                ..Inner::default()
            }),
        })
    }

    /// A background run's gate: what its approved tools reach.
    pub fn background(reach: ToolReach) -> Arc<Self> {
        let (open, granted) = match reach {
            ToolReach::Anywhere => (true, Vec::new()),
            ToolReach::Hosts(hosts) => (false, hosts),
        };
        Arc::new(Self {
            holder: Holder::Background,
            inner: Mutex::new(Inner {
                open,
                always: Vec::new(),
                granted,
            }),
        })
    }

    /// Who it is for.
    pub fn holder(&self) -> Holder {
        self.holder
    }

    /// Adds hosts every container reaches (the model API, the owner's allow-list).
    pub fn add_always(&self, rules: impl IntoIterator<Item = HostRule>) {
        self.inner.lock().always.extend(rules);
    }

    /// The session read mail: a conversation reaches only listed hosts from now on; a
    /// background run keeps what its job was approved for.
    pub fn read_untrusted(&self) {
        if self.holder == Holder::Conversation {
            self.inner.lock().open = false;
        }
    }

    /// The owner lifted the hold for the rest of the conversation.
    pub fn reopen(&self) {
        self.inner.lock().open = true;
    }

    /// The owner approved `rule` for this container.
    pub fn grant(&self, rule: HostRule) {
        self.inner.lock().granted.push(rule);
    }

    /// Whether any host is reachable now.
    pub fn is_open(&self) -> bool {
        self.inner.lock().open
    }

    /// Whether a connection to `host`:`port` may go out, or why not (for the agent, which
    /// reads it in the failed request).
    pub fn verdict(&self, host: &str, port: u16) -> Result<(), String> {
        let inner = self.inner.lock();
        let listed = inner
            .always
            .iter()
            .chain(&inner.granted)
            .any(|rule| rule.matches(host, port));
        if inner.open || listed {
            return Ok(());
        }
        Err(match self.holder {
            Holder::Conversation => format!(
                "{host}:{port} is out of reach: this conversation has read mail (untrusted \
                 text), so it reaches only the model API, the owner's OLLIM_NETWORK_ALLOW \
                 hosts and hosts the owner approves (ask them; a WebFetch of the URL asks)"
            ),
            Holder::Background => format!(
                "{host}:{port} is out of reach: a background run reaches only the model API, \
                 the owner's OLLIM_NETWORK_ALLOW hosts and the hosts its job's approved \
                 `WebFetch(domain:…)` rules name (add `WebFetch(domain:{host})` to the job's \
                 allowed-tools; the owner is asked)"
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(text: &str) -> HostRule {
        HostRule::parse(text).unwrap()
    }

    #[test]
    fn a_conversation_is_open_until_it_reads_mail_then_only_listed_hosts_pass() {
        let gate = Gate::conversation(false);
        gate.add_always(model_api(Some("http://127.0.0.1:9")));
        assert!(gate.verdict("example.com", 443).is_ok());
        gate.read_untrusted();
        let refused = gate.verdict("example.com", 443).unwrap_err();
        assert!(refused.contains("read mail"), "{refused}");
        assert!(gate.verdict("127.0.0.1", 9).is_ok(), "the model API stays");
        gate.grant(host("example.com"));
        assert!(gate.verdict("example.com", 443).is_ok());
        assert!(gate.verdict("other.example", 443).is_err());
        gate.reopen();
        assert!(gate.verdict("other.example", 443).is_ok());
        assert!(
            Gate::conversation(true)
                .verdict("example.com", 443)
                .is_err()
        );
    }

    #[test]
    fn a_background_run_reaches_its_approved_hosts_only() {
        let gate = Gate::background(ToolReach::Hosts(vec![host("wttr.in")]));
        gate.add_always(model_api(None));
        assert!(gate.verdict("wttr.in", 443).is_ok());
        assert!(gate.verdict("api.anthropic.com", 443).is_ok());
        let refused = gate.verdict("evil.example", 443).unwrap_err();
        assert!(
            refused.contains("WebFetch(domain:evil.example)"),
            "{refused}"
        );
        let anywhere = Gate::background(ToolReach::Anywhere);
        anywhere.read_untrusted();
        assert!(
            anywhere.verdict("x.example", 80).is_ok(),
            "what the owner approved"
        );
    }
}
