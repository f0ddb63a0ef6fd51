//! `google_tasks`' arguments (GOO-5): an action and the fields it needs, checked into a
//! [`TaskRequest`] before anything reaches Google.

use rmcp::schemars;
use serde::Deserialize;

use super::required;
use crate::google::tasks::{TaskChanges, TaskRequest, parse_due};

// What `google_tasks` does; inlined into the schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(inline)]
pub(super) enum TasksAction {
    List,
    Show,
    Add,
    Done,
    Update,
    Delete,
}

/// Arguments of `google_tasks`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub(super) struct TasksArgs {
    /// What to do.
    action: TasksAction,
    /// Task id: show, done, update, delete.
    id: Option<String>,
    /// Title: add (required), update.
    title: Option<String>,
    /// Due date YYYY-MM-DD: add, update.
    due: Option<String>,
    /// Notes: add, update.
    notes: Option<String>,
    /// list: also completed and hidden tasks.
    all: Option<bool>,
    /// Task list id (default: the configured list).
    list: Option<String>,
}

impl TasksArgs {
    /// The task list named (if any) and the request, or why the arguments can't be used.
    pub(super) fn into_request(self) -> Result<(Option<String>, TaskRequest), String> {
        let due = self.due.as_deref().map(parse_due).transpose()?;
        let id = |name| required(self.id.clone(), "an id", name);
        let request = match self.action {
            TasksAction::List => TaskRequest::List {
                all: self.all.unwrap_or(false),
            },
            TasksAction::Show => TaskRequest::Show { id: id("show")? },
            TasksAction::Add => TaskRequest::Add {
                title: required(self.title.clone(), "a title", "add")?,
                due,
                notes: self.notes.clone(),
            },
            TasksAction::Done => TaskRequest::Done { id: id("done")? },
            TasksAction::Update => {
                let changes = TaskChanges {
                    title: self.title.clone(),
                    due,
                    notes: self.notes.clone(),
                };
                if changes.is_empty() {
                    return Err("update needs at least one of title, due, notes".to_owned());
                }
                TaskRequest::Update {
                    id: id("update")?,
                    changes,
                }
            }
            TasksAction::Delete => TaskRequest::Delete { id: id("delete")? },
        };
        let list = self
            .list
            .map(|l| l.trim().to_owned())
            .filter(|l| !l.is_empty());
        Ok((list, request))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(json: serde_json::Value) -> Result<(Option<String>, TaskRequest), String> {
        serde_json::from_value::<TasksArgs>(json)
            .unwrap()
            .into_request()
    }

    #[test]
    fn each_action_becomes_its_request() {
        use serde_json::json;
        assert_eq!(
            args(json!({"action": "list", "all": true, "list": "work"})),
            Ok((Some("work".into()), TaskRequest::List { all: true }))
        );
        assert_eq!(
            args(json!({"action": "add", "title": "Buy milk", "due": "2026-03-01"})),
            Ok((
                None,
                TaskRequest::Add {
                    title: "Buy milk".into(),
                    due: Some("2026-03-01".into()),
                    notes: None
                }
            ))
        );
        assert_eq!(
            args(json!({"action": "done", "id": "t1"})).map(|(_, r)| r),
            Ok(TaskRequest::Done { id: "t1".into() })
        );
        let update = args(json!({"action": "update", "id": "t1", "notes": ""}))
            .unwrap()
            .1;
        assert!(
            matches!(update, TaskRequest::Update { changes, .. } if changes.notes.as_deref() == Some(""))
        );
    }

    #[test]
    fn missing_or_bad_fields_are_refused_before_google() {
        use serde_json::json;
        assert!(serde_json::from_value::<TasksArgs>(json!({"id": "t1"})).is_err());
        assert_eq!(
            args(json!({"action": "done"})).unwrap_err(),
            "done needs an id"
        );
        assert_eq!(
            args(json!({"action": "add", "title": " "})).unwrap_err(),
            "add needs a title"
        );
        assert!(
            args(json!({"action": "add", "title": "x", "due": "next week"}))
                .unwrap_err()
                .contains("YYYY-MM-DD")
        );
        assert_eq!(
            args(json!({"action": "update", "id": "t1"})).unwrap_err(),
            "update needs at least one of title, due, notes"
        );
        assert!(serde_json::from_value::<TasksArgs>(json!({"action": "archive"})).is_err());
    }
}
