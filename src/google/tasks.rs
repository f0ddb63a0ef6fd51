//! Google Tasks v1 (GOO-5, GOO-8): list (all pages), get, add, update, complete, delete; and
//! the [`TaskRequest`]s the command and the agent's tool share.

mod request;

use std::fmt::Write;

use reqwest::Method;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::{Api, GoogleClient, GoogleError};

pub use request::{TaskRequest, parse_due, task_details, task_line, task_lines};

/// One task as the API returns it (the fields the bot uses).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Task {
    /// The task id.
    pub id: String,
    /// Its title (may be missing).
    #[serde(default)]
    pub title: String,
    /// `needsAction` or `completed`.
    #[serde(default)]
    pub status: String,
    /// Due date as RFC 3339 (Google keeps only the date).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub due: Option<String>,
    /// Notes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
}

impl Task {
    /// `YYYY-MM-DD` of the due date.
    pub fn due_date(&self) -> Option<&str> {
        self.due.as_deref().map(|due| due.get(..10).unwrap_or(due))
    }

    /// Whether the task is completed.
    pub fn is_completed(&self) -> bool {
        self.status == "completed"
    }

    /// Whether the task has notes.
    pub fn has_notes(&self) -> bool {
        self.notes.as_deref().is_some_and(|n| !n.trim().is_empty())
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TaskPage {
    #[serde(default)]
    items: Vec<Task>,
    next_page_token: Option<String>,
}

/// The changes of `tasks update` (GOO-5); `None` leaves a field alone.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TaskChanges {
    /// New title.
    pub title: Option<String>,
    /// New due date, `YYYY-MM-DD`.
    pub due: Option<String>,
    /// New notes.
    pub notes: Option<String>,
}

impl TaskChanges {
    /// Whether nothing would change.
    pub fn is_empty(&self) -> bool {
        self.title.is_none() && self.due.is_none() && self.notes.is_none()
    }

    fn body(&self) -> Value {
        let mut body = Map::new();
        if let Some(title) = &self.title {
            body.insert("title".into(), json!(title));
        }
        if let Some(due) = &self.due {
            body.insert("due".into(), json!(due_timestamp(due)));
        }
        if let Some(notes) = &self.notes {
            body.insert("notes".into(), json!(notes));
        }
        Value::Object(body)
    }
}

/// A `YYYY-MM-DD` due date as the API stores it: midnight UTC (GOO-5).
pub fn due_timestamp(date: &str) -> String {
    format!("{date}T00:00:00.000Z")
}

/// Percent-encodes one path segment (ids may hold `@`, `#`, `/`…).
pub(crate) fn segment(id: &str) -> String {
    let mut out = String::with_capacity(id.len());
    for byte in id.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~' | b'@') {
            out.push(byte as char);
        } else {
            let _ = write!(out, "%{byte:02X}");
        }
    }
    out
}

impl GoogleClient {
    fn task_url(&self, list: &str, task: Option<&str>) -> String {
        let base = format!("lists/{}/tasks", segment(list));
        match task {
            Some(task) => self.url(Api::Tasks, &format!("{base}/{}", segment(task))),
            None => self.url(Api::Tasks, &base),
        }
    }

    /// Every task of `list`, following the pages; `all` includes completed and hidden ones.
    pub async fn list_tasks(&self, list: &str, all: bool) -> Result<Vec<Task>, GoogleError> {
        let url = self.task_url(list, None);
        let mut tasks = Vec::new();
        let mut page_token: Option<String> = None;
        loop {
            let mut query = vec![
                ("showCompleted", all.to_string()),
                ("showHidden", all.to_string()),
                ("maxResults", "100".to_owned()),
            ];
            if let Some(token) = &page_token {
                query.push(("pageToken", token.clone()));
            }
            let page: TaskPage = self
                .call(Api::Tasks, Method::GET, &url, &query, None)
                .await?;
            tasks.extend(page.items);
            match page.next_page_token.filter(|t| !t.is_empty()) {
                Some(token) => page_token = Some(token),
                None => return Ok(tasks),
            }
        }
    }

    /// One task.
    pub async fn get_task(&self, list: &str, id: &str) -> Result<Task, GoogleError> {
        let url = self.task_url(list, Some(id));
        self.call(Api::Tasks, Method::GET, &url, &[], None).await
    }

    /// Adds a task; `due` is `YYYY-MM-DD`.
    pub async fn add_task(
        &self,
        list: &str,
        title: &str,
        due: Option<&str>,
        notes: Option<&str>,
    ) -> Result<Task, GoogleError> {
        let mut body = json!({ "title": title });
        if let Some(due) = due {
            body["due"] = json!(due_timestamp(due));
        }
        if let Some(notes) = notes {
            body["notes"] = json!(notes);
        }
        let url = self.task_url(list, None);
        self.call(Api::Tasks, Method::POST, &url, &[], Some(&body))
            .await
    }

    /// Changes a task's fields.
    pub async fn update_task(
        &self,
        list: &str,
        id: &str,
        changes: &TaskChanges,
    ) -> Result<Task, GoogleError> {
        let url = self.task_url(list, Some(id));
        self.call(Api::Tasks, Method::PATCH, &url, &[], Some(&changes.body()))
            .await
    }

    /// Marks a task completed; returns its title, or the id when it has none (GOO-8).
    pub async fn complete_task(&self, list: &str, id: &str) -> Result<String, GoogleError> {
        let url = self.task_url(list, Some(id));
        let body = json!({ "status": "completed" });
        let task: Task = self
            .call(Api::Tasks, Method::PATCH, &url, &[], Some(&body))
            .await?;
        Ok(title_or_id(task.title, id))
    }

    /// Deletes a task; returns the title it had, or the id (GOO-8).
    pub async fn delete_task(&self, list: &str, id: &str) -> Result<String, GoogleError> {
        let task = self.get_task(list, id).await?;
        let url = self.task_url(list, Some(id));
        self.call_empty(Api::Tasks, Method::DELETE, &url).await?;
        Ok(title_or_id(task.title, id))
    }
}

pub(crate) fn title_or_id(title: String, id: &str) -> String {
    if title.trim().is_empty() {
        id.to_owned()
    } else {
        title
    }
}
