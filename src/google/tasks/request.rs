//! The Google Tasks requests (GOO-5) that the `tasks` command and the agent's `google_tasks`
//! tool share: one typed request, run against one task list, answered with the text both show
//! (the command prints it, the tool returns it).

use super::{Task, TaskChanges};
use crate::google::{GoogleClient, RequestError, lines_or, missing};

/// One Tasks request (GOO-5).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TaskRequest {
    /// The incomplete tasks; `all` adds the completed and hidden ones.
    List {
        /// Include completed and hidden tasks.
        all: bool,
    },
    /// One task in detail.
    Show {
        /// Task id.
        id: String,
    },
    /// A new task.
    Add {
        /// Title.
        title: String,
        /// Due date, `YYYY-MM-DD` (see [`parse_due`]).
        due: Option<String>,
        /// Notes.
        notes: Option<String>,
    },
    /// Mark a task completed.
    Done {
        /// Task id.
        id: String,
    },
    /// Change a task's fields.
    Update {
        /// Task id.
        id: String,
        /// What changes.
        changes: TaskChanges,
    },
    /// Delete a task.
    Delete {
        /// Task id.
        id: String,
    },
}

/// A due date as given: it must be a real `YYYY-MM-DD` date.
pub fn parse_due(raw: &str) -> Result<String, String> {
    chrono::NaiveDate::parse_from_str(raw.trim(), "%Y-%m-%d")
        .map(|date| date.format("%Y-%m-%d").to_string())
        .map_err(|_| format!("invalid date {raw:?}: expected YYYY-MM-DD"))
}

impl GoogleClient {
    /// Runs `request` on the task list `list`; the answer's text has no trailing newline.
    pub async fn run_tasks(
        &self,
        list: &str,
        request: TaskRequest,
    ) -> Result<String, RequestError> {
        let whole_list = || missing(format!("task list '{list}'"));
        let task = |id: &str| missing(format!("task {id}"));
        Ok(match request {
            TaskRequest::List { all } => {
                task_lines(&self.list_tasks(list, all).await.map_err(whole_list())?)
            }
            TaskRequest::Show { id } => {
                task_details(&self.get_task(list, &id).await.map_err(task(&id))?)
            }
            TaskRequest::Add { title, due, notes } => {
                let added = self
                    .add_task(list, &title, due.as_deref(), notes.as_deref())
                    .await
                    .map_err(whole_list())?;
                let due = due.as_deref().unwrap_or("(no due)");
                format!("added {}: {due} -- {title}", added.id)
            }
            TaskRequest::Done { id } => {
                self.complete_task(list, &id).await.map_err(task(&id))?;
                format!("completed {id}")
            }
            TaskRequest::Update { id, changes } => {
                self.update_task(list, &id, &changes)
                    .await
                    .map_err(task(&id))?;
                format!("updated {id}")
            }
            TaskRequest::Delete { id } => {
                self.delete_task(list, &id).await.map_err(task(&id))?;
                format!("deleted {id}")
            }
        })
    }
}

/// One [`task_line`] per task, or `no tasks` (GOO-5).
pub fn task_lines(tasks: &[Task]) -> String {
    lines_or(tasks, "no tasks", task_line)
}

/// `  <id>  <due, 12 wide>  [x]|[ ]  <title>[ [+]]` (GOO-5).
pub fn task_line(task: &Task) -> String {
    let due = task.due_date().unwrap_or("(no due)");
    let check = if task.is_completed() { "[x]" } else { "[ ]" };
    let notes = if task.has_notes() { " [+]" } else { "" };
    format!("  {}  {due:<12}  {check}  {}{notes}", task.id, task.title)
}

/// The `show` block (GOO-5): `title:`, `status:`, `due:`, `notes:`, `id:` lines.
pub fn task_details(task: &Task) -> String {
    let status = if task.is_completed() {
        "completed"
    } else {
        "needs action"
    };
    let notes = task
        .notes
        .as_deref()
        .filter(|n| !n.trim().is_empty())
        .unwrap_or("(none)");
    format!(
        "title:     {}\nstatus:    {status}\ndue:       {}\nnotes:     {notes}\nid:        {}",
        task.title,
        task.due_date().unwrap_or("(no due)"),
        task.id
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn due_dates_must_be_real_dates() {
        assert_eq!(parse_due(" 2026-03-01 ").as_deref(), Ok("2026-03-01"));
        assert!(parse_due("2026-02-30").is_err());
        assert!(parse_due("tomorrow").unwrap_err().contains("YYYY-MM-DD"));
    }

    #[test]
    fn lines_and_details_read_as_the_spec_says() {
        let task = Task {
            id: "t1".into(),
            title: "Buy milk".into(),
            status: "needsAction".into(),
            due: Some("2026-03-01T00:00:00.000Z".into()),
            notes: Some("2%".into()),
        };
        assert_eq!(task_line(&task), "  t1  2026-03-01    [ ]  Buy milk [+]");
        assert_eq!(task_lines(&[]), "no tasks");
        assert!(task_details(&task).ends_with("notes:     2%\nid:        t1"));
    }
}
