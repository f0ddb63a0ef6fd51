//! The fake's data: tokens, codes, task lists, calendars, mail, faults and the request log.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::sync::{Mutex, MutexGuard};

use serde_json::Value;
use tokio_util::sync::CancellationToken;

/// One request as the fake saw it.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    /// Decoded query pairs.
    pub query: Vec<(String, String)>,
    /// The bearer token, if any.
    pub bearer: Option<String>,
    /// Decoded form pairs (token endpoint) or the JSON body as text.
    pub body: String,
    /// The status the fake answered.
    pub status: u16,
}

impl Recorded {
    pub fn param(&self, name: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A scripted failure for the next request whose path contains `path_part`.
#[derive(Debug, Clone)]
pub struct Fault {
    pub path_part: String,
    pub status: u16,
    pub retry_after: Option<String>,
    pub body: Value,
}

impl Fault {
    pub fn new(path_part: &str, status: u16, body: Value) -> Fault {
        Fault {
            path_part: path_part.to_owned(),
            status,
            retry_after: None,
            body,
        }
    }

    pub fn retry_after(mut self, value: &str) -> Fault {
        self.retry_after = Some(value.to_owned());
        self
    }
}

/// A consent the authorize endpoint started: what the token exchange must match.
#[derive(Debug, Clone)]
pub struct IssuedCode {
    pub challenge: String,
    pub redirect_uri: String,
}

pub struct GoogleData {
    pub page_size: usize,
    pub expires_in: u64,
    pub codes: HashMap<String, IssuedCode>,
    /// Access tokens that are currently accepted.
    pub access: HashSet<String>,
    /// Refresh token → still valid.
    pub refresh: HashMap<String, bool>,
    pub task_lists: BTreeMap<String, Vec<Value>>,
    pub calendars: BTreeMap<String, Vec<Value>>,
    /// `calendarList` entries.
    pub calendar_list: Vec<Value>,
    /// Full Gmail messages (with `labelIds`, `internalDate`, `payload`).
    pub messages: Vec<Value>,
    pub labels: Vec<Value>,
    pub faults: VecDeque<Fault>,
    pub requests: Vec<Recorded>,
    next: u64,
}

impl GoogleData {
    fn new() -> GoogleData {
        let mut task_lists = BTreeMap::new();
        task_lists.insert("@default".to_owned(), Vec::new());
        let mut calendars = BTreeMap::new();
        calendars.insert("primary".to_owned(), Vec::new());
        GoogleData {
            page_size: 2,
            expires_in: 3599,
            codes: HashMap::new(),
            access: HashSet::new(),
            refresh: HashMap::new(),
            task_lists,
            calendars,
            calendar_list: Vec::new(),
            messages: Vec::new(),
            labels: Vec::new(),
            faults: VecDeque::new(),
            requests: Vec::new(),
            next: 1,
        }
    }

    pub fn next_id(&mut self, prefix: &str) -> String {
        self.next += 1;
        format!("{prefix}{}", self.next)
    }

    /// A new access token (accepted when `valid`) and refresh token.
    pub fn issue_pair(&mut self, valid: bool) -> (String, String) {
        let access = self.next_id("ya29.access-");
        let refresh = self.next_id("1//refresh-");
        if valid {
            self.access.insert(access.clone());
        }
        self.refresh.insert(refresh.clone(), true);
        (access, refresh)
    }

    pub fn issue_access(&mut self) -> String {
        let access = self.next_id("ya29.access-");
        self.access.insert(access.clone());
        access
    }

    pub fn revoke(&mut self, refresh: &str) {
        self.refresh.insert(refresh.to_owned(), false);
        self.access.clear();
    }

    pub fn tasks(&mut self, list: &str) -> &mut Vec<Value> {
        self.task_lists.entry(list.to_owned()).or_default()
    }

    pub fn events(&mut self, calendar: &str) -> &mut Vec<Value> {
        self.calendars.entry(calendar.to_owned()).or_default()
    }

    pub fn take_fault(&mut self, path: &str) -> Option<Fault> {
        let index = self
            .faults
            .iter()
            .position(|f| path.contains(&f.path_part))?;
        self.faults.remove(index)
    }
}

pub(super) struct Shared {
    data: Mutex<GoogleData>,
    pub cancel: CancellationToken,
}

impl Shared {
    pub(super) fn new() -> Shared {
        Shared {
            data: Mutex::new(GoogleData::new()),
            cancel: CancellationToken::new(),
        }
    }

    pub(super) fn lock(&self) -> MutexGuard<'_, GoogleData> {
        self.data
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}
