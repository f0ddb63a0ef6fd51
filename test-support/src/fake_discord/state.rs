//! Shared mutable state of the fake: request log, channel/message store,
//! gateway sessions, and the dispatch path (sequence numbers + replay log).

use std::collections::{BTreeMap, HashMap};
use std::sync::{Mutex, MutexGuard};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};
use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;

use super::model::{GuildState, Place};
use super::{FakeConfig, FakeMessage, GatewayStats, RecordedRequest};

/// Discord's epoch (2015-01-01) in Unix milliseconds.
pub(super) const DISCORD_EPOCH_MS: u64 = 1_420_070_400_000;

/// Gateway intent bits the fake enforces.
pub(super) const INTENT_GUILDS: u64 = 1 << 0;
pub(super) const INTENT_GUILD_MEMBERS: u64 = 1 << 1;
pub(super) const INTENT_GUILD_MESSAGES: u64 = 1 << 9;
pub(super) const INTENT_GUILD_MESSAGE_REACTIONS: u64 = 1 << 10;
pub(super) const INTENT_GUILD_MESSAGE_TYPING: u64 = 1 << 11;
pub(super) const INTENT_DIRECT_MESSAGES: u64 = 1 << 12;
pub(super) const INTENT_DIRECT_MESSAGE_REACTIONS: u64 = 1 << 13;
pub(super) const INTENT_DIRECT_MESSAGE_TYPING: u64 = 1 << 14;

pub(super) struct Shared {
    inner: Mutex<Inner>,
    changed: watch::Sender<u64>,
    pub cancel: CancellationToken,
}

impl Shared {
    pub(super) fn new(inner: Inner) -> Self {
        Shared {
            inner: Mutex::new(inner),
            changed: watch::Sender::new(0),
            cancel: CancellationToken::new(),
        }
    }

    pub(super) fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Wakes every waiter; call after releasing the lock.
    pub(super) fn notify(&self) {
        self.changed.send_modify(|n| *n += 1);
    }

    pub(super) fn subscribe(&self) -> watch::Receiver<u64> {
        self.changed.subscribe()
    }
}

/// A command for one live websocket connection's task.
pub(super) enum ConnCmd {
    Send(String),
    Close(u16, String),
    /// Drop the TCP connection without a close frame.
    Drop,
    /// Process a RESUME `d` that was parked by `hold_resumes`.
    Resume(Value),
}

#[derive(Clone)]
pub(super) struct ConnHandle {
    pub id: u64,
    pub tx: mpsc::UnboundedSender<ConnCmd>,
}

pub(super) struct Session {
    pub seq: u64,
    /// Every dispatch frame of this session, for RESUME replay.
    pub log: Vec<(u64, Value)>,
    pub conn: Option<ConnHandle>,
    pub intents: u64,
}

pub(super) struct Channel {
    pub place: Place,
    pub messages: Vec<FakeMessage>,
}

pub(super) struct StoredFile {
    pub content_type: String,
    pub data: Vec<u8>,
}

pub(super) struct InteractionState {
    pub id: u64,
    pub channel_id: u64,
    pub user_id: u64,
    /// The message a component interaction was triggered on.
    pub message_id: Option<u64>,
    pub acked: bool,
    /// The `@original` response message, once there is one.
    pub original: Option<u64>,
}

/// A scripted REST failure (see `FakeDiscord::fail_next` / `set_rate_limit`).
pub(super) struct Fault {
    pub pattern: String,
    pub status: u16,
    pub body: Value,
    pub headers: Vec<(String, String)>,
    pub remaining: u32,
    pub rate_limit: bool,
}

pub(super) struct Inner {
    pub cfg: FakeConfig,
    pub base_url: String,
    pub requests: Vec<RecordedRequest>,
    last_snowflake: u64,
    pub users: BTreeMap<u64, String>,
    pub dm_by_user: BTreeMap<u64, u64>,
    pub channels: BTreeMap<u64, Channel>,
    pub guilds: BTreeMap<u64, GuildState>,
    pub files: HashMap<u64, StoredFile>,
    pub commands: Vec<Value>,
    pub interactions: HashMap<String, InteractionState>,
    pub sessions: HashMap<String, Session>,
    pub current_session: Option<String>,
    next_conn_id: u64,
    pub gateway: GatewayStats,
    pub faults: Vec<Fault>,
    pub rate_limited: u64,
    pub gateway_503_left: u32,
    pub gateway_bot_503_left: u32,
    pub close_on_identify: Option<u16>,
    pub ack_heartbeats: bool,
    /// A connection that looks open but carries nothing: no heartbeat ACKs, no dispatches
    /// (still logged for a RESUME replay), like a half-dead TCP link.
    pub zombie_conn: Option<u64>,
    pub hold_resumes: bool,
    /// While set, every websocket connection is refused (503): Discord out of reach.
    pub refuse_gateway: bool,
    pub parked_resumes: Vec<(ConnHandle, Value)>,
    pub started: Instant,
}

pub(super) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(DISCORD_EPOCH_MS, |d| {
            u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
        })
}

impl Inner {
    pub(super) fn new(cfg: FakeConfig, base_url: String) -> Self {
        let mut users = BTreeMap::new();
        users.insert(cfg.owner_id, cfg.owner_name.clone());
        Inner {
            gateway_503_left: cfg.gateway_503_count,
            gateway_bot_503_left: cfg.gateway_bot_503_count,
            close_on_identify: cfg.close_on_identify,
            cfg,
            base_url,
            requests: Vec::new(),
            last_snowflake: 0,
            users,
            dm_by_user: BTreeMap::new(),
            channels: BTreeMap::new(),
            guilds: BTreeMap::new(),
            files: HashMap::new(),
            commands: Vec::new(),
            interactions: HashMap::new(),
            sessions: HashMap::new(),
            current_session: None,
            next_conn_id: 0,
            gateway: GatewayStats::default(),
            faults: Vec::new(),
            rate_limited: 0,
            ack_heartbeats: true,
            zombie_conn: None,
            hold_resumes: false,
            refuse_gateway: false,
            parked_resumes: Vec::new(),
            started: Instant::now(),
        }
    }

    /// A fresh, strictly increasing snowflake whose timestamp part is "now".
    pub(super) fn snowflake(&mut self) -> u64 {
        let from_clock = (now_ms().saturating_sub(DISCORD_EPOCH_MS)) << 22;
        self.last_snowflake = from_clock.max(self.last_snowflake + 1);
        self.last_snowflake
    }

    pub(super) fn next_conn_id(&mut self) -> u64 {
        self.next_conn_id += 1;
        self.next_conn_id
    }

    pub(super) fn ws_url(&self) -> String {
        format!("{}/gateway", self.base_url.replacen("http://", "ws://", 1))
    }

    pub(super) fn user_name(&self, id: u64) -> String {
        if id == self.cfg.bot_user_id {
            return self.cfg.bot_name.clone();
        }
        self.users
            .get(&id)
            .cloned()
            .unwrap_or_else(|| format!("user{}", id % 100_000))
    }

    /// The DM channel with `user_id`, created on first use (stable afterwards).
    pub(super) fn dm_channel(&mut self, user_id: u64) -> u64 {
        if let Some(&id) = self.dm_by_user.get(&user_id) {
            return id;
        }
        let id = self.snowflake();
        self.dm_by_user.insert(user_id, id);
        self.channels.insert(
            id,
            Channel {
                place: Place::Dm { recipient: user_id },
                messages: Vec::new(),
            },
        );
        id
    }

    pub(super) fn message(&self, channel_id: u64, message_id: u64) -> Option<&FakeMessage> {
        let channel = self.channels.get(&channel_id)?;
        channel
            .messages
            .iter()
            .find(|m| m.id == message_id && !m.deleted)
    }

    pub(super) fn message_mut(
        &mut self,
        channel_id: u64,
        message_id: u64,
    ) -> Option<&mut FakeMessage> {
        let channel = self.channels.get_mut(&channel_id)?;
        channel
            .messages
            .iter_mut()
            .find(|m| m.id == message_id && !m.deleted)
    }

    /// Finds a live message by id in any channel.
    pub(super) fn find_message(&self, message_id: u64) -> Option<&FakeMessage> {
        self.channels
            .values()
            .flat_map(|c| c.messages.iter())
            .find(|m| m.id == message_id && !m.deleted)
    }

    pub(super) fn push_message(&mut self, message: FakeMessage) {
        if let Some(channel) = self.channels.get_mut(&message.channel_id) {
            channel.messages.push(message);
        }
    }

    /// Is there a session whose connection is live (READY or RESUMED sent)?
    pub(super) fn connected(&self) -> bool {
        self.current_session
            .as_ref()
            .and_then(|id| self.sessions.get(id))
            .is_some_and(|s| s.conn.is_some())
    }

    pub(super) fn current_conn(&self) -> Option<ConnHandle> {
        let id = self.current_session.as_ref()?;
        self.sessions.get(id)?.conn.clone()
    }

    /// Sends an op-0 dispatch on the current session (logged for RESUME replay even
    /// while disconnected). Returns its `s`, or `None` when there is no session or the
    /// session's intents do not include `required_intent`.
    #[allow(clippy::needless_pass_by_value)] // callers build `d` in place with `json!`
    pub(super) fn dispatch(&mut self, t: &str, d: Value, required_intent: u64) -> Option<u64> {
        let sid = self.current_session.clone()?;
        let session = self.sessions.get_mut(&sid)?;
        if required_intent != 0 && session.intents & required_intent == 0 {
            self.gateway.filtered.push(t.to_string());
            return None;
        }
        session.seq += 1;
        let seq = session.seq;
        let frame = json!({"op": 0, "s": seq, "t": t, "d": d});
        let text = frame.to_string();
        session.log.push((seq, frame));
        if let Some(conn) = &session.conn
            && self.zombie_conn != Some(conn.id)
            && conn.tx.send(ConnCmd::Send(text)).is_err()
        {
            session.conn = None;
        }
        Some(seq)
    }

    /// Sends a non-dispatch frame to the live connection, if any.
    #[allow(clippy::needless_pass_by_value)] // callers build `frame` in place with `json!`
    pub(super) fn send_op(&mut self, frame: Value) -> bool {
        match self.current_conn() {
            Some(conn) => conn.tx.send(ConnCmd::Send(frame.to_string())).is_ok(),
            None => false,
        }
    }

    /// Detaches (and returns) the live connection of the current session.
    pub(super) fn take_conn(&mut self) -> Option<ConnHandle> {
        let id = self.current_session.clone()?;
        self.sessions.get_mut(&id)?.conn.take()
    }
}
